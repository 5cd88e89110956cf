/**
 * The billing cycle at scale (issue 12): 10,000 monthly subscriptions of the local engine, each
 * customer with a good default card, all renewing on one day. The engine's test clock is moved
 * to that day and one billing-cycle run is timed, through the entry the billing-cycle job calls
 * (BillingCycle.runCycle: renewals, dunning, pause transitions, SIM reconciliation), on a fresh
 * in-memory PGlite and on a fresh PostgreSQL database.
 *
 * Afterwards it counts what the run left in the ledger: exactly one paid renewal invoice per
 * subscription, each with a succeeded payment, and every subscription moved one period on, so
 * a cycle that did nothing cannot pass.
 *
 * Runs in the bench's own process (no portal needed). BENCH_BILLING_SUBSCRIPTIONS
 * (10000,100000): the sizes measured on PostgreSQL, each on its own fresh database;
 * BENCH_BILLING_PGLITE_SUBSCRIPTIONS (10000): the sizes on PGlite (in memory, in this process:
 * 100,000 would hold about a gigabyte). BENCH_POSTGRES_URL
 * (postgres://postgres@127.0.0.1:5432; an unreachable server is a note, not a failure): a
 * database bench_billing_<pid>_<size> is created there and dropped at the end.
 * BENCH_BILLING_DATABASES (pglite,postgres): which of the two to measure.
 */
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { testConfig } from '../../apps/server/src/config/config.ts';
import { openDatabase, queryRows, type DatabaseHandle } from '../../apps/server/src/db/client.ts';
import { seedCatalogue } from '../../apps/server/src/seed/demo.ts';
import { ManualClock } from '../../apps/server/src/lib/clock.ts';
import { createBillingCycle } from '../../apps/server/src/modules/billing/billing-cycle.service.ts';
import { createBillingServiceContext } from '../../apps/server/src/modules/billing/billing-service-context.ts';
import { createSimLifecycle } from '../../apps/server/src/modules/billing/sim-lifecycle.service.ts';
import { createBillingProvider } from '../../apps/server/src/providers/billing/create-billing-provider.ts';
import { createLocalSimPlatform } from '../../apps/server/src/providers/connectivity/local-sim-platform.ts';
import { createNotifier } from '../../apps/server/src/modules/notifications/notifier.ts';
import { createOutboxMailer } from '../../apps/server/src/providers/mail/outbox-mailer.ts';
import { metric, type Metric, type Scenario } from '../lib/types.ts';

const name = 'billing-cycle';

const sizesFromEnv = (key: string, fallback: number[]) => {
  const sizes = (process.env[key] ?? '')
    .split(',')
    .map((size) => Number(size.trim()))
    .filter((size) => Number.isInteger(size) && size > 0);
  return sizes.length > 0 ? sizes : fallback;
};
const postgresSizes = sizesFromEnv('BENCH_BILLING_SUBSCRIPTIONS', [10_000, 100_000]);
const pgliteSizes = sizesFromEnv('BENCH_BILLING_PGLITE_SUBSCRIPTIONS', [10_000]);
const postgresServerUrl = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432';
const databases = (process.env.BENCH_BILLING_DATABASES || 'pglite,postgres').split(',');

/** The renewal day: every subscription's period ends at midnight UTC of it. */
const renewalDay = new Date('2026-04-01T00:00:00Z');
/** Real time the day before; the test clock is then moved one day, to noon of the renewal day. */
const dayBefore = new Date('2026-03-31T12:00:00Z');
const dayMs = 24 * 60 * 60 * 1000;

const silentLog = {
  level: 'silent',
  fatal: () => undefined,
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  trace: () => undefined,
  silent: () => undefined,
  child: () => silentLog,
} as unknown as FastifyBaseLogger;

