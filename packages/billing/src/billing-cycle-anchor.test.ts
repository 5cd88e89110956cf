/**
 * Billing periods on the anchor (docs/decisions/108), as Stripe's billing_cycle_anchor: the
 * examples of Stripe's documentation and the issue, and a property over any anchor and up to
 * fifty years of renewals.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anchorDate, periodEndOnAnchor } from './billing-cycle-anchor.ts';

/** The period ends of `count` renewals in a row, each from the previous end. */
function renewals(anchor: string, interval: 'month' | 'year', count: number): string[] {
  const ends: string[] = [];
  let start = new Date(anchor);
  for (let index = 0; index < count; index += 1) {
    start = periodEndOnAnchor(new Date(anchor), start, interval);
    ends.push(start.toISOString().slice(0, 10));
  }
  return ends;
}

const lastDayOfMonth = (year: number, month: number) =>
  new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

describe('periods on the billing cycle anchor', () => {
  it('renews a plan started on 31 January on the last day of shorter months and the 31st again', () => {
    expect(renewals('2026-01-31T09:30:00Z', 'month', 7)).toEqual([
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
      '2026-07-31',
      '2026-08-31',
    ]);
    // A leap year's February has its 29th.
    expect(renewals('2028-01-31T00:00:00Z', 'month', 2)).toEqual(['2028-02-29', '2028-03-31']);
  });

  it('renews an annual plan started on 29 February on the 28th, and the 29th in leap years', () => {
    expect(renewals('2028-02-29T00:00:00Z', 'year', 4)).toEqual([
      '2029-02-28',
      '2030-02-28',
      '2031-02-28',
      '2032-02-29',
    ]);
  });

  it("keeps the anchor's time of day, to the millisecond", () => {
    const anchor = new Date('2026-01-31T23:59:58.250Z');
    expect(periodEndOnAnchor(anchor, anchor, 'month').toISOString()).toBe(
      '2026-02-28T23:59:58.250Z',
    );
  });

  it('brings a period that drifted before anchors were kept back on the anchor, never short', () => {
    const anchor = new Date('2026-01-31T00:00:00Z');
    // Renewed on the 28th since February: the next period ends on 30 April, not 28 April.
    expect(periodEndOnAnchor(anchor, new Date('2026-03-28T00:00:00Z'), 'month').toISOString()).toBe(
      '2026-04-30T00:00:00.000Z',
    );
    // A start later in its month than the anchor's day ends in the next month, not the same one.
    expect(
      periodEndOnAnchor(new Date('2026-01-01T00:00:00Z'), new Date('2026-06-21T00:00:00Z'), 'month')
        .toISOString()
        .slice(0, 10),
    ).toBe('2026-07-01');
  });

  it('ends every period on the anchor day of its month, one interval after the last, for 50 years', () => {
    const anchors = fc
      .record({
        year: fc.integer({ min: 2000, max: 2100 }),
        month: fc.integer({ min: 0, max: 11 }),
        day: fc.integer({ min: 1, max: 31 }),
        milliseconds: fc.integer({ min: 0, max: 86_399_999 }),
      })
      .map(({ year, month, day, milliseconds }) => {
        const date = new Date(Date.UTC(year, month, Math.min(day, lastDayOfMonth(year, month))));
        return new Date(date.getTime() + milliseconds);
      });
    fc.assert(
      fc.property(
        anchors,
        fc.constantFrom('month' as const, 'year' as const),
        (anchor, interval) => {
          const step = interval === 'year' ? 12 : 1;
          const count = interval === 'year' ? 50 : 600;
          let start = anchor;
          for (let index = 1; index <= count; index += 1) {
            const end = periodEndOnAnchor(anchor, start, interval);
            expect(end).toEqual(anchorDate(anchor, interval, index));
            // The anchor's day, or the month's last day when the month is shorter.
            const months = anchor.getUTCMonth() + index * step;
            const year = anchor.getUTCFullYear() + Math.floor(months / 12);
            const month = months % 12;
            expect(end.getUTCFullYear()).toBe(year);
            expect(end.getUTCMonth()).toBe(month);
            expect(end.getUTCDate()).toBe(
              Math.min(anchor.getUTCDate(), lastDayOfMonth(year, month)),
            );
            expect(end.getTime() % 86_400_000).toBe(anchor.getTime() % 86_400_000);
            start = end;
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
