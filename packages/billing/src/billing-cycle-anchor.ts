/**
 * Billing periods on the subscription's billing cycle anchor, as Stripe counts them
 * (`billing_cycle_anchor`, docs/decisions/108): the anchor sets the day of the month (and for
 * annual plans the month) and the time of day of every renewal. Each period end is counted from
 * the anchor, never from the last renewal, so the day clamped to a short month comes back: a
 * monthly plan anchored on 31 January renews on 28 February (29 in a leap year), 31 March and 30
 * April; an annual plan anchored on 29 February 2028 renews on 28 February 2029 and on
 * 29 February 2032.
 *
 * The anchor is kept on the subscription. It is set when the subscription starts (a checkout),
 * stays through renewals, pauses (a paused period still runs on the anchor, it is only not
 * invoiced), unpaid periods and plan changes on the same interval, and moves to the moment of the
 * change when a plan change moves to another interval (the period restarts then, as Stripe resets
 * the anchor).
 */
import type { BillingInterval } from '@farmcam/db/schema';
import { addMonths } from './proration.ts';

const monthsIn = (interval: BillingInterval) => (interval === 'year' ? 12 : 1);

/** Calendar months from `from` to `to` by their UTC year and month alone (the day is ignored). */
function calendarMonthsBetween(from: Date, to: Date): number {
  return (
    (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth())
  );
}

/** The anchor's date `intervals` billing intervals on (0 is the anchor itself). */
export function anchorDate(anchor: Date, interval: BillingInterval, intervals: number): Date {
  return addMonths(anchor, intervals * monthsIn(interval));
}

/**
 * The end of the period that starts at `start`: the anchor's date in the calendar interval after
 * the one `start` falls in. A start on the anchor (every period since the anchor was kept) gives
 * exactly one interval. A start off the anchor (a subscription whose renewals drifted before the
 * anchor was kept, docs/decisions/108) gives one period of at least an interval that ends on the
 * anchor's day, so it is back in step after one renewal and never charged for a short period.
 */
export function periodEndOnAnchor(anchor: Date, start: Date, interval: BillingInterval): Date {
  const intervalsSoFar = Math.floor(calendarMonthsBetween(anchor, start) / monthsIn(interval));
  let intervals = intervalsSoFar + 1;
  let end = anchorDate(anchor, interval, intervals);
  while (end <= start) {
    intervals += 1;
    end = anchorDate(anchor, interval, intervals);
  }
  return end;
}