/** Customers, billing customers, cards, SIMs and subscriptions, set-based (seconds, not minutes). */
async function seed(database: DatabaseHandle, count: number) {
  const { db } = database;
  await seedCatalogue(db);
  await db.execute(sql`
    insert into customers (email, created_at)
    select 'renew-' || lpad(n::text, 6, '0') || '@example.com', ${dayBefore.toISOString()}::timestamptz - interval '1 year'
    from generate_series(1, ${count}::int) n`);
  await db.execute(sql`
    insert into billing_customers (id, customer_id, provider, email)
    select 'cus_renew_' || n, c.id, 'local', c.email
    from generate_series(1, ${count}::int) n
    join customers c on c.email = 'renew-' || lpad(n::text, 6, '0') || '@example.com'`);
  await db.execute(sql`
    insert into payment_methods (id, billing_customer_id, brand, last4, exp_month, exp_year, is_default)
    select 'pm_renew_' || n, 'cus_renew_' || n, 'visa', '4242', 12, 2034, true
    from generate_series(1, ${count}::int) n`);
  await db.execute(sql`
    insert into sims (iccid, state, customer_id, billing_customer_id, nickname, activated_at)
    select '894477' || lpad(n::text, 13, '0'), 'active', b.customer_id, b.id, 'Camera ' || n,
      ${renewalDay.toISOString()}::timestamptz - interval '1 month'
    from generate_series(1, ${count}::int) n
    join billing_customers b on b.id = 'cus_renew_' || n`);
  await db.execute(sql`
    insert into subscriptions (id, billing_customer_id, sim_iccid, price_id, status,
      current_period_start, current_period_end, billing_cycle_anchor, created_at)
    select 'sub_renew_' || n, 'cus_renew_' || n, '894477' || lpad(n::text, 13, '0'),
      'price_standard_month_uk', 'active',
      ${renewalDay.toISOString()}::timestamptz - interval '1 month', ${renewalDay.toISOString()}::timestamptz,
      ${renewalDay.toISOString()}::timestamptz - interval '1 month',
      ${renewalDay.toISOString()}::timestamptz - interval '1 month'
    from generate_series(1, ${count}::int) n`);
  await db.execute(sql`analyze`);
}

interface Ledger {
  renewalInvoices: number;
  paidRenewalInvoices: number;
  succeededPayments: number;
  subscriptionsMovedOn: number;
  activeSubscriptions: number;
}

async function readLedger(database: DatabaseHandle): Promise<Ledger> {
  const [row] = await queryRows<Record<keyof Ledger, number | string>>(
    database.db,
    sql`
      select
        (select count(*) from invoices i where i.subscription_id like 'sub_renew_%'
            and i.period_start = ${renewalDay.toISOString()}::timestamptz) as "renewalInvoices",
        (select count(*) from invoices i where i.subscription_id like 'sub_renew_%'
            and i.period_start = ${renewalDay.toISOString()}::timestamptz
            and i.status = 'paid' and i.amount_paid = i.total and i.total > 0) as "paidRenewalInvoices",
        (select count(*) from payments p join invoices i on i.id = p.invoice_id
          where i.subscription_id like 'sub_renew_%' and p.status = 'succeeded') as "succeededPayments",
        (select count(*) from subscriptions s where s.id like 'sub_renew_%'
            and s.current_period_start = ${renewalDay.toISOString()}::timestamptz) as "subscriptionsMovedOn",
        (select count(*) from subscriptions s where s.id like 'sub_renew_%'
            and s.status = 'active') as "activeSubscriptions"`,
  );
  return Object.fromEntries(
    Object.entries(row ?? {}).map(([key, value]) => [key, Number(value)]),
  ) as unknown as Ledger;
}

interface RunResult {
  subscriptions: number;
  /** PostgreSQL: each ledger table's size with its indexes, divided by its rows. */
  bytesPerRow: Record<string, number> | null;
  seedSeconds: number;
  cycleSeconds: number;
  renewed: number;
  ledger: Ledger;
}

/** Bytes per row of the tables a renewal writes, for the operations guide's sizing. */
async function ledgerRowSizes(database: DatabaseHandle, log: (message: string) => void) {
  await database.executeSql('vacuum analyze invoices, invoice_lines, payments, subscriptions');
  const sizes: Record<string, number> = {};
  for (const table of ['invoices', 'invoice_lines', 'payments', 'subscriptions']) {
    const { rows } = await database.executeSql(
      `select pg_total_relation_size('${table}')::float8 / greatest(count(*), 1) as size from ${table}`,
    );
    sizes[table] = Math.round(Number((rows[0] as { size: number }).size));
  }
  log(`${database.kind}: bytes per row with indexes ${JSON.stringify(sizes)}`);
  return sizes;
}

