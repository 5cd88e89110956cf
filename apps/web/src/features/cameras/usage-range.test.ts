import { describe, expect, it } from 'vitest';
import { currentMonthUsageRange } from './usage-range.ts';

const at = (year: number, monthIndex: number, day: number) =>
  new Date(Date.UTC(year, monthIndex, day, 12));

describe('data usage range (docs/requirements.md#api)', () => {
  it('runs from the 1st to the last day of the current month', () => {
    expect(currentMonthUsageRange(at(2026, 2, 10))).toEqual({
      startDate: '2026-03-01',
      endDate: '2026-03-31',
    });
    expect(currentMonthUsageRange(at(2026, 3, 30))).toEqual({
      startDate: '2026-04-01',
      endDate: '2026-04-30',
    });
    expect(currentMonthUsageRange(at(2026, 11, 31))).toEqual({
      startDate: '2026-12-01',
      endDate: '2026-12-31',
    });
  });

  it('ends February on the 28th, or the 29th in a leap year', () => {
    expect(currentMonthUsageRange(at(2026, 1, 1)).endDate).toBe('2026-02-28');
    expect(currentMonthUsageRange(at(2028, 1, 29)).endDate).toBe('2028-02-29');
  });

  it('starts in December of the previous year in January', () => {
    expect(currentMonthUsageRange(at(2027, 0, 1))).toEqual({
      startDate: '2026-12-01',
      endDate: '2027-01-31',
    });
  });

  it("counts the usage month the dashboard counts, whatever the browser's time zone (decision 170)", () => {
    // 00:30 on 1 April in the UK (summer time) is still 31 March in UTC, where usage is kept:
    // the chart shows March, as the card's "Data used this month" does.
    expect(currentMonthUsageRange(new Date('2026-03-31T23:30:00Z'))).toEqual({
      startDate: '2026-03-01',
      endDate: '2026-03-31',
    });
  });
});
