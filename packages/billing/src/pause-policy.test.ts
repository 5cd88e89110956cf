import { describe, expect, it } from 'vitest';
import { isPeriodPaused } from './pause-policy.ts';

describe('isPeriodPaused', () => {
  const pause = { pauseStartsOn: '2026-07-01', pauseResumesOn: '2026-09-01' };

  it('counts the UK day a period starts: 23:30 UTC on 30 June is 1 July in London (BST)', () => {
    expect(isPeriodPaused(pause, new Date('2026-06-30T23:30:00Z'))).toBe(true);
    expect(isPeriodPaused(pause, new Date('2026-06-30T22:59:00Z'))).toBe(false);
  });

  it('ends the day before the restart date, UK time', () => {
    expect(isPeriodPaused(pause, new Date('2026-08-31T22:59:00Z'))).toBe(true);
    expect(isPeriodPaused(pause, new Date('2026-08-31T23:00:00Z'))).toBe(false);
  });

  it('in winter the UK day is the UTC day', () => {
    const winter = { pauseStartsOn: '2026-12-01', pauseResumesOn: '2027-02-01' };
    expect(isPeriodPaused(winter, new Date('2026-11-30T23:30:00Z'))).toBe(false);
    expect(isPeriodPaused(winter, new Date('2026-12-01T00:00:00Z'))).toBe(true);
  });

  it('is no pause without both dates, whatever the status says', () => {
    expect(
      isPeriodPaused(
        { pauseStartsOn: '2026-07-01', pauseResumesOn: null },
        new Date('2026-07-15T12:00:00Z'),
      ),
    ).toBe(false);
    expect(
      isPeriodPaused(
        { pauseStartsOn: null, pauseResumesOn: null },
        new Date('2026-07-15T12:00:00Z'),
      ),
    ).toBe(false);
  });
});
