import type { CameraAlertSettings, CameraAlertSettingsResponse } from '@farmcam/contract';
import { cameraAlertLimits } from '@farmcam/contract/rules';
import { useId, useState, type ReactNode } from 'react';
import { PauseDataNote } from '../../../components/budget/data-cap-banner.tsx';
import { SilenceBanner } from '../../../components/camera-watch/silence-banner.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import {
  useAlertSettings,
  useMyCameraAlerts,
  useSaveAlertSettings,
  useSetMyCameraAlerts,
} from '../api/camera-alert-settings.ts';
import { Link } from '../../../lib/router/index.ts';
import { paths } from '../../../config/paths.ts';
import styles from './camera-alerts-card.module.css';
import infoStyles from './info-card.module.css';

const hourChoices = cameraAlertLimits.silenceHours.choices;
const percentChoices = [50, 60, 70, 75, 80, 90, 95] as const;

const hoursLabel = (hours: number | null) =>
  hours === null ? 'Off' : `After ${hours} hour${hours === 1 ? '' : 's'}`;
const percentLabel = (percent: number | null) =>
  percent === null ? 'Only when all is used' : `At ${percent}%`;

/** The choices, with the saved value among them even when it is not one of the usual ones. */
const withValue = (choices: readonly number[], value: number | null) =>
  value === null || choices.includes(value)
    ? [...choices]
    : [...choices, value].sort((left, right) => left - right);

/**
 * The camera's alerts (decision 094): silence, the data share, pausing data at the allowance and
 * hours without a clip. Owners and managers change them; a viewer reads them. Each person's own
 * choice to receive the e-mails sits here too, where they look for it.
 */
export function CameraAlertsCard({ iccid }: { iccid: string }) {
  const settings = useAlertSettings(iccid);

  let body: ReactNode;
  if (settings.isPending) body = <Loader label="Loading the alerts…" />;
  else if (settings.isError)
    body = <p role="alert">{errorMessage(settings.error, 'Could not load the alerts')}</p>;
  else if (settings.data.unavailableReason)
    // A switched-off camera sends nothing, so it has no alerts to change (decision 111).
    body = <p role="status">{settings.data.unavailableReason}</p>;
  else if (settings.data.canChange)
    body = (
      // A new answer (saved, or changed elsewhere) starts the form again from it.
      <AlertsForm key={settingsKeyOf(settings.data)} iccid={iccid} saved={settings.data} />
    );
  else body = <AlertsSummary settings={settings.data} />;

  return (
    <Card title="Alerts">
      {body}
      {!settings.data?.unavailableReason && <MyAlertsChoice />}
    </Card>
  );
}

/** The details page's banner while the camera is silent (the same answer as the Alerts card's). */
export function CameraSilenceBanner({ iccid }: { iccid: string }) {
  const silence = useAlertSettings(iccid).data?.silence;
  return silence ? <SilenceBanner silence={silence} /> : null;
}

function AlertsSummary({ settings }: { settings: CameraAlertSettings }) {
  return (
    <dl className={infoStyles.list}>
      <div>
        <dt>No data from the camera</dt>
        <dd>{hoursLabel(settings.silenceHours)}</dd>
      </div>
      <div>
        <dt>Data used</dt>
        <dd>{percentLabel(settings.dataAlertPercent)}</dd>
      </div>
      <div>
        <dt>Pause data when the plan is used up</dt>
        <dd>{settings.pauseDataAtAllowance ? 'Yes' : 'No'}</dd>
      </div>
      <div>
        <dt>No livestream clip</dt>
        <dd>{hoursLabel(settings.noClipHours)}</dd>
      </div>
    </dl>
  );
}

const settingsKeyOf = (settings: CameraAlertSettings) =>
  [
    settings.silenceHours,
    settings.dataAlertPercent,
    settings.pauseDataAtAllowance,
    settings.noClipHours,
  ].join('/');

const fromSelect = (value: string) => (value === '' ? null : Number(value));

