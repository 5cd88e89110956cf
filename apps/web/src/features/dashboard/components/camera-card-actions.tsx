import type { AccessAbilities, Camera, CardState } from '@farmcam/contract';
import { buttonClassName } from '../../../components/ui/button.tsx';
import { paths } from '../../../config/paths.ts';
import { CameraBillingActions, hasBillingAction } from './camera-billing-actions.tsx';
import styles from './camera-card-actions.module.css';

/**
 * The card's actions (docs/requirements.md#screens): renewal for a camera without a subscription (`canRenew`), Setup Livestreaming
 * or Manage livestream as the server says (`livestreamAction`: none yet, or one set up), and the links to More info,
 * Manage plan and Invoices (Manage plan on every card with a billing account, as docs/requirements.md#screens lists). The links are
 * plain anchors marked `data-route`, which the grid turns into in-app navigation with one click
 * handler for all cards (thousands of router Links cost more than the rest of the card).
 *
 * Billing actions (Pay now for overdue cards, Pause and Cancel Scheduled Pause) belong in the
 * `primary` row below, each offered where the server says it would be accepted (decision 170).
 */
export function CameraCardActions({
  camera,
  state,
  abilities,
  hasLiveView = false,
}: {
  camera: Camera;
  state: CardState;
  abilities: AccessAbilities;
  /** The plan includes hours of live view (the server's answer): the card offers Watch live. */
  hasLiveView?: boolean;
}) {
  const billingId = camera.STRIPE_CUSTOMER_ID;
  const name = camera.displayName;
  // Each link's name says which camera it is about (an attribute, not more elements per card).
  const about = (label: string) => ({ 'aria-label': `${label} for ${name}` });

  const primary = [
    // The camera page starts the view at once and says there why, if it cannot (issue 27).
    hasLiveView && (
      <a
        key="watch-live"
        data-route
        href={paths.camera.href(camera.SIM_ICCID, { watch: true })}
        className={buttonClassName({ variant: 'primary' })}
        {...about('Watch live')}
      >
        Watch live
      </a>
    ),
    hasBillingAction(camera) && billingId && <CameraBillingActions key="billing" camera={camera} />,
    camera.canRenew && billingId && (
      <a
        key="renew"
        data-route
        href={paths.pricing.href(camera.SIM_ICCID, billingId)}
        className={buttonClassName({ variant: 'primary' })}
        {...about('Renew subscription')}
      >
        Renew subscription
      </a>
    ),
    state === 'terminated' && abilities.activateSims && (
      <a
        key="new-sim"
        data-route
        href={paths.activate.href()}
        className={buttonClassName({ variant: 'secondary' })}
        {...about('Activate a new SIM')}
      >
        Activate a new SIM
      </a>
    ),
    camera.livestreamAction === 'set-up' && (
      <a
        key="livestream"
        data-route
        href={paths.livestreamingSetup.href({ cameraId: camera.SIM_ICCID })}
        className={buttonClassName({ variant: 'secondary' })}
        {...about('Setup Livestreaming')}
      >
        Setup Livestreaming
      </a>
    ),
    // Already streaming: its schedule, links and code, not the set-up wizard (decision 121).
    camera.livestreamAction === 'manage' && (
      <a
        key="livestream"
        data-route
        href={paths.livestreamingManage.href(camera.SIM_ICCID)}
        className={buttonClassName({ variant: 'secondary' })}
        {...about('Manage livestream')}
      >
        Manage livestream
      </a>
    ),
  ].filter(Boolean);

  return (
    <div className={styles.actions}>
      {primary.length > 0 && <div className={styles.primary}>{primary}</div>}
      <ul className={styles.links}>
        <li>
          <a data-route href={paths.camera.href(camera.SIM_ICCID)} {...about('More info')}>
            More info
          </a>
        </li>
        {/* The server says whether Manage plan has anything for this camera (decision 111). */}
        {billingId !== null && camera.canManagePlan && (
          <li>
            <a data-route href={paths.subscription.href(billingId)} {...about('Manage plan')}>
              Manage plan
            </a>
          </li>
        )}
        {billingId !== null && abilities.manageBilling && (
          <li>
            <a data-route href={paths.invoices.href(billingId)} {...about('Invoices')}>
              Invoices
            </a>
          </li>
        )}
      </ul>
    </div>
  );
}
