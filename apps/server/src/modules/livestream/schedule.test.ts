import { formatScheduleText } from '@farmcam/contract/rules';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.ts';
import {
  dueSlot,
  formatSchedule,
  nextRecordingAfter,
  nextSlotStart,
  parseSchedule,
  slotKeyAt,
  slotStartsBetween,
  toSchedule,
  ukWallClock,
} from './schedule.ts';

const weekdays = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] as const;
const defaultSchedule = { hours: [9, 10, 11, 12, 13, 14, 15, 16, 17], days: [...weekdays] };

function parseError(text: string): string {
  try {
    parseSchedule(text);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('VALIDATION_FAILED');
    return (error as AppError).message;
  }
  throw new Error(`"${text}" parsed`);
}

describe('schedule text', () => {
  it('round-trips the setup defaults (hours 9 to 17, Monday to Friday)', () => {
    const text = formatSchedule(defaultSchedule);
    expect(text).toBe(
      'hours=9,10,11,12,13,14,15,16,17;days=MONDAY,TUESDAY,WEDNESDAY,THURSDAY,FRIDAY',
    );
    expect(parseSchedule(text)).toEqual(defaultSchedule);
  });

  it('accepts ranges, short day names, any case, spaces, and either order', () => {
    expect(parseSchedule(' Days = mon-fri ; HOURS = 9 - 17 ')).toEqual(defaultSchedule);
    expect(parseSchedule('hours=0,23,5,5;days=sun,Sat,MONDAY')).toEqual({
      hours: [0, 5, 23],
      days: ['MONDAY', 'SATURDAY', 'SUNDAY'],
    });
  });

  it('reads back what the set-up writes, whatever order the farmer ticked (decision 170)', () => {
    const text = formatScheduleText([17, 9, 9, 0], ['SUNDAY', 'MONDAY', 'WEDNESDAY']);
    expect(parseSchedule(text)).toEqual({
      hours: [0, 9, 17],
      days: ['MONDAY', 'WEDNESDAY', 'SUNDAY'],
    });
    expect(formatSchedule(parseSchedule(text))).toBe(text);
  });

  it('allows empty lists (no minimum, docs/requirements.md#input-rules)', () => {
    expect(parseSchedule('hours=;days=')).toEqual({ hours: [], days: [] });
    expect(formatSchedule({ hours: [], days: [] })).toBe('hours=;days=');
  });

  it('explains what is wrong', () => {
    expect(parseError('hours=24;days=MON')).toContain('hour 24 is not between 0 and 23');
    expect(parseError('hours=9;days=FUNDAY')).toContain('"FUNDAY" is not a day of the week');
    expect(parseError('hours=9')).toContain('it needs hours and days');
    expect(parseError('hours=17-9;days=MON')).toContain('runs backwards');
    expect(parseError('hours=nine;days=MON')).toContain('"nine" is not an hour');
    expect(parseError('minutes=5;hours=9;days=MON')).toContain('unknown part "minutes"');
    expect(parseError('hours=9;hours=10;days=MON')).toContain('given twice');
    expect(parseError('every day')).toContain('has no "="');
    // Sentences a farmer can read: no field prefix, no empty quotes.
    expect(parseError('hours=9-;days=MON')).toBe(
      'The recording schedule could not be read: a range is missing one of its hours (write 9-17). Write it like hours=9,10,11;days=MONDAY,TUESDAY.',
    );
    expect(parseError('hours=9;days=-FRI')).toContain('a range is missing one of its days');
    expect(parseError('hours=9-;days=MON')).not.toContain('""');
  });

  it('normalises stored arrays', () => {
    expect(toSchedule([17, 9, 9, 25], ['FRIDAY', 'MONDAY', 'NOTADAY'])).toEqual({
      hours: [9, 17],
      days: ['MONDAY', 'FRIDAY'],
    });
  });
});

