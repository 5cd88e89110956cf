/**
 * Time as a farmer in the UK reads it, whatever the machine's own time zone (decision 170): the
 * one place that names Europe/London for formatting. The server's "today" for pauses and plans
 * (`businessDay`), its e-mails, clip captions and schedule slots, and the browser's screens all
 * take their UK days, clocks and dates from here. Zod-free: `@farmcam/contract/rules` re-exports
 * it for the web.
 */

/** Where the business's calendar days begin and end: the farmers are in the UK. */
export const ukTimeZone = 'Europe/London';

type UkFormatOptions = Omit<Intl.DateTimeFormatOptions, 'timeZone'>;

// One formatter per set of options: building an Intl formatter per call is costly.
const formatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter of UK time with these options (en-GB unless a locale is given). */
export function ukFormatter(options: UkFormatOptions, locale = 'en-GB'): Intl.DateTimeFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(locale, { ...options, timeZone: ukTimeZone });
    formatters.set(key, formatter);
  }
  return formatter;
}

const instantOf = (value: string | Date): Date =>
  typeof value === 'string' ? new Date(value) : value;

/** The parts a UK formatter writes for an instant, by type ("hour", "weekday", …). */
export function ukPartsOf(
  value: string | Date,
  options: UkFormatOptions,
): Partial<Record<Intl.DateTimeFormatPartTypes, string>> {
  return Object.fromEntries(
    ukFormatter(options)
      .formatToParts(instantOf(value))
      .map((part) => [part.type, part.value]),
  );
}

const named = (options: UkFormatOptions, locale?: string) => (value: string | Date) =>
  ukFormatter(options, locale).format(instantOf(value));

/**
 * The UK calendar day (YYYY-MM-DD) of an instant: the one meaning of "today" for pauses and plan
 * rules (docs/decisions/081). en-CA writes a date as YYYY-MM-DD.
 */
export const ukDayOf = named({ year: 'numeric', month: '2-digit', day: '2-digit' }, 'en-CA');

/** "07:12". */
export const formatUkTime = named({ hour: '2-digit', minute: '2-digit' });

/** "24 Nov 2026, 13:16". */
export const formatUkDateTime = named({
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** "28 Nov, 07:12". */
export const formatUkDayMonthTime = named({
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
});

/** "Sat 28 Nov, 07:12". */
export const formatUkWeekdayDateTime = named({
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
});

/** "28 Nov". */
export const formatUkDayMonth = named({ day: 'numeric', month: 'short' });

/** "28 Nov 2026". */
export const formatUkDate = named({ day: 'numeric', month: 'short', year: 'numeric' });

/** "Mon 1 Dec". */
export const formatUkWeekdayDay = named({ weekday: 'short', day: 'numeric', month: 'short' });

const longDay = named({ weekday: 'long', day: 'numeric', month: 'long' });

/** "Tuesday 1 December". */
export const formatUkLongDay = (value: string | Date): string => longDay(value).replace(',', '');

/** "28/11/2026, 13:18:00": every figure, for development pages that list messages. */
export const formatUkTimestamp = named({
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

export interface UkWallClock {
  /** YYYY-MM-DD in the UK. */
  date: string;
  hour: number;
  minute: number;
  /** The day of the week in English, e.g. "Monday". */
  weekday: string;
}

/** What a UK wall clock shows at this instant (hours 0 to 23). */
export function ukWallClockOf(value: string | Date): UkWallClock {
  const parts = ukPartsOf(value, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    weekday: 'long',
    hourCycle: 'h23',
  });
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: String(parts.weekday),
  };
}