/** Seeds, moves the test clock to the renewal day, runs the cycle once and checks the ledger. */
async function measure(
  database: DatabaseHandle,
  subscriptionCount: number,
  log: (message: string) => void,
) {
  const seedStarted = performance.now();
  await seed(database, subscriptionCount);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`${database.kind}: seeded ${subscriptionCount} subscriptions in ${seedSeconds.toFixed(1)} s`);

  const clock = new ManualClock(dayBefore);
  const config = testConfig({ publicUrl: 'http://portal.bench' });
  const { provider, engine, stripe } = createBillingProvider(config, {
    db: database.db,
    clock,
    log: silentLog,
  });
  const context = createBillingServiceContext({
    db: database.db,
    billing: provider,
    connectivity: createLocalSimPlatform({ db: database.db, clock }),
    // The dunning e-mails go to the outbox through the notifier, as in the app (decision 122).
    notifier: createNotifier({
      db: database.db,
      mailer: createOutboxMailer(database.db),
      clock,
      jobQueue: { send: async () => true },
      log: { warn: () => {} },
    }),
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    log: silentLog,
  });
  const simLifecycle = createSimLifecycle(context);
  provider.onEvent((event) => simLifecycle.handleEvent(event));
  const billing = {
    engine,
    ...createBillingCycle({
      db: database.db,
      provider,
      engine,
      stripe,
      simLifecycle,
      runAlone: (key, work) => database.withAdvisoryLock(key, work),
    }),
  };
  if (!billing.engine) throw new Error('The bench needs the local billing engine');
  // The cycle has run up to the day before (nothing due), as the job would have.
  await billing.runCycle();
  await billing.engine.clock.advance(dayMs);

  const started = performance.now();
  const { renewed } = await billing.runCycle();
  const cycleSeconds = (performance.now() - started) / 1000;
  const ledger = await readLedger(database);
  log(
    `${database.kind}: one cycle renewed ${renewed} in ${cycleSeconds.toFixed(1)} s ` +
      `(${(renewed / cycleSeconds).toFixed(0)}/s); ledger ${JSON.stringify(ledger)}`,
  );
  const expected = subscriptionCount;
  const wrong = Object.entries({ renewed, ...ledger }).filter(([, value]) => value !== expected);
  if (wrong.length > 0) {
    throw new Error(
      `${database.kind}: expected ${expected} renewals paid, got ${wrong
        .map(([key, value]) => `${key}=${value}`)
        .join(', ')}`,
    );
  }
  const bytesPerRow = database.kind === 'postgres' ? await ledgerRowSizes(database, log) : null;
  return {
    subscriptions: subscriptionCount,
    seedSeconds,
    cycleSeconds,
    renewed,
    ledger,
    bytesPerRow,
  } satisfies RunResult;
}

async function onPglite(subscriptionCount: number, log: (message: string) => void) {
  const database = await openDatabase({ kind: 'memory' });
  try {
    return await measure(database, subscriptionCount, log);
  } finally {
    await database.close();
  }
}

/** null when no PostgreSQL server answers at BENCH_POSTGRES_URL. */
async function onPostgres(
  subscriptionCount: number,
  log: (message: string) => void,
): Promise<RunResult | null> {
  const databaseName = `bench_billing_${process.pid}_${subscriptionCount}`;
  const admin = new pg.Client({ connectionString: `${postgresServerUrl}/postgres` });
  try {
    await admin.connect();
  } catch (error) {
    log(`no PostgreSQL at ${postgresServerUrl} (${String(error)}): skipped`);
    return null;
  }
  try {
    await admin.query(`drop database if exists ${databaseName}`);
    await admin.query(`create database ${databaseName}`);
    const database = await openDatabase({
      kind: 'postgres',
      url: `${postgresServerUrl}/${databaseName}`,
    });
    try {
      return await measure(database, subscriptionCount, log);
    } finally {
      await database.close();
    }
  } finally {
    await admin.query(`drop database if exists ${databaseName} with (force)`).catch(() => {});
    await admin.end();
  }
}

function metricsOf(label: string, result: RunResult): Metric[] {
  const count = result.subscriptions;
  return [
    metric(
      name,
      `${label}: one cycle, ${count} renewals on one day`,
      Number(result.cycleSeconds.toFixed(1)),
      's',
    ),
    metric(
      name,
      `${label}: ${count} renewal invoices raised and paid`,
      result.ledger.paidRenewalInvoices,
      '',
      {
        atLeast: count,
        atMost: count,
      },
    ),
    metric(
      name,
      `${label}: ${count} renewals, per second`,
      Math.round(result.renewed / result.cycleSeconds),
      '/s',
    ),
  ];
}

const scenario: Scenario = {
  name,
  async run(context) {
    const metrics: Metric[] = [];
    const details: Record<string, unknown> = {};
    if (databases.includes('pglite')) {
      for (const size of pgliteSizes) {
        const pglite = await onPglite(size, context.log);
        details[`pglite-${size}`] = pglite;
        metrics.push(...metricsOf('PGlite', pglite));
      }
    }
    if (!databases.includes('postgres')) return { metrics, details };
    for (const size of postgresSizes) {
      const postgres = await onPostgres(size, context.log);
      details[`postgres-${size}`] = postgres;
      if (postgres) {
        metrics.push(...metricsOf('PostgreSQL', postgres));
      } else {
        metrics.push({
          ...metric(name, 'PostgreSQL: one cycle', null, 's'),
          note: `no PostgreSQL server at ${postgresServerUrl} (BENCH_POSTGRES_URL)`,
        });
        break;
      }
    }
    return { metrics, details };
  },
};

export default scenario;
