import { describe, expect, it } from 'vitest';
import {
  formatUkDate,
  formatUkDateTime,
  formatUkDayMonth,
  formatUkDayMonthTime,
  formatUkLongDay,
  formatUkTime,
  formatUkTimestamp,
  formatUkWeekdayDateTime,
  formatUkWeekdayDay,
  ukDayOf,
  ukFormatter,
  ukPartsOf,
  ukWallClockOf,
} from './uk-time.ts';

// 23:30 UTC on 31 May 2026 is 00:30 on Monday 1 June in the UK (summer time); 13:16 UTC on
// 24 November 2026 is 13:16 in the UK (winter).
const summerNight = new Date('2026-05-31T23:30:00Z');
const winterDay = '2026-11-24T13:16:05Z';

describe('UK time, one time zone for every screen and e-mail (decision 170)', () => {
  it('counts the UK day, not the UTC one', () => {
    expect(ukDayOf(summerNight)).toBe('2026-06-01');
    expect(ukDayOf(winterDay)).toBe('2026-11-24');
    expect(ukWallClockOf(summerNight)).toEqual({
      date: '2026-06-01',
      hour: 0,
      minute: 30,
      weekday: 'Monday',
    });
  });

  it('writes each named format', () => {
    expect(formatUkTime(summerNight)).toBe('00:30');
    expect(formatUkDateTime(winterDay)).toBe('24 Nov 2026, 13:16');
    expect(formatUkDayMonthTime(winterDay)).toBe('24 Nov, 13:16');
    expect(formatUkWeekdayDateTime(winterDay)).toBe('Tue 24 Nov, 13:16');
    expect(formatUkDayMonth(summerNight)).toBe('1 Jun');
    expect(formatUkDate(summerNight)).toBe('1 Jun 2026');
    expect(formatUkWeekdayDay(summerNight)).toBe('Mon 1 Jun');
    expect(formatUkLongDay(summerNight)).toBe('Monday 1 June');
    expect(formatUkTimestamp(winterDay)).toBe(
      new Date(winterDay).toLocaleString('en-GB', { timeZone: 'Europe/London' }),
    );
  });

  it('gives the parts of a format, and one formatter per set of options', () => {
    expect(
      ukPartsOf(summerNight, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
    ).toEqual({ hour: '00', literal: ':', minute: '30' });
    expect(ukFormatter({ day: 'numeric' })).toBe(ukFormatter({ day: 'numeric' }));
    expect(ukFormatter({ day: 'numeric' }).resolvedOptions().timeZone).toBe('Europe/London');
  });
});
