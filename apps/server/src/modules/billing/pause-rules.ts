/**
 * Pause rules (docs/decisions/021): plans run from the 1st of a month, so a pause starts on a
 * 1st. A request before the 25th (UK time) can start next month; from the 25th on, billing for
 * next month is already under way, so it starts the month after. The plan restarts on a 1st the
 * customer picks from the following months.
 */

import { pauseCutOffDay } from '@farmcam/contract/rules';
import { businessDay } from '../../lib/business-calendar.ts';
import { pauseStateOn, type PauseFields } from '@farmcam/billing/pause-policy';

// The pause state and the UK day live below the modules, where the billing providers can use them.
export { businessDay, pauseStateOn, type PauseFields };

/** How many restart dates are offered after the pause starts (1 to 6 months of pause). */
export const resumeChoices = 6;
/** The last day of a month a request can start next month (the shared cut-off's eve). */
export const lastRequestDay = pauseCutOffDay - 1;
function parseDay(day: string): { year: number; month: number; date: number } {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return { year, month, date };
}

/** The 1st of the month `months` after the month of `day`, as YYYY-MM-DD. */
export function firstOfMonthAfter(day: string, months: number): string {
  const { year, month } = parseDay(day);
  const target = new Date(Date.UTC(year, month - 1 + months, 1));
  return target.toISOString().slice(0, 10);
}

/** The earliest 1st a pause (or a restart) asked for on `today` can take effect. */
export function earliestMonthStart(today: string): string {
  return firstOfMonthAfter(today, parseDay(today).date <= lastRequestDay ? 1 : 2);
}

export interface PauseWindow {
  pauseFrom: string;
  resumeDates: string[];
}

/** The pause a request made on `today` can have. */
export function pauseWindow(today: string): PauseWindow {
  return pauseWindowFrom(earliestMonthStart(today));
}

/** A pause starting on `pauseFrom` (a 1st) and the restart dates it can have. */
export function pauseWindowFrom(pauseFrom: string): PauseWindow {
  return {
    pauseFrom,
    resumeDates: Array.from({ length: resumeChoices }, (_, index) =>
      firstOfMonthAfter(pauseFrom, index + 1),
    ),
  };
}

/**
 * Why a subscription cannot be paused at all, or null when it can (docs/decisions/014): the one
 * rule behind the pause options, the pause itself, the dashboard card's `canPause` and Manage
 * plan's `can_pause` (decision 170). No subscription, or one never paid for, has nothing to pause.
 */
export function pauseRefusal(
  subscription: { status: string; interval: string } | null,
): string | null {
  if (!subscription || subscription.status === 'canceled' || subscription.status === 'incomplete') {
    return 'This camera has no active subscription to pause.';
  }
  if (subscription.status === 'past_due' || subscription.status === 'overdue') {
    return 'Please pay the overdue invoice before pausing this plan.';
  }
  if (subscription.interval !== 'month') {
    return 'Annual plans are paid for the year ahead, so they cannot be paused.';
  }
  return null;
}
