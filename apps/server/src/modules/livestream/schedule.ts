/**
 * Recording schedules: the schedule text of the configure-rtsp call, and the hourly slots it
 * means in UK time. A slot is a wall-clock hour on a UK date ("2026-03-29T09"): when clocks go
 * forward the missing hour has no slot; when they go back the repeated hour is one slot, recorded
 * at its first occurrence (docs/decisions/041).
 */
import { scheduleDays, type ScheduleDay } from '@farmcam/contract';
import { formatScheduleText, ukTimeZone, ukWallClockOf } from '@farmcam/contract/rules';
import { AppError } from '../../errors.ts';

export const scheduleTimeZone = ukTimeZone;

export interface Schedule {
  /** Sorted, unique, 0-23. */
  hours: number[];
  /** Monday first, unique. */
  days: ScheduleDay[];
}

const dayAbbreviations = new Map<string, ScheduleDay>(
  scheduleDays.flatMap((day) => [
    [day, day],
    [day.slice(0, 3), day],
  ]),
);

function invalidSchedule(detail: string): AppError {
  return new AppError(
    'VALIDATION_FAILED',
    `The recording schedule could not be read: ${detail}. Write it like hours=9,10,11;days=MONDAY,TUESDAY.`,
  );
}

function expandList<T>(text: string, parseItem: (item: string) => number, values: readonly T[]) {
  const picked = new Set<number>();
  for (const rawItem of text.split(',')) {
    const item = rawItem.trim();
    if (item === '') continue;
    const range = item.split('-').map((part) => part.trim());
    if (range.length > 2) throw invalidSchedule(`"${item}" is not a value or a range`);
    const first = parseItem(range[0]!);
    const last = range.length === 2 ? parseItem(range[1]!) : first;
    if (last < first) throw invalidSchedule(`the range "${item}" runs backwards`);
    for (let index = first; index <= last; index += 1) picked.add(index);
  }
  return [...picked].sort((a, b) => a - b).map((index) => values[index]!);
}

const hourValues = Array.from({ length: 24 }, (_, hour) => hour);

function parseHour(item: string): number {
  if (item === '') throw invalidSchedule('a range is missing one of its hours (write 9-17)');
  if (!/^\d{1,2}$/.test(item)) throw invalidSchedule(`"${item}" is not an hour`);
  const hour = Number(item);
  if (hour > 23) throw invalidSchedule(`hour ${hour} is not between 0 and 23`);
  return hour;
}

function parseDay(item: string): number {
  if (item === '') throw invalidSchedule('a range is missing one of its days (write MON-FRI)');
  const day = dayAbbreviations.get(item.toUpperCase());
  if (!day) throw invalidSchedule(`"${item}" is not a day of the week`);
  return scheduleDays.indexOf(day);
}

/**
 * Reads the schedule text: `hours=<list>;days=<list>`, parts in any order, case and spaces free,
 * lists of values or ranges (`9-17`, `MON-FRI`), full or three-letter day names. Either list may be
 * empty (docs/requirements.md#input-rules: hours and days have no minimum). Throws VALIDATION_FAILED with what is wrong.
 */
export function parseSchedule(text: string): Schedule {
  const parts = new Map<string, string>();
  for (const rawPart of text.split(';')) {
    if (rawPart.trim() === '') continue;
    const separator = rawPart.indexOf('=');
    if (separator < 0) throw invalidSchedule(`"${rawPart.trim()}" has no "="`);
    const key = rawPart.slice(0, separator).trim().toLowerCase();
    if (key !== 'hours' && key !== 'days') throw invalidSchedule(`unknown part "${key}"`);
    if (parts.has(key)) throw invalidSchedule(`"${key}" is given twice`);
    parts.set(key, rawPart.slice(separator + 1));
  }
  if (!parts.has('hours') || !parts.has('days')) throw invalidSchedule('it needs hours and days');
  return {
    hours: expandList(parts.get('hours')!, parseHour, hourValues),
    days: expandList(parts.get('days')!, parseDay, scheduleDays),
  };
}

