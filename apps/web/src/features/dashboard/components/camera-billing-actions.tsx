import type { Camera } from '@farmcam/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useOpenBillingPortal } from '../../../components/billing/api/create-portal-session.ts';
import { CancelPauseModal } from '../../../components/billing/cancel-pause-modal.tsx';
import { PauseSubscriptionModal } from '../../../components/billing/pause-subscription-modal.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { plansQueryKey } from '../api/get-plans.ts';
import styles from './camera-card-actions.module.css';

/** docs/requirements.md#states: after a pause or cancel succeeds the list is reloaded after 1 second. */
const reloadDelayMs = 1000;

/**
 * A card's billing actions (docs/requirements.md#screens, #states), each offered as the server
 * says (decision 170): Pay now on an overdue card (`canPayNow`; the billing portal in a new tab),
 * Pause subscription (`canPause`; otherwise its `pauseReason` in place of the button), Cancel
 * Scheduled Pause, or change its date (`canCancelPause`).
 */
export function CameraBillingActions({ camera }: { camera: Camera }) {
  const queryClient = useQueryClient();
  const [openModal, setOpenModal] = useState<'pause' | 'cancel-pause' | null>(null);
  const billingId = camera.STRIPE_CUSTOMER_ID;
  if (!billingId) return null;
  const name = camera.displayName;
  const about = <span className="visually-hidden"> for {name}</span>;
  const reloadSoon = () =>
    setTimeout(
      () => void queryClient.invalidateQueries({ queryKey: plansQueryKey }),
      reloadDelayMs,
    );
  const pause = camera.statusData.subscriptionStatus.pause;

  return (
    <>
      {camera.canPayNow && <PayNowButton billingId={billingId}>{about}</PayNowButton>}
      {camera.canPause && (
        <Button variant="secondary" onClick={() => setOpenModal('pause')}>
          Pause subscription{about}
        </Button>
      )}
      {!camera.canPause && camera.pauseReason && (
        <p className={styles.note}>{camera.pauseReason}</p>
      )}
      {camera.canCancelPause && (
        <Button variant="secondary" onClick={() => setOpenModal('cancel-pause')}>
          Cancel Scheduled Pause{about}
        </Button>
      )}
      {/* Mounted only while open: a dashboard of a thousand cards keeps no dialogs it is not showing. */}
      {openModal === 'pause' && (
        <PauseSubscriptionModal
          billingCustomerId={billingId}
          cameraName={name}
          isOpen
          onClose={() => setOpenModal(null)}
          onPaused={reloadSoon}
        />
      )}
      {openModal === 'cancel-pause' && (
        <CancelPauseModal
          billingCustomerId={billingId}
          pause={pause?.end_date ? { startDate: pause.start_date, endDate: pause.end_date } : null}
          isOpen
          onClose={() => setOpenModal(null)}
          onCanceled={reloadSoon}
          onChangeDate={() => setOpenModal('pause')}
        />
      )}
    </>
  );
}

/**
 * Pay now opens the billing portal (a new tab): the call's state lives only on the cards that
 * offer it, so a dashboard of a thousand cards keeps no thousand idle calls (decision 177).
 */
function PayNowButton({ billingId, children }: { billingId: string; children: ReactNode }) {
  const portal = useOpenBillingPortal();
  return (
    <Button onClick={() => portal.open(billingId, 'pay')} isLoading={portal.isPending}>
      Pay now{children}
    </Button>
  );
}

/** Whether the server offers the card a billing action, or a reason in place of one. */
export const hasBillingAction = (camera: Camera) =>
  camera.canPayNow || camera.canPause || camera.pauseReason !== null || camera.canCancelPause;
