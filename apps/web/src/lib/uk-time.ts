/**
 * Times as a farmer in the UK reads them, whatever the browser's own time zone (docs/decisions/093):
 * the Activity and Team screens show UK time, as the server counts UK days.
 */
const ukTimeZone = 'Europe/London';

const dateTimeFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: ukTimeZone,
});

// en-CA writes a date as YYYY-MM-DD, the form of a date input and of the API's days.
const isoDayFormat = new Intl.DateTimeFormat('en-CA', {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  timeZone: ukTimeZone,
});

/** "24 Nov 2026, 13:16", in UK time. */
export const formatUkDateTime = (instant: string | Date): string =>
  dateTimeFormat.format(new Date(instant));

/** The UK calendar day (YYYY-MM-DD) of an instant. */
export const ukDayOf = (instant: string | Date): string => isoDayFormat.format(new Date(instant));

const isoDayPattern = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The last UK day of an access that ends at `accessUntil`: a day as given, or the day before the
 * instant it ends (access ends at the UK midnight after its last day).
 */
export function lastUkDayOf(accessUntil: string): string {
  if (isoDayPattern.test(accessUntil)) return accessUntil;
  return ukDayOf(new Date(new Date(accessUntil).getTime() - 1));
}
