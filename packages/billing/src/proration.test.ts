import { describe, expect, it } from 'vitest';
import { addMonths, calculateProration } from './proration.ts';

const light = { name: 'Light Streaming', unitAmount: 1200, interval: 'month' as const };
const heavy = { name: 'Heavy Streaming', unitAmount: 3500, interval: 'month' as const };
const heavyAnnual = { name: 'Heavy Streaming', unitAmount: 35000, interval: 'year' as const };
const march = {
  periodStart: new Date('2026-03-01T00:00:00Z'),
  periodEnd: new Date('2026-04-01T00:00:00Z'),
};

describe('proration', () => {
  it('credits unused time and charges the same share of the new price', () => {
    // Half of March left (15.5 of 31 days).
    const result = calculateProration({
      from: light,
      to: heavy,
      ...march,
      now: new Date('2026-03-16T12:00:00Z'),
    });
    expect(result.lines.map((line) => line.amount)).toEqual([-600, 1750]);
    expect(result.total).toBe(1150);
    expect(result.newPeriod).toBeNull();
  });

  it('leaves a credit for a downgrade', () => {
    const result = calculateProration({
      from: heavy,
      to: light,
      ...march,
      now: new Date('2026-03-16T12:00:00Z'),
    });
    expect(result.total).toBe(-1150);
    expect(result.lines.map((line) => line.description)).toEqual([
      'Unused time on Heavy Streaming from 16 Mar to 1 Apr 2026',
      'Remaining time on Light Streaming from 16 Mar to 1 Apr 2026',
    ]);
  });

  it('charges the whole new price and restarts the period when the interval changes', () => {
    const now = new Date('2026-03-16T12:00:00Z');
    const result = calculateProration({ from: light, to: heavyAnnual, ...march, now });
    expect(result.total).toBe(35000 - 600);
    expect(result.newPeriod).toEqual({ start: now, end: new Date('2027-03-16T12:00:00Z') });
  });

  it('charges nothing at the very end of a period and everything at its start', () => {
    expect(
      calculateProration({ from: light, to: heavy, ...march, now: march.periodEnd }).total,
    ).toBe(0);
    expect(
      calculateProration({ from: light, to: heavy, ...march, now: march.periodStart }).total,
    ).toBe(2300);
  });

  it('adds months keeping the day, clamped to short months and leap days', () => {
    expect(addMonths(new Date('2026-01-31T00:00:00Z'), 1).toISOString()).toBe(
      '2026-02-28T00:00:00.000Z',
    );
    expect(addMonths(new Date('2028-01-31T00:00:00Z'), 1).toISOString()).toBe(
      '2028-02-29T00:00:00.000Z',
    );
    expect(addMonths(new Date('2028-02-29T00:00:00Z'), 12).toISOString()).toBe(
      '2029-02-28T00:00:00.000Z',
    );
    expect(addMonths(new Date('2026-12-01T00:00:00Z'), 1).toISOString()).toBe(
      '2027-01-01T00:00:00.000Z',
    );
  });
});
