import type { AccessAbilities, Camera } from '@farmcam/contract';
import { memo } from 'react';
import { formatDay } from '@farmcam/contract/rules';
import { SilenceBanner } from '../../../components/camera-watch/silence-banner.tsx';
import { DataCapBanner } from '../../../components/budget/data-cap-banner.tsx';
import { LatestStill } from '../../../components/camera-still/latest-still.tsx';
import { Chip } from '../../../components/ui/chip.tsx';
import { classNames } from '../../../components/ui/class-names.ts';
import {
  billingIntervalTextOf,
  cardTexts,
  chipTextOf,
  chipToneOf,
  formatGb,
  formatPercent,
  planNameOf,
  showsBillingInterval,
} from '../camera-state.ts';
import styles from './camera-card.module.css';
import { CameraCardActions } from './camera-card-actions.tsx';
import type { LiveViewCamera } from '../api/get-live-view-cameras.ts';

export interface CameraCardProps {
  camera: Camera;
  onRename: (camera: Camera) => void;
  /** The address the paused and attention cards offer (the plans answer's supportEmail). */
  supportEmail: string;
  /** What the signed-in person may do: the edit button and the actions follow it. */
  abilities: AccessAbilities;
  /** Whether it offers Watch live, and its latest still (absent until that answer arrives). */
  liveView?: LiveViewCamera;
}

/** One camera (docs/requirements.md#screens): name and edit button, SIM number, status, plan, billing, usage, actions. */
export const CameraCard = memo(function CameraCard({
  camera,
  onRename,
  supportEmail,
  abilities,
  liveView,
}: CameraCardProps) {
  const state = camera.cardState;
  const name = camera.displayName;
  const headingId = `camera-${camera.SIM_ICCID}`;
  const subscription = camera.stripeSubscription;

  return (
    <article className={classNames(styles.card, styles[state])} aria-labelledby={headingId}>
      <div className={styles.header}>
        <h3 id={headingId} className={styles.name}>
          {name}
        </h3>
        {abilities.manageCameras && (
          <button
            type="button"
            className={styles.editButton}
            onClick={() => onRename(camera)}
            aria-label={`Edit name of ${name}`}
            title="Edit name"
          >
            <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
              <path
                fill="currentColor"
                d="M14.7 2.3a1 1 0 0 1 1.4 0l1.6 1.6a1 1 0 0 1 0 1.4L7.4 15.6l-4 1 1-4zM5.9 13.1l-.3 1.3 1.3-.3 8.6-8.6-1-1z"
              />
            </svg>
          </button>
        )}
      </div>
      <div className={styles.status}>
        <Chip tone={chipToneOf(camera.labelDashboard)}>{chipTextOf(camera.labelDashboard)}</Chip>
        {/* What needs the farmer, in the server's words: the chip alone says too little. */}
        {camera.attention && <span className={styles.attention}>{camera.attention}</span>}
      </div>
      <LatestStill still={liveView?.still ?? null} cameraName={name} />
      {camera.silence && <SilenceBanner silence={camera.silence} />}
      {camera.dataCap && (
        <DataCapBanner
          iccid={camera.SIM_ICCID}
          name={name}
          allowanceGb={camera.usage.planAllowanceGB}
          dataCap={camera.dataCap}
          canManage={abilities.manageCameras}
        />
      )}
      <p className={styles.iccid}>
        <span className={styles.iccidLabel}>SIM</span> {camera.SIM_ICCID}
      </p>
      <dl className={styles.facts}>
        <div>
          <dt>Plan</dt>
          <dd>{planNameOf(camera.tier)}</dd>
        </div>
        {/* How the plan is billed is the owner's business (decision 141). */}
        {subscription && showsBillingInterval(state) && abilities.manageBilling && (
          <div>
            <dt>Billing</dt>
            <dd>{billingIntervalTextOf(subscription.interval)}</dd>
          </div>
        )}
        <div>
          <dt>Data used this month</dt>
          <dd>{formatGb(camera.dataUsageGB)}</dd>
        </div>
      </dl>
      <UsageMeter camera={camera} />
      <CardMessage camera={camera} supportEmail={supportEmail} />
      <CameraCardActions
        camera={camera}
        state={state}
        abilities={abilities}
        hasLiveView={liveView?.hasLiveView === true}
      />
    </article>
  );
});

/** Beyond the spec: the share of the plan used and where the month will end at this rate. */
function UsageMeter({ camera }: { camera: Camera }) {
  const { planAllowanceGB, percentOfPlan, forecastMonthEndGB } = camera.usage;
  if (planAllowanceGB === null || percentOfPlan === null) return null;
  const isOver = percentOfPlan >= 100;
  const isForecastOver = forecastMonthEndGB !== null && forecastMonthEndGB > planAllowanceGB;
  return (
    <div className={styles.usage}>
      <div className={styles.meter} aria-hidden="true">
        <div
          className={classNames(
            styles.meterFill,
            isOver ? styles.meterOver : percentOfPlan >= 80 && styles.meterHigh,
          )}
          style={{ width: `${Math.min(100, percentOfPlan)}%` }}
        />
      </div>
      <p className={styles.usageText}>
        {formatPercent(percentOfPlan)} of the {formatGb(planAllowanceGB)} plan
        {forecastMonthEndGB !== null && (
          <>
            {' · '}
            <span className={classNames(isForecastOver && styles.forecastOver)}>
              {isForecastOver ? 'on course for ' : 'about '}
              {formatGb(forecastMonthEndGB)} by month end
            </span>
          </>
        )}
      </p>
    </div>
  );
}

function CardMessage({ camera, supportEmail }: { camera: Camera; supportEmail: string }) {
  const pause = camera.statusData.subscriptionStatus.pause;
  const contact = (
    <a className={styles.contact} href={`mailto:${supportEmail}`}>
      Contact support<span className="visually-hidden"> about {camera.displayName}</span>
    </a>
  );
  switch (camera.cardState) {
    case 'overdue':
      return (
        <div className={styles.alert}>
          <p>{cardTexts.overdue}</p>
          {/* The server's words for what is unpaid, since when and why (decision 113). */}
          {camera.unpaid && (
            <p className={styles.unpaid}>
              <strong>{camera.unpaid.summary}.</strong> {camera.unpaid.sentence}
            </p>
          )}
        </div>
      );
    case 'no-subscription':
      return <p className={styles.alert}>{cardTexts.noSubscription}</p>;
    case 'terminated':
      return (
        <p className={styles.message}>
          {cardTexts.terminated}
          {camera.terminatedOn && ` The SIM was switched off on ${formatDay(camera.terminatedOn)}.`}
        </p>
      );
    case 'attention':
      return (
        <p className={styles.alert}>
          {cardTexts.attention} {contact}
        </p>
      );
    case 'paused':
      return (
        <p className={styles.warning}>
          {pause?.end_date
            ? `Streaming plan paused until ${formatDay(pause.end_date)}. `
            : 'Streaming plan paused. '}
          {cardTexts.pausedRestart} {contact}
        </p>
      );
    case 'pause-scheduled':
      return (
        <p className={styles.warning}>
          {pause
            ? `Pause scheduled from ${formatDay(pause.start_date)}${pause.end_date ? ` until ${formatDay(pause.end_date)}` : ''}.`
            : 'Pause scheduled.'}
        </p>
      );
    case 'active':
      return camera.isBarred ? <p className={styles.alert}>{cardTexts.barred}</p> : null;
  }
}
