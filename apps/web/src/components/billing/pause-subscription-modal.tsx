import { useState } from 'react';
import { Button } from '../ui/button.tsx';
import { Modal } from '../ui/modal.tsx';
import { Loader } from '../ui/spinner.tsx';
import { errorMessage, toastFailure } from '../../lib/api-client.ts';
import { formatDay } from '@farmcam/contract/rules';
import { toast } from '../../lib/toast.tsx';
import { usePauseDates } from './api/pause-dates.ts';
import { usePauseSubscription } from './api/pause-subscription.ts';
import styles from './billing-modals.module.css';

export const pausedMessage = 'Subscription paused successfully';
export const pauseFailedMessage = 'Failed to pause subscription. Try again later.';

export interface PauseSubscriptionModalProps {
  /** The camera's billing customer id (the spec's stripeCustomerId). */
  billingCustomerId: string;
  /** Named in the body (the title is the spec's "Pause subscription"), e.g. the nickname. */
  cameraName?: string | null;
  isOpen: boolean;
  onClose: () => void;
  /** After a successful pause (the modal has closed itself). */
  onPaused: () => void;
}

/**
 * Pause subscription (docs/requirements.md#screens, #states, #input-rules): pick the date the plan restarts, click Pause, confirm with
 * the danger button. Pause is disabled until a date is chosen. Also moves a scheduled pause.
 */
export function PauseSubscriptionModal(props: PauseSubscriptionModalProps) {
  return (
    <Modal isOpen={props.isOpen} onClose={props.onClose} title="Pause subscription">
      {/* Mounted only while open, so each opening starts from a fresh choice. */}
      <PauseForm {...props} />
    </Modal>
  );
}

function PauseForm({
  billingCustomerId,
  cameraName,
  onClose,
  onPaused,
}: PauseSubscriptionModalProps) {
  const pauseDates = usePauseDates(billingCustomerId, true);
  const pause = usePauseSubscription();
  const [chosenDate, setResumeDate] = useState<string | null>(null);
  const [isConfirming, setIsConfirming] = useState(false);

  if (pauseDates.isPending) return <Loader label="Loading pause dates…" />;
  if (pauseDates.isError) {
    return (
      <p role="alert" className={styles.error}>
        {errorMessage(pauseDates.error, 'Could not load the pause dates. Please try again.')}
      </p>
    );
  }
  const options = pauseDates.data;
  const current = options.current_pause;
  // Changing a pause's date starts from the date it has now, when that is still offered.
  const resumeDate =
    chosenDate ??
    (current && options.resume_dates.includes(current.end_date) ? current.end_date : '');
  const forCamera = cameraName ? (
    <p>
      Camera: <strong>{cameraName}</strong>
    </p>
  ) : null;

  const submit = () =>
    pause.mutate(
      { customer_id: billingCustomerId, resume_date: resumeDate },
      {
        onSuccess: () => {
          toast.success(pausedMessage);
          onClose();
          onPaused();
        },
        onError: (error) => {
          toastFailure(error, pauseFailedMessage);
          onClose();
        },
      },
    );

  if (!options.pause_from || options.resume_dates.length === 0) {
    return (
      <>
        {forCamera}
        <p>{options.message}</p>
        <div className={styles.actions}>
          <Button variant="secondary" onClick={onClose}>
            Close
          </Button>
        </div>
      </>
    );
  }

  if (isConfirming) {
    return (
      <>
        <p>
          Pause this plan from <strong>{formatDay(options.pause_from)}</strong> until{' '}
          <strong>{formatDay(resumeDate)}</strong>? The camera will have no data while paused and
          nothing is charged for those months.
        </p>
        <div className={styles.actions}>
          <Button
            variant="secondary"
            onClick={() => setIsConfirming(false)}
            disabled={pause.isPending}
          >
            Back
          </Button>
          <Button variant="danger" onClick={submit} isLoading={pause.isPending}>
            Yes, pause subscription
          </Button>
        </div>
      </>
    );
  }

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (resumeDate) setIsConfirming(true);
      }}
    >
      {forCamera}
      <p>{options.message}</p>
      {current && (
        <p className={styles.note}>
          {current.state === 'paused' ? 'Currently paused' : 'Pause scheduled'} from{' '}
          {formatDay(current.start_date)} until {formatDay(current.end_date)}.
        </p>
      )}
      <fieldset className={styles.dates}>
        <legend>Reactivation date</legend>
        {options.resume_dates.map((date) => (
          <label key={date} className={styles.dateOption}>
            <input
              type="radio"
              name="resume-date"
              value={date}
              checked={resumeDate === date}
              onChange={() => setResumeDate(date)}
            />
            {formatDay(date)}
          </label>
        ))}
      </fieldset>
      <div className={styles.actions}>
        <Button variant="secondary" onClick={onClose}>
          Cancel
        </Button>
        <Button type="submit" variant="danger" disabled={!resumeDate}>
          Pause
        </Button>
      </div>
    </form>
  );
}