function AlertsForm({ iccid, saved }: { iccid: string; saved: CameraAlertSettingsResponse }) {
  const id = useId();
  const save = useSaveAlertSettings(iccid);
  const [draft, setDraft] = useState<CameraAlertSettings>(saved);
  const set = <Key extends keyof CameraAlertSettings>(key: Key, value: CameraAlertSettings[Key]) =>
    setDraft((current) => ({ ...current, [key]: value }));
  const isChanged =
    draft.silenceHours !== saved.silenceHours ||
    draft.dataAlertPercent !== saved.dataAlertPercent ||
    draft.pauseDataAtAllowance !== saved.pauseDataAtAllowance ||
    draft.noClipHours !== saved.noClipHours;

  return (
    <form
      className={styles.form}
      aria-label="Camera alerts"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(
          {
            silenceHours: draft.silenceHours,
            dataAlertPercent: draft.dataAlertPercent,
            pauseDataAtAllowance: draft.pauseDataAtAllowance,
            noClipHours: draft.noClipHours,
          },
          {
            onSuccess: () => toast.success('Alerts saved'),
            onError: (error) => toast.error(errorMessage(error, 'Could not save the alerts')),
          },
        );
      }}
    >
      <div className={styles.field}>
        <label htmlFor={`${id}-silence`}>E-mail when the camera sends no data</label>
        <select
          id={`${id}-silence`}
          className={styles.control}
          value={String(draft.silenceHours ?? '')}
          onChange={(event) => set('silenceHours', fromSelect(event.target.value))}
        >
          <option value="">Off</option>
          {withValue(hourChoices, draft.silenceHours).map((hours) => (
            <option key={hours} value={String(hours)}>
              {hoursLabel(hours)}
            </option>
          ))}
        </select>
      </div>
      <div className={styles.field}>
        <label htmlFor={`${id}-percent`}>E-mail when this much of the plan's data is used</label>
        <select
          id={`${id}-percent`}
          className={styles.control}
          value={String(draft.dataAlertPercent ?? '')}
          onChange={(event) => set('dataAlertPercent', fromSelect(event.target.value))}
        >
          <option value="">{percentLabel(null)}</option>
          {withValue(percentChoices, draft.dataAlertPercent).map((percent) => (
            <option key={percent} value={String(percent)}>
              {percentLabel(percent)}
            </option>
          ))}
        </select>
      </div>
      <label className={styles.check}>
        <input
          type="checkbox"
          checked={draft.pauseDataAtAllowance}
          aria-describedby={`${id}-pause-note`}
          onChange={(event) => set('pauseDataAtAllowance', event.target.checked)}
        />
        <span>Pause the camera's data when the plan's data is used up</span>
      </label>
      <PauseDataNote id={`${id}-pause-note`} />
      <div className={styles.field}>
        <label htmlFor={`${id}-clips`}>E-mail when the livestream delivers no clip</label>
        <select
          id={`${id}-clips`}
          className={styles.control}
          value={String(draft.noClipHours ?? '')}
          onChange={(event) => set('noClipHours', fromSelect(event.target.value))}
        >
          <option value="">Off</option>
          {withValue(hourChoices, draft.noClipHours).map((hours) => (
            <option key={hours} value={String(hours)}>
              {hoursLabel(hours)}
            </option>
          ))}
        </select>
      </div>
      <div>
        <Button type="submit" isLoading={save.isPending} disabled={!isChanged}>
          Save alerts
        </Button>
      </div>
    </form>
  );
}

/** The owner always receives the e-mails; a member turns them on or off for themselves. */
function MyAlertsChoice() {
  const mine = useMyCameraAlerts();
  const change = useSetMyCameraAlerts();
  if (!mine.data) return null;
  const howTold = (
    <p className={infoStyles.note}>
      Choose e-mail, push or text for each alert on your{' '}
      <Link to={paths.notifications.href()} className={styles.notificationsLink}>
        Notifications
      </Link>{' '}
      page.
    </p>
  );
  if (mine.data.isOwner) {
    return (
      <>
        <p className={infoStyles.note}>
          Alert e-mails go to you as the account owner. Team members choose their own alerts.
        </p>
        {howTold}
      </>
    );
  }
  return (
    <>
      <label className={`${styles.check} ${styles.mine}`}>
        <input
          type="checkbox"
          checked={mine.data.cameraAlerts}
          disabled={change.isPending}
          onChange={(event) =>
            change.mutate(event.target.checked, {
              onError: (error) => toast.error(errorMessage(error, 'Could not change your e-mails')),
            })
          }
        />
        <span>E-mail me these alerts for the cameras I can see</span>
      </label>
      {howTold}
    </>
  );
}
