/**
 * The billing fence a restore leaves for the local billing engine (docs/decisions/109).
 *
 * A restored database has the engine's ledger as it was at the backup: whatever the engine
 * renewed, charged or retried after that is not in it, and the engine would do it again. With the
 * operator's `--fence-billing`, the restore records `until`: the latest billing time the replaced
 * database could have reached. The engine then makes no automatic charge for anything that could
 * have been charged before `until`: a renewal period that starts before it is rolled on without an
 * invoice (as a paused one is), and an invoice issued before it is not retried automatically (the
 * customer can still pay it on its page). What is due after `until` is charged as usual.
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '@farmcam/db';
import { appSettings } from '@farmcam/db/schema';

export const restoreFenceKey = 'billing-restore-fence';

export interface RestoreFence {
  /** Nothing due before this instant (billing time) is charged automatically. */
  until: string;
  /** When the backup was made (real time) and its billing time (with the test clock's offset). */
  backupCreatedAt: string;
  backupBillingTime: string | null;
  /** When the restore ran (real time). */
  restoredAt: string;
}

/** The fence's instant, or null when the database was never restored with one. */
export async function readRestoreFence(executor: Executor): Promise<Date | null> {
  const [row] = await executor
    .select({ value: appSettings.value })
    .from(appSettings)
    .where(eq(appSettings.key, restoreFenceKey));
  const until = (row?.value as Partial<RestoreFence> | undefined)?.until;
  return typeof until === 'string' ? new Date(until) : null;
}

/** Whether an automatic charge for something due (or issued) at `instant` is fenced off. */
export const isFencedOff = (fence: Date | null, instant: Date): boolean =>
  fence !== null && instant < fence;
