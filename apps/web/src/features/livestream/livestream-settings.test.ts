import { describe, expect, it } from 'vitest';
import { defaultSettings, describeSchedule, settingsOf, toggled } from './livestream-settings.ts';

describe('livestream settings', () => {
  it('has the docs/requirements.md#data defaults: SD, 15 s, no audio, 9 to 17, Monday to Friday', () => {
    expect(defaultSettings).toEqual({
      quality: 'SD',
      duration: 15,
      includeAudio: false,
      scheduleHours: [9, 10, 11, 12, 13, 14, 15, 16, 17],
      scheduleDays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'],
    });
  });

  it('toggles values on and off', () => {
    expect(toggled([9, 10], 10)).toEqual([9]);
    expect(toggled([9], 10)).toEqual([9, 10]);
  });

  it('describes a schedule in words', () => {
    expect(describeSchedule(defaultSettings.scheduleHours, defaultSettings.scheduleDays)).toBe(
      '09:00–17:00, Monday to Friday',
    );
    expect(describeSchedule([12], ['SATURDAY', 'SUNDAY'])).toBe('12:00, Saturday to Sunday');
    expect(describeSchedule([6, 18], ['MONDAY', 'WEDNESDAY', 'FRIDAY'])).toBe(
      '2 hours a day, Mon, Wed, Fri',
    );
    expect(
      describeSchedule(
        [8],
        ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'],
      ),
    ).toBe('08:00, every day');
    expect(describeSchedule([], ['MONDAY'])).toBe('No recording hours chosen');
  });

  it('edits an existing livestream from its saved settings', () => {
    expect(
      settingsOf({
        quality: 'SD',
        durationSeconds: 60,
        includeAudio: true,
        scheduleHours: [7],
        scheduleDays: ['SUNDAY'],
      }),
    ).toEqual({
      quality: 'SD',
      duration: 60,
      includeAudio: true,
      scheduleHours: [7],
      scheduleDays: ['SUNDAY'],
    });
  });
});
