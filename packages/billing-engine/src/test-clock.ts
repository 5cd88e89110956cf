/**
 * The local engine's test clock, like Stripe's: real time plus an offset that only moves
 * forward. The offset is kept in app_settings so it survives restarts and is shared by every
 * process; `refresh` re-reads it (the engine does before each cycle and each write).
 */
import { eq } from 'drizzle-orm';
import type { Database } from '@farmcam/db';
import { appSettings } from '@farmcam/db/schema';

/** Business time as the app keeps it (the server's lib/clock.ts). */
export interface Clock {
  now(): Date;
}

const settingKey = 'billing-test-clock-offset-ms';

export interface TestClock extends Clock {
  /** Milliseconds the clock is ahead of real time. */
  offsetMs(): number;
  refresh(): Promise<void>;
  /** Moves the clock forward (never back: a ledger cannot un-issue invoices). */
  advance(milliseconds: number): Promise<Date>;
}

export function createTestClock(db: Database, base: Clock): TestClock {
  let offset = 0;
  return {
    now: () => new Date(base.now().getTime() + offset),
    offsetMs: () => offset,
    async refresh() {
      const [row] = await db.select().from(appSettings).where(eq(appSettings.key, settingKey));
      offset = Number(row?.value ?? 0) || 0;
    },
    async advance(milliseconds) {
      if (!Number.isFinite(milliseconds) || milliseconds <= 0) {
        throw new RangeError('The test clock only moves forward');
      }
      await this.refresh();
      offset += Math.round(milliseconds);
      await db
        .insert(appSettings)
        .values({ key: settingKey, value: offset })
        .onConflictDoUpdate({
          target: appSettings.key,
          set: { value: offset, updatedAt: base.now() },
        });
      return this.now();
    },
  };
}

/** How far one advance may move the clock, as Stripe's test clocks allow about two years. */
export const clockAdvanceLimits = { days: 730, months: 24 } as const;

export type ClockAdvance = { days: number } | { months: number };

const advanceRefusal = `Move the clock by a whole number of days (1 to ${clockAdvanceLimits.days}) or of months (1 to ${clockAdvanceLimits.months}), one of the two.`;

/**
 * Reads an advance from a form (text) or JSON (numbers): exactly one of `days` and `months`, a
 * whole number within its limit. Anything else is refused with one sentence saying what is
 * accepted.
 */
export function parseClockAdvance(
  body: Record<string, unknown>,
): { advance: ClockAdvance } | { refusal: string } {
  const read = (value: unknown): number | null | undefined => {
    if (value === undefined || value === '') return undefined;
    if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
    if (typeof value === 'string' && /^\d{1,6}$/.test(value.trim())) return Number(value.trim());
    return null;
  };
  const days = read(body.days);
  const months = read(body.months);
  if (days === null || months === null || (days === undefined) === (months === undefined)) {
    return { refusal: advanceRefusal };
  }
  if (days !== undefined) {
    return days >= 1 && days <= clockAdvanceLimits.days
      ? { advance: { days } }
      : { refusal: advanceRefusal };
  }
  return months! >= 1 && months! <= clockAdvanceLimits.months
    ? { advance: { months: months! } }
    : { refusal: advanceRefusal };
}
