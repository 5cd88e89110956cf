/**
 * The dunning policy: every number of it, in one place (docs/decisions/025). Time counts from
 * the first failed attempt at a renewal (the subscription's `pastDueSince`).
 *
 * - Attempt 1 is the renewal charge at the period start; automatic retries follow on the days of
 *   `retryDays` (Stripe's custom retry schedule), each failure e-mailing the customer.
 * - From `overdueAfterDays` the subscription shows as overdue (retries go on).
 * - At `cancelAfterDays` it is canceled and its open invoice marked uncollectible.
 * - `terminateSimAfterCancelDays` after that, the SIM is terminated unless the camera was renewed.
 */
import { dayMs } from '@farmcam/contract/rules';

export const dunningPolicy = {
  retryDays: [3, 5, 7, 14, 21],
  overdueAfterDays: 7,
  cancelAfterDays: 30,
  terminateSimAfterCancelDays: 14,
} as const;

const daysAfter = (instant: Date, days: number) => new Date(instant.getTime() + days * dayMs);

/** When the next automatic retry after an attempt at `attemptAt` is due, or null: no more. */
export function nextRetryAt(firstFailureAt: Date, attemptAt: Date): Date | null {
  for (const days of dunningPolicy.retryDays) {
    const retryAt = daysAfter(firstFailureAt, days);
    if (retryAt > attemptAt) return retryAt;
  }
  return null;
}

/** How many automatic attempts (the first charge included) are made by `instant`. */
export function attemptsMadeBy(firstFailureAt: Date, instant: Date): number {
  return (
    1 + dunningPolicy.retryDays.filter((days) => daysAfter(firstFailureAt, days) <= instant).length
  );
}

export const overdueAt = (firstFailureAt: Date) =>
  daysAfter(firstFailureAt, dunningPolicy.overdueAfterDays);

export const cancelAt = (firstFailureAt: Date) =>
  daysAfter(firstFailureAt, dunningPolicy.cancelAfterDays);

export const simTerminationAt = (canceledAt: Date) =>
  daysAfter(canceledAt, dunningPolicy.terminateSimAfterCancelDays);