describe('slots in UK time', () => {
  it('reads the UK wall clock in winter (GMT) and summer (BST)', () => {
    expect(ukWallClock(new Date('2026-01-14T09:30:00Z'))).toEqual({
      date: '2026-01-14',
      hour: 9,
      minute: 30,
      day: 'WEDNESDAY',
    });
    expect(ukWallClock(new Date('2026-07-14T08:30:00Z'))).toMatchObject({ hour: 9 });
    // Late evening UTC can already be the next UK day in summer.
    expect(ukWallClock(new Date('2026-07-14T23:30:00Z'))).toMatchObject({
      date: '2026-07-15',
      hour: 0,
      day: 'WEDNESDAY',
    });
  });

  it('is due only in scheduled hours on scheduled days', () => {
    // Tuesday 10 March 2026, GMT.
    expect(dueSlot(defaultSchedule, new Date('2026-03-10T09:00:00Z'))).toBe('2026-03-10T09');
    expect(dueSlot(defaultSchedule, new Date('2026-03-10T09:59:59Z'))).toBe('2026-03-10T09');
    expect(dueSlot(defaultSchedule, new Date('2026-03-10T08:59:59Z'))).toBeNull();
    expect(dueSlot(defaultSchedule, new Date('2026-03-10T18:00:00Z'))).toBeNull();
    // Saturday.
    expect(dueSlot(defaultSchedule, new Date('2026-03-14T12:00:00Z'))).toBeNull();
    // In summer, 09:00 in the UK is 08:00 UTC.
    expect(dueSlot(defaultSchedule, new Date('2026-07-14T08:05:00Z'))).toBe('2026-07-14T09');
    expect(dueSlot(defaultSchedule, new Date('2026-07-14T17:05:00Z'))).toBeNull();
  });

  it('skips the hour that does not exist when the clocks go forward', () => {
    const everyHourOnSunday = { hours: [0, 1, 2, 3], days: ['SUNDAY' as const] };
    const starts = slotStartsBetween(
      everyHourOnSunday,
      new Date('2026-03-28T12:00:00Z'),
      new Date('2026-03-29T12:00:00Z'),
    );
    expect(starts.map((start) => start.toISOString())).toEqual([
      '2026-03-29T00:00:00.000Z', // 00:00 GMT
      '2026-03-29T01:00:00.000Z', // 02:00 BST: 01:00 never happened
      '2026-03-29T02:00:00.000Z', // 03:00 BST
    ]);
    expect(starts.map(slotKeyAt)).toEqual(['2026-03-29T00', '2026-03-29T02', '2026-03-29T03']);
  });

  it('records the repeated hour once when the clocks go back', () => {
    const earlySunday = { hours: [0, 1, 2], days: ['SUNDAY' as const] };
    const starts = slotStartsBetween(
      earlySunday,
      new Date('2026-10-24T12:00:00Z'),
      new Date('2026-10-25T12:00:00Z'),
    );
    expect(starts.map((start) => start.toISOString())).toEqual([
      '2026-10-24T23:00:00.000Z', // 00:00 BST
      '2026-10-25T00:00:00.000Z', // 01:00 BST (first 01:00)
      '2026-10-25T02:00:00.000Z', // 02:00 GMT; the second 01:00 (01:00Z) is the same slot
    ]);
    // Both 01:00s name the same slot, so the unique slot per livestream holds one recording.
    expect(dueSlot(earlySunday, new Date('2026-10-25T00:30:00Z'))).toBe('2026-10-25T01');
    expect(dueSlot(earlySunday, new Date('2026-10-25T01:30:00Z'))).toBe('2026-10-25T01');
  });

  it('counts a month of the default schedule: 9 hours on each weekday', () => {
    // March 2026 has 22 weekdays and a DST change on a Sunday.
    const starts = slotStartsBetween(
      defaultSchedule,
      new Date('2026-03-01T00:00:00Z'),
      new Date('2026-04-01T00:00:00Z'),
    );
    expect(starts).toHaveLength(22 * 9);
  });

  it('finds the next slot across nights, weekends and the DST change', () => {
    const at = (iso: string) => nextSlotStart(defaultSchedule, new Date(iso))?.toISOString();
    expect(at('2026-03-10T09:00:00Z')).toBe('2026-03-10T10:00:00.000Z');
    expect(at('2026-03-10T17:30:00Z')).toBe('2026-03-11T09:00:00.000Z');
    // Friday evening before the clocks go forward → Monday 09:00 BST = 08:00 UTC.
    expect(at('2026-03-27T18:00:00Z')).toBe('2026-03-30T08:00:00.000Z');
    const now = new Date('2026-03-10T12:00:00Z');
    expect(nextSlotStart({ hours: [], days: [...weekdays] }, now)).toBeNull();
    expect(nextSlotStart({ hours: [9], days: [] }, now)).toBeNull();
  });
});

describe('next recording', () => {
  it('is within the current hour when it is scheduled and not yet recorded (catch-up)', () => {
    // Tuesday 10 March 2026, 12:20 GMT: hour 12 is scheduled, its slot not recorded yet.
    const now = new Date('2026-03-10T12:20:30Z');
    expect(nextRecordingAfter(defaultSchedule, now, false)?.toISOString()).toBe(
      '2026-03-10T12:21:00.000Z',
    );
    // Once the hour's slot is recorded (or tried), the next one is the next scheduled hour.
    expect(nextRecordingAfter(defaultSchedule, now, true)?.toISOString()).toBe(
      '2026-03-10T13:00:00.000Z',
    );
    // Outside the schedule, the catch-up does not apply.
    expect(
      nextRecordingAfter(defaultSchedule, new Date('2026-03-10T18:20:00Z'), false)?.toISOString(),
    ).toBe('2026-03-11T09:00:00.000Z');
  });
});
