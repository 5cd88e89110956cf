/** Quiet hours in UK time (decision 122): when push and SMS wait, unless the alert is urgent. */
import { ukWallClockOf } from '@farmcam/contract/rules';

/** Minutes since UK midnight of an instant. */
export function ukMinuteOfDay(instant: Date): number {
  const clock = ukWallClockOf(instant);
  return clock.hour * 60 + clock.minute;
}

export interface QuietWindow {
  startMinute: number;
  endMinute: number;
}

/** Start inclusive, end exclusive; a start after the end spans midnight (22:00–07:00). */
export function isQuiet(instant: Date, window: QuietWindow | null): boolean {
  if (!window || window.startMinute === window.endMinute) return false;
  const minute = ukMinuteOfDay(instant);
  return window.startMinute < window.endMinute
    ? minute >= window.startMinute && minute < window.endMinute
    : minute >= window.startMinute || minute < window.endMinute;
}

/**
 * The first whole minute at or after `instant` that is not quiet: walked a minute at a time, so
 * the clocks going forward or back (a 01:30 that happens twice or never) need no special case.
 */
export function quietEndsAt(instant: Date, window: QuietWindow | null): Date {
  let at = new Date(Math.ceil(instant.getTime() / 60_000) * 60_000);
  for (let step = 0; step < 26 * 60 && isQuiet(at, window); step += 1) {
    at = new Date(at.getTime() + 60_000);
  }
  return at < instant ? instant : at;
}

export const minuteToTime = (minute: number): string =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

export const timeToMinute = (time: string): number => {
  const [hours, minutes] = time.split(':').map(Number);
  return hours! * 60 + minutes!;
};
