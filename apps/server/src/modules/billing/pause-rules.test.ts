import { describe, expect, it } from 'vitest';
import {
  businessDay,
  earliestMonthStart,
  pauseRefusal,
  pauseStateOn,
  pauseWindow,
} from './pause-rules.ts';

describe('pause window', () => {
  it('starts next month for a request before the 25th', () => {
    expect(pauseWindow('2026-03-10')).toEqual({
      pauseFrom: '2026-04-01',
      resumeDates: [
        '2026-05-01',
        '2026-06-01',
        '2026-07-01',
        '2026-08-01',
        '2026-09-01',
        '2026-10-01',
      ],
    });
    expect(pauseWindow('2026-03-24').pauseFrom).toBe('2026-04-01');
  });

  it('starts the month after next from the 25th on', () => {
    expect(pauseWindow('2026-03-25').pauseFrom).toBe('2026-05-01');
    expect(pauseWindow('2026-03-31').pauseFrom).toBe('2026-05-01');
    expect(pauseWindow('2026-03-25').resumeDates[0]).toBe('2026-06-01');
  });

  it('crosses from December into January', () => {
    expect(pauseWindow('2026-12-10')).toMatchObject({ pauseFrom: '2027-01-01' });
    expect(pauseWindow('2026-12-10').resumeDates[0]).toBe('2027-02-01');
    expect(pauseWindow('2026-12-26').pauseFrom).toBe('2027-02-01');
    expect(pauseWindow('2026-11-28').pauseFrom).toBe('2027-01-01');
  });

  it('handles the end of February in leap and other years', () => {
    expect(pauseWindow('2028-02-29').pauseFrom).toBe('2028-04-01');
    expect(pauseWindow('2027-02-28').pauseFrom).toBe('2027-04-01');
    expect(pauseWindow('2028-02-24').pauseFrom).toBe('2028-03-01');
    expect(earliestMonthStart('2028-01-31')).toBe('2028-03-01');
  });

  it('reads "today" in UK time', () => {
    // 23:30 UTC on 24 March is 24 March in London (GMT); in summer 23:30 UTC is the next day.
    expect(businessDay(new Date('2026-03-24T23:30:00Z'))).toBe('2026-03-24');
    expect(businessDay(new Date('2026-06-24T23:30:00Z'))).toBe('2026-06-25');
  });
});

describe('pause state', () => {
  const pause = { pauseStartsOn: '2026-04-01', pauseResumesOn: '2026-06-01' };
  it('is scheduled before the start, paused during, gone after', () => {
    expect(pauseStateOn({ status: 'active', ...pause }, '2026-03-31')).toBe('scheduled');
    expect(pauseStateOn({ status: 'active', ...pause }, '2026-04-01')).toBe('paused');
    expect(pauseStateOn({ status: 'paused', ...pause }, '2026-05-31')).toBe('paused');
    expect(pauseStateOn({ status: 'active', ...pause }, '2026-06-01')).toBeNull();
    expect(pauseStateOn({ status: 'canceled', ...pause }, '2026-04-10')).toBeNull();
    expect(
      pauseStateOn({ status: 'active', pauseStartsOn: null, pauseResumesOn: null }, '2026-04-10'),
    ).toBeNull();
  });
});

describe('pauseRefusal (decision 014)', () => {
  it('lets running monthly plans pause and says why the others cannot', () => {
    expect(pauseRefusal({ status: 'active', interval: 'month' })).toBeNull();
    expect(pauseRefusal({ status: 'active', interval: 'year' })).toMatch(/^Annual plans/);
    expect(pauseRefusal({ status: 'past_due', interval: 'month' })).toMatch(/overdue invoice/);
    expect(pauseRefusal({ status: 'canceled', interval: 'month' })).toMatch(/no active/);
  });

  it('refuses an overdue plan, a plan never paid for and no plan at all (decision 170)', () => {
    expect(pauseRefusal({ status: 'overdue', interval: 'month' })).toMatch(/overdue invoice/);
    expect(pauseRefusal({ status: 'overdue', interval: 'year' })).toMatch(/overdue invoice/);
    expect(pauseRefusal({ status: 'incomplete', interval: 'month' })).toMatch(/no active/);
    expect(pauseRefusal(null)).toMatch(/no active/);
  });
});
