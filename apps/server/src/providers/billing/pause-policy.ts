/**
 * Is a plan paused: the one rule, for the billing service, the billing providers' mirrors, the
 * dashboard cards and the livestream eligibility alike (docs/decisions/081). Pause dates are UK
 * calendar days (`businessDay`): a pause runs from its start date up to the day before it resumes.
 */

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
