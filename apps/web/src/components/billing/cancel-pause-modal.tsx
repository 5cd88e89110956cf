import { toastFailure } from '../../lib/api-client.ts';
import { Button } from '../ui/button.tsx';
import { Modal } from '../ui/modal.tsx';
import { formatDay } from '@farmcam/contract/rules';
import { toast } from '../../lib/toast.tsx';
import { useCancelPause } from './api/cancel-pause.ts';
import styles from './billing-modals.module.css';

export const pauseCanceledMessage = 'Pause canceled successfully';
export const cancelPauseFailedMessage = 'Failed to cancel pause';

export interface CancelPauseModalProps {
  billingCustomerId: string;
  /** The scheduled pause (YYYY-MM-DD), when known. */
  pause: { startDate: string; endDate: string } | null;
  isOpen: boolean;
  onClose: () => void;
  /** After the pause was canceled (the modal has closed itself). */
  onCanceled: () => void;
  /** "Change date": the caller closes this and opens the pause modal again. */
  onChangeDate: () => void;
}

/** Cancel Scheduled Pause (docs/requirements.md#screens, #states): cancel it with the danger button, or change its date. */
export function CancelPauseModal({
  billingCustomerId,
  pause,
  isOpen,
  onClose,
  onCanceled,
  onChangeDate,
}: CancelPauseModalProps) {
  const cancel = useCancelPause();
  const submit = () =>
    cancel.mutate(
      { customer_id: billingCustomerId },
      {
        onSuccess: () => {
          toast.success(pauseCanceledMessage);
          onClose();
          onCanceled();
        },
        onError: (error) => {
          toastFailure(error, cancelPauseFailedMessage);
          onClose();
        },
      },
    );

  return (
    <Modal isOpen={isOpen} onClose={onClose} title="Cancel Scheduled Pause">
      <p>
        {pause
          ? `This plan is scheduled to pause from ${formatDay(pause.startDate)} until ${formatDay(pause.endDate)}.`
          : 'This plan has a pause scheduled.'}{' '}
        Cancel the pause to keep the camera streaming, or change when the plan restarts.
      </p>
      <div className={styles.actions}>
        <Button variant="secondary" onClick={onChangeDate} disabled={cancel.isPending}>
          Change date
        </Button>
        <Button variant="danger" onClick={submit} isLoading={cancel.isPending}>
          Cancel pause
        </Button>
      </div>
    </Modal>
  );
}
