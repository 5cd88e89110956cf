/**
 * The local engine's test clock, like Stripe's: real time plus an offset that only moves
 * forward. The offset is kept in app_settings so it survives restarts and is shared by every
 * process; `refresh` re-reads it (the engine does before each cycle and each write).
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { appSettings } from '../../../db/schema.ts';
import type { Clock } from '../../../lib/clock.ts';

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
