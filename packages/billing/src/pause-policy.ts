/**
 * Is a plan paused: the one rule, for the billing service, the billing providers' mirrors, the
 * dashboard cards and the livestream eligibility alike (docs/decisions/081). Pause dates are UK
 * calendar days (`ukDayOf`, the server's `businessDay`): a pause runs from its start date up to
 * the day before it resumes.
 */
import { ukDayOf } from '@farmcam/contract/rules';

export interface PauseFields {
  status: string;
  /** YYYY-MM-DD */
  pauseStartsOn: string | null;
  /** YYYY-MM-DD */
  pauseResumesOn: string | null;
}

/**
 * Where a subscription's pause stands on `today` (a UK day): 'scheduled' before it starts,
 * 'paused' while it runs, null when there is none (or it is over). Derived from the stored dates
 * and the day, so it is right even before the job has moved the stored status.
 */
export function pauseStateOn(
  subscription: PauseFields,
  today: string,
): 'scheduled' | 'paused' | null {
  const { pauseStartsOn, pauseResumesOn } = subscription;
  if (!pauseStartsOn || !pauseResumesOn) return subscription.status === 'paused' ? 'paused' : null;
  if (today >= pauseResumesOn) return null;
  if (['canceled', 'incomplete'].includes(subscription.status)) return null;
  return today >= pauseStartsOn || subscription.status === 'paused' ? 'paused' : 'scheduled';
}

/**
 * Whether a billing period starting at `instant` falls in the pause (its renewal is not
 * invoiced): the same rule on the UK day the period starts, by the pause dates alone, since the
 * stored status tells how the pause stands today, not on that day (docs/decisions/086).
 */
export function isPeriodPaused(
  subscription: Pick<PauseFields, 'pauseStartsOn' | 'pauseResumesOn'>,
  instant: Date,
): boolean {
  const { pauseStartsOn, pauseResumesOn } = subscription;
  return (
    pauseStateOn({ status: 'active', pauseStartsOn, pauseResumesOn }, ukDayOf(instant)) === 'paused'
  );
}