/** The canonical text of a schedule: every hour and full day name listed (the shared rule). */
export const formatSchedule = (schedule: Schedule): string =>
  formatScheduleText(schedule.hours, schedule.days);

/** Normalises stored arrays (order, duplicates) into a schedule. */
export function toSchedule(hours: readonly number[], days: readonly string[]): Schedule {
  return {
    hours: [...new Set(hours)].filter((hour) => hour >= 0 && hour <= 23).sort((a, b) => a - b),
    days: scheduleDays.filter((day) => days.includes(day)),
  };
}

export interface UkWallClock {
  /** YYYY-MM-DD in the UK. */
  date: string;
  hour: number;
  minute: number;
  day: ScheduleDay;
}

/** What a UK wall clock shows at this instant (the shared rules' UK clock, decision 170). */
export function ukWallClock(instant: Date): UkWallClock {
  const clock = ukWallClockOf(instant);
  return {
    date: clock.date,
    hour: clock.hour,
    minute: clock.minute,
    day: clock.weekday.toUpperCase() as ScheduleDay,
  };
}

/** The slot name of the UK wall-clock hour at this instant, e.g. "2026-03-10T09". */
export function slotKeyAt(instant: Date): string {
  const clock = ukWallClock(instant);
  return `${clock.date}T${String(clock.hour).padStart(2, '0')}`;
}

export function isScheduledAt(schedule: Schedule, instant: Date): boolean {
  const clock = ukWallClock(instant);
  return schedule.hours.includes(clock.hour) && schedule.days.includes(clock.day);
}

/**
 * The slot due at this instant: the UK hour it falls in, when the schedule has that hour on that
 * day. Recordings run once per slot, any time within the hour (so a worker that was down at the
 * top of the hour catches up).
 */
export function dueSlot(schedule: Schedule, instant: Date): string | null {
  return isScheduledAt(schedule, instant) ? slotKeyAt(instant) : null;
}

const hourMs = 3_600_000;

/**
 * The start of the next scheduled slot strictly after `after`. UK offsets are whole hours, so
 * every UTC hour boundary is a UK hour boundary; the repeated autumn hour counts once.
 */
export function nextSlotStart(schedule: Schedule, after: Date): Date | null {
  if (schedule.hours.length === 0 || schedule.days.length === 0) return null;
  const seen = new Set<string>([slotKeyAt(after)]);
  let candidate = Math.floor(after.getTime() / hourMs) * hourMs + hourMs;
  // Eight days of hours always reach every weekday and hour.
  for (let step = 0; step < 24 * 8 + 2; step += 1, candidate += hourMs) {
    const instant = new Date(candidate);
    const key = slotKeyAt(instant);
    if (seen.has(key)) continue;
    seen.add(key);
    if (isScheduledAt(schedule, instant)) return instant;
  }
  return null;
}

/** Every slot start in [from, to), in order; for tests and the monthly data estimate. */
export function slotStartsBetween(schedule: Schedule, from: Date, to: Date): Date[] {
  const starts: Date[] = [];
  const seen = new Set<string>();
  for (
    let candidate = Math.ceil(from.getTime() / hourMs) * hourMs;
    candidate < to.getTime();
    candidate += hourMs
  ) {
    const instant = new Date(candidate);
    const key = slotKeyAt(instant);
    if (seen.has(key)) continue;
    seen.add(key);
    if (isScheduledAt(schedule, instant)) starts.push(instant);
  }
  return starts;
}

/**
 * When the next recording happens: within the current hour when it is scheduled and its slot not
 * recorded yet (the scheduler catches it up at its next minute, decision 041), else the next slot.
 */
export function nextRecordingAfter(
  schedule: Schedule,
  now: Date,
  hasCurrentSlot: boolean,
): Date | null {
  if (!hasCurrentSlot && isScheduledAt(schedule, now)) {
    return new Date(Math.floor(now.getTime() / 60_000) * 60_000 + 60_000);
  }
  return nextSlotStart(schedule, now);
}
