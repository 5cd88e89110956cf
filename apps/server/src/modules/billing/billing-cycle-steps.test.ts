import { describe, expect, it } from 'vitest';
import { cycleSteps } from './billing-cycle-steps.ts';

const iso = (dates: Date[]) => dates.map((date) => date.toISOString());

describe('billing cycle steps', () => {
  it('runs once at the time reached when there is nothing to replay', () => {
    const until = new Date('2026-03-10T09:00:00Z');
    expect(iso(cycleSteps(undefined, until))).toEqual([until.toISOString()]);
    expect(iso(cycleSteps(until, until))).toEqual([until.toISOString()]);
    expect(iso(cycleSteps(new Date('2026-03-10T09:10:00Z'), until))).toEqual([until.toISOString()]);
  });

  it('replays every day in between at noon UTC, then the time reached', () => {
    expect(
      iso(cycleSteps(new Date('2026-03-10T12:00:00Z'), new Date('2026-03-13T08:30:00Z'))),
    ).toEqual(['2026-03-11T12:00:00.000Z', '2026-03-12T12:00:00.000Z', '2026-03-13T08:30:00.000Z']);
    expect(
      iso(cycleSteps(new Date('2026-03-10T11:59:00Z'), new Date('2026-03-11T13:00:00Z'))),
    ).toEqual(['2026-03-10T12:00:00.000Z', '2026-03-11T12:00:00.000Z', '2026-03-11T13:00:00.000Z']);
  });

  it('gives each UK date of a two-year jump its own step, across clock changes', () => {
    const steps = cycleSteps(new Date('2026-01-01T00:00:00Z'), new Date('2028-01-01T00:00:00Z'));
    const ukDates = steps.map((step) =>
      new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(step),
    );
    expect(new Set(ukDates).size).toBe(731); // 1 Jan 2026 to 1 Jan 2028 inclusive
    expect(steps.every((step, index) => index === 0 || step > steps[index - 1]!)).toBe(true);
  });
});
