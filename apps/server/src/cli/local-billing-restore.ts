/**
 * Backups and restores of a database the local billing engine charges from (docs/decisions/109).
 *
 * A restore rewinds the engine's ledger to the backup: renewals, retries and payments made after
 * it are gone from the database, though the cards were charged, and the engine would charge them
 * again. So the backup records where the engine's billing stood, the restore refuses such a
 * backup while BILLING=local unless the operator passes --fence-billing, and with it leaves a
 * billing fence (restore-fence.ts in @farmcam/billing-engine): nothing that could have fallen due
 * before the latest billing time the replaced database could have reached is charged
 * automatically again.
 */
import { restoreFenceKey, type RestoreFence } from '@farmcam/billing-engine';
import {
  BackupError,
  type BackupManifest,
  type LocalBillingMark,
  type RunQuery,
} from './backup-set.ts';

/** The test clock's offset in app_settings (test-clock.ts in @farmcam/billing-engine). */
const testClockKey = 'billing-test-clock-offset-ms';

/** Where a database's local billing stands at `realNow`: its billing time and ledger marks. */
export interface BillingState {
  offsetMs: number;
  billingTime: Date;
  liveSubscriptions: number;
  openInvoices: number;
  lastPaymentAt: Date | null;
  /** The latest billing instant the ledger shows: billing time, newest invoice or payment. */
  highWater: Date;
}

const asDate = (value: unknown): Date | null =>
  value === null || value === undefined ? null : new Date(value as string | Date);

/** The database's billing state, or null when it holds no portal tables (never migrated). */
export async function readBillingState(
  query: RunQuery,
  realNow: Date,
): Promise<BillingState | null> {
  const [exists] = await query(
    `select to_regclass('public.subscriptions') is not null
        and to_regclass('public.app_settings') is not null as e`,
  );
  if (!exists?.e) return null;
  const [row] = await query(
    `select
       (select count(*) from subscriptions s join billing_customers c on c.id = s.billing_customer_id
         where c.provider = 'local' and s.status in ('active', 'paused', 'past_due', 'overdue'))::int as live,
       (select count(*) from invoices i join billing_customers c on c.id = i.billing_customer_id
         where c.provider = 'local' and i.status = 'open')::int as open,
       (select max(created_at) from payments) as last_payment,
       (select max(created_at) from invoices) as last_invoice,
       (select value #>> '{}' from app_settings where key = '${testClockKey}') as offset_ms`,
  );
  const offsetMs = Number(row?.offset_ms ?? 0) || 0;
  const billingTime = new Date(realNow.getTime() + offsetMs);
  const lastPaymentAt = asDate(row?.last_payment);
  const lastInvoiceAt = asDate(row?.last_invoice);
  const highWater = new Date(
    Math.max(
      billingTime.getTime(),
      // Past the newest invoice and payment: the fence is exclusive and those were billed.
      (lastInvoiceAt?.getTime() ?? -1) + 1,
      (lastPaymentAt?.getTime() ?? -1) + 1,
    ),
  );
  return {
    offsetMs,
    billingTime,
    liveSubscriptions: Number(row?.live ?? 0),
    openInvoices: Number(row?.open ?? 0),
    lastPaymentAt,
    highWater,
  };
}

/** The manifest's record of the local engine's billing, or undefined when there is none. */
export function billingMark(state: BillingState | null): LocalBillingMark | undefined {
  if (!state || state.liveSubscriptions + state.openInvoices === 0) return undefined;
  return {
    engine: 'local',
    liveSubscriptions: state.liveSubscriptions,
    openInvoices: state.openInvoices,
    billingTime: state.billingTime.toISOString(),
    lastPaymentAt: state.lastPaymentAt?.toISOString() ?? null,
  };
}

/**
 * Refuses to restore, under the local engine, a backup whose ledger the engine would charge from
 * again, unless the operator asked for the fence. A set written before the manifest recorded
 * billing (no `billingChecked`) counts as such a backup.
 */
export function checkLocalBilling(
  manifest: BackupManifest,
  billingMode: 'local' | 'stripe',
  isFenced: boolean,
): void {
  if (billingMode !== 'local' || isFenced) return;
  if (manifest.billingChecked && !manifest.billing) return;
  const what = manifest.billing
    ? `${manifest.billing.liveSubscriptions} subscription${manifest.billing.liveSubscriptions === 1 ? '' : 's'} and ${manifest.billing.openInvoices} unpaid invoice${manifest.billing.openInvoices === 1 ? '' : 's'} of the local billing engine, as they stood at ${manifest.billing.billingTime}`
    : 'the local billing engine’s subscriptions and invoices (this set was written before backups recorded billing)';
  throw new BackupError(
    `Not restored: this backup holds ${what}. Restoring it with BILLING=local rewinds the engine's ledger, and the engine would renew and charge again every period and retry every invoice it had already charged after the backup. ` +
      'Run again with --fence-billing to restore it with a billing fence: nothing that fell due before the restore (or before the latest billing time of the database being replaced) is charged automatically again; those periods roll on unbilled and those invoices wait to be paid on their page. ' +
      'Check them against the charges made since the backup (docs/decisions/109).',
  );
}

/**
 * Writes the fence into the restored database, after its tables were checked against the
 * manifest: `until` is the latest billing time known (the replaced database's, this database's
 * clock now, the backup's), and the test clock never moves back.
 */
export async function writeRestoreFence(
  query: RunQuery,
  input: {
    manifest: BackupManifest;
    replaced: BillingState | null;
    realNow: Date;
  },
): Promise<{ until: Date; restored: BillingState | null }> {
  const restored = await readBillingState(query, input.realNow);
  const offsetMs = Math.max(restored?.offsetMs ?? 0, input.replaced?.offsetMs ?? 0);
  const until = new Date(
    Math.max(
      input.realNow.getTime() + offsetMs,
      restored?.highWater.getTime() ?? 0,
      input.replaced?.highWater.getTime() ?? 0,
    ),
  );
  const fence: RestoreFence = {
    until: until.toISOString(),
    backupCreatedAt: input.manifest.createdAt,
    backupBillingTime: input.manifest.billing?.billingTime ?? null,
    restoredAt: input.realNow.toISOString(),
  };
  await query(
    `insert into app_settings (key, value) values ('${restoreFenceKey}', '${JSON.stringify(fence).replaceAll("'", "''")}'::jsonb)
     on conflict (key) do update set value = excluded.value, updated_at = now()`,
  );
  if (offsetMs > (restored?.offsetMs ?? 0)) {
    await query(
      `insert into app_settings (key, value) values ('${testClockKey}', '${offsetMs}'::jsonb)
       on conflict (key) do update set value = excluded.value, updated_at = now()`,
    );
  }
  return { until, restored };
}
