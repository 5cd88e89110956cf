/**
 * The setup's choices and defaults (docs/requirements.md#data Livestream setup data), and the
 * schedule text the configure-rtsp call takes. The RTSP port, paths and clip lengths are the
 * shared rules' (docs/requirements.md#limits, decision 170), which the server checks against.
 */
import {
  livestreamDurations,
  type LivestreamDuration,
  type LivestreamQuality,
  type ScheduleDay,
} from '@farmcam/contract/rules';

export const scheduleHourChoices = Array.from({ length: 24 }, (_, hour) => hour);
export const scheduleDayChoices: { day: ScheduleDay; label: string; short: string }[] = [
  { day: 'MONDAY', label: 'Monday', short: 'Mon' },
  { day: 'TUESDAY', label: 'Tuesday', short: 'Tue' },
  { day: 'WEDNESDAY', label: 'Wednesday', short: 'Wed' },
  { day: 'THURSDAY', label: 'Thursday', short: 'Thu' },
  { day: 'FRIDAY', label: 'Friday', short: 'Fri' },
  { day: 'SATURDAY', label: 'Saturday', short: 'Sat' },
  { day: 'SUNDAY', label: 'Sunday', short: 'Sun' },
];

export interface LivestreamSettings {
  quality: LivestreamQuality;
  duration: LivestreamDuration;
  includeAudio: boolean;
  scheduleHours: number[];
  scheduleDays: ScheduleDay[];
}

/** docs/requirements.md#data: SD, 15 s, no audio, 09:00 to 17:00, Monday to Friday. */
export const defaultSettings: LivestreamSettings = {
  quality: 'SD',
  duration: 15,
  includeAudio: false,
  scheduleHours: [9, 10, 11, 12, 13, 14, 15, 16, 17],
  scheduleDays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'],
};

const dayOrder = scheduleDayChoices.map((choice) => choice.day);

/** "00" … "23", as the hour toggles show them. */
export const hourLabel = (hour: number) => String(hour).padStart(2, '0');

/** Adds or removes one value of a toggle group. */
export function toggled<T>(values: readonly T[], value: T): T[] {
  return values.includes(value) ? values.filter((item) => item !== value) : [...values, value];
}

/** Settings of an existing livestream, for editing it. */
export function settingsOf(livestream: {
  quality: LivestreamQuality;
  durationSeconds: number;
  includeAudio: boolean;
  scheduleHours: number[];
  scheduleDays: ScheduleDay[];
}): LivestreamSettings {
  const duration =
    livestreamDurations.find((choice) => choice === livestream.durationSeconds) ?? 15;
  return {
    // HD is not offered yet: an HD stream is edited as SD.
    quality: 'SD',
    duration,
    includeAudio: livestream.includeAudio,
    scheduleHours: livestream.scheduleHours,
    scheduleDays: livestream.scheduleDays,
  };
}

/** A short description of a schedule, e.g. "09:00–17:00, Monday to Friday". */
export function describeSchedule(hours: readonly number[], days: readonly ScheduleDay[]): string {
  if (hours.length === 0 || days.length === 0) return 'No recording hours chosen';
  const sorted = [...hours].sort((a, b) => a - b);
  const isRun = sorted.every((hour, index) => index === 0 || hour === sorted[index - 1]! + 1);
  const hourText = isRun
    ? sorted.length === 1
      ? `${hourLabel(sorted[0]!)}:00`
      : `${hourLabel(sorted[0]!)}:00–${hourLabel(sorted.at(-1)!)}:00`
    : `${sorted.length} hours a day`;
  const dayIndexes = dayOrder
    .map((day, index) => (days.includes(day) ? index : -1))
    .filter((index) => index >= 0);
  const isDayRun = dayIndexes.every(
    (value, index) => index === 0 || value === dayIndexes[index - 1]! + 1,
  );
  const label = (index: number) => scheduleDayChoices[index]!.label;
  const dayText =
    dayIndexes.length === 7
      ? 'every day'
      : dayIndexes.length === 1
        ? label(dayIndexes[0]!)
        : isDayRun
          ? `${label(dayIndexes[0]!)} to ${label(dayIndexes.at(-1)!)}`
          : dayIndexes.map((index) => scheduleDayChoices[index]!.short).join(', ');
  return `${hourText}, ${dayText}`;
}
