/**
 * Pro-rata arithmetic for plan changes, the way Stripe computes `always_invoice` prorations:
 * credit for the unused part of the old price, a charge for the same part of the new price, both
 * by the second. Changing the billing interval starts a new period now: the whole new price is
 * charged and the unused old time credited.
 */
import type { BillingInterval } from '@farmcam/db/schema';

export interface ProrationPrice {
  name: string;
  unitAmount: number;
  interval: BillingInterval;
}

export interface ProrationInput {
  from: ProrationPrice;
  to: ProrationPrice;
  periodStart: Date;
  periodEnd: Date;
  now: Date;
}

export interface ProrationLine {
  description: string;
  amount: number;
  periodStart: Date;
  periodEnd: Date;
}

export interface ProrationResult {
  lines: ProrationLine[];
  /** Sum of the lines: positive is owed now, negative a credit. */
  total: number;
  /** When the interval changes the period restarts now. */
  newPeriod: { start: Date; end: Date } | null;
}

const dayFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

const dayMonthFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  timeZone: 'UTC',
});

/** "from 15 Jan to 1 Feb 2027" (both years when they differ), Stripe's wording for a period. */
export function describePeriod(start: Date, end: Date): string {
  const sameYear = start.getUTCFullYear() === end.getUTCFullYear();
  return `from ${(sameYear ? dayMonthFormat : dayFormat).format(start)} to ${dayFormat.format(end)}`;
}

/**
 * Adds calendar months in UTC, keeping the day (clamped to the month's last day, as Stripe) and
 * the time of day. A renewal counts from the subscription's anchor (billing-cycle-anchor.ts), not
 * from the last period end, so a clamped day does not stick.
 */
export function addMonths(date: Date, months: number): Date {
  const target = new Date(
    Date.UTC(
      date.getUTCFullYear(),
      date.getUTCMonth() + months,
      1,
      date.getUTCHours(),
      date.getUTCMinutes(),
      date.getUTCSeconds(),
      date.getUTCMilliseconds(),
    ),
  );
  const lastDay = new Date(
    Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0),
  ).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return target;
}

export function addInterval(date: Date, interval: BillingInterval): Date {
  return addMonths(date, interval === 'year' ? 12 : 1);
}

export function calculateProration(input: ProrationInput): ProrationResult {
  const { from, to, periodStart, periodEnd, now } = input;
  const length = periodEnd.getTime() - periodStart.getTime();
  const remaining = Math.min(Math.max(periodEnd.getTime() - now.getTime(), 0), length);
  const unusedShare = length > 0 ? remaining / length : 0;
  const credit = -Math.round(from.unitAmount * unusedShare);
  const unused = {
    description: `Unused time on ${from.name} ${describePeriod(now, periodEnd)}`,
    amount: credit,
    periodStart: now,
    periodEnd,
  };

  if (from.interval !== to.interval) {
    const end = addInterval(now, to.interval);
    const lines = [
      unused,
      {
        description: `${to.name} ${describePeriod(now, end)}`,
        amount: to.unitAmount,
        periodStart: now,
        periodEnd: end,
      },
    ].filter((line) => line.amount !== 0);
    return {
      lines,
      total: lines.reduce((sum, line) => sum + line.amount, 0),
      newPeriod: { start: now, end },
    };
  }

  const charge = Math.round(to.unitAmount * unusedShare);
  const lines = [
    unused,
    {
      description: `Remaining time on ${to.name} ${describePeriod(now, periodEnd)}`,
      amount: charge,
      periodStart: now,
      periodEnd,
    },
  ].filter((line) => line.amount !== 0);
  return { lines, total: credit + charge, newPeriod: null };
}
