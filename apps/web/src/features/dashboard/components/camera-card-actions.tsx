import type { Camera } from '@farmcam/contract';
import { Link } from 'react-router';
import { buttonClassName } from '../../../components/ui/button.tsx';
import { paths } from '../../../config/paths.ts';
import { cameraNameOf, isLivestreamEligible, type CardState } from '../camera-state.ts';
import { CameraBillingActions, hasBillingAction } from './camera-billing-actions.tsx';
import styles from './camera-card-actions.module.css';

/**
 * The card's actions (spec §2): renewal for a camera without a subscription, Setup Livestreaming
 * for active Heavy plans, and the links to More info, Manage plan and Invoices.
 *
 * Billing actions (Pay now for overdue cards, Pause and Cancel Scheduled Pause) belong in the
 * `primary` row below, decided by `state` like the others.
 */
export function CameraCardActions({ camera, state }: { camera: Camera; state: CardState }) {
  const billingId = camera.STRIPE_CUSTOMER_ID;
  const name = cameraNameOf(camera);
  const about = <span className="visually-hidden"> for {name}</span>;
  const canManagePlan = billingId !== null && state !== 'terminated' && state !== 'no-subscription';

  const primary = [
    hasBillingAction(state) && billingId && (
      <CameraBillingActions key="billing" camera={camera} state={state} />
    ),
    state === 'no-subscription' && billingId && (
      <Link
        key="renew"
        to={paths.pricing.href(camera.SIM_ICCID, billingId)}
        className={buttonClassName({ variant: 'primary' })}
      >
        Renew subscription{about}
      </Link>
    ),
    isLivestreamEligible(camera) && (
      <Link
        key="livestream"
        to={paths.livestreamingSetup.href()}
        className={buttonClassName({ variant: 'secondary' })}
      >
        Setup Livestreaming{about}
      </Link>
    ),
  ].filter(Boolean);

  return (
    <div className={styles.actions}>
      {primary.length > 0 && <div className={styles.primary}>{primary}</div>}
      <ul className={styles.links}>
        <li>
          <Link to={paths.camera.href(camera.SIM_ICCID)}>More info{about}</Link>
        </li>
        {canManagePlan && (
          <li>
            <Link to={paths.subscription.href(billingId)}>Manage plan{about}</Link>
          </li>
        )}
        {billingId !== null && (
          <li>
            <Link to={paths.invoices.href(billingId)}>Invoices{about}</Link>
          </li>
        )}
      </ul>
    </div>
  );
}
