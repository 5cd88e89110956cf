/**
 * Calendar arithmetic on business time. Days are UTC calendar days written YYYY-MM-DD, the way
 * daily usage and pause dates are stored; plans reset on the 1st of each month (docs/requirements.md#what-it-does).
 */
import {
  dayMs,
  isoDay,
  nextUsageMonthStart,
  ukDayOf,
  ukTimeZone,
  usageMonthOf,
  usageMonthStart,
} from '@farmcam/contract/rules';

export { dayMs, isoDay };

/** Where the business's calendar days begin and end: the farmers are in the UK. */
export const businessTimeZone = ukTimeZone;

/**
 * Today's date (YYYY-MM-DD) in the UK: the one meaning of "today" for pauses and plan rules
 * (is the plan paused, can it be switched, before the 25th) everywhere (docs/decisions/081);
 * the shared rules' UK day, which the browser's screens use too (decision 170).
 */
export function businessDay(instant: Date): string {
  return ukDayOf(instant);
}

/** YYYY-MM of an instant (UTC): the usage month, the shared rule the browser's chart uses too. */
export const isoMonth = usageMonthOf;

/** Midnight UTC starting the usage month of `instant`. */
export const monthStart = usageMonthStart;

/** Midnight UTC starting the next month (the next plan reset). */
export const nextMonthStart = nextUsageMonthStart;

/** Epoch seconds of midnight UTC starting a YYYY-MM-DD day. */
export const epochSecondsOfDay = (day: string): number => Date.parse(`${day}T00:00:00Z`) / 1000;

/** Every day from `from` to `to` inclusive, YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (
    let time = Date.parse(`${from}T00:00:00Z`);
    time <= Date.parse(`${to}T00:00:00Z`);
    time += dayMs
  ) {
    days.push(new Date(time).toISOString().slice(0, 10));
  }
  return days;
}

/** The day before a YYYY-MM-DD day. */
export const previousDay = (day: string): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) - dayMs).toISOString().slice(0, 10);

/** The day after a YYYY-MM-DD day. */
export const nextDay = (day: string): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + dayMs).toISOString().slice(0, 10);

/**
 * The instant a UK day (YYYY-MM-DD) begins: midnight in London, which is 23:00 UTC the evening
 * before during British Summer Time. Clocks change at 01:00 UTC, so midnight is never ambiguous.
 */
export function businessDayStart(day: string): Date {
  const utcMidnight = Date.parse(`${day}T00:00:00Z`);
  const hourBefore = new Date(utcMidnight - 3600_000);
  return businessDay(hourBefore) === day ? hourBefore : new Date(utcMidnight);
}

/** When access "until" a last UK day ends: the UK midnight after that day. */
export const endOfBusinessDay = (lastDay: string): Date => businessDayStart(nextDay(lastDay));

/** The last UK day of something that ends at `end` (the inverse of endOfBusinessDay). */
export const lastBusinessDayBefore = (end: Date): string =>
  businessDay(new Date(end.getTime() - 1));
