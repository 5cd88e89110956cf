/**
 * Bytes per row of the tables that grow with the number of cameras (docs/operations.md, "Growing
 * from one farm to 100,000 cameras"), measured rather than guessed: a fresh, migrated PostgreSQL
 * database (bench_sizes_<pid> at BENCH_POSTGRES_URL, dropped after) gets BENCH_SIZE_ROWS
 * (100000) rows in each, shaped like the app's own (an ICCID, a day, a clip's storage key and
 * slot, a referrer host, an audit entry's details...), written set-based with triggers and
 * foreign keys off as a bulk import would. After VACUUM ANALYZE, each table's
 * pg_total_relation_size (heap, indexes and TOAST) is divided by its rows.
 *
 * The ledger's own tables (invoices, invoice_lines, payments) are measured with real rows by the
 * billing-cycle scenario on PostgreSQL.
 */
import pg from 'pg';
import { openDatabase } from '../../apps/server/src/db/client.ts';
import { postgresServerUrl, withBenchDatabase } from '../lib/postgres.ts';
import { metric, type Metric, type Scenario } from '../lib/types.ts';

const name = 'table-sizes';
const rows = Number(process.env.BENCH_SIZE_ROWS) || 100_000;

/** One set-based insert of `rows` rows (n = 1..rows) per table. */
const inserts: Record<string, string> = {
  daily_usage: `
    insert into daily_usage (sim_iccid, day, bytes)
    select '894477' || lpad((n % 1000)::text, 13, '0'), date '2026-01-01' + (n / 1000),
      (random() * 200e6)::bigint
    from generate_series(1, $1::int) n`,
  monthly_usage: `
    insert into monthly_usage (sim_iccid, month, bytes)
    select '894477' || lpad((n % 10000)::text, 13, '0'),
      (date '2020-01-01' + make_interval(months => n / 10000))::date, (random() * 6e9)::bigint
    from generate_series(1, $1::int) n`,
  clips: `
    insert into clips (livestream_id, storage_key, status, duration_seconds, size_bytes, slot,
      recorded_at)
    select l.id, 'livestreams/' || l.id || '/' || to_char(t, 'YYYY-MM-DD"T"HH24') || '-'
        || substr(md5(n::text), 1, 8) || '.mp4',
      'ready', 15, 1500000 + (random() * 1e6)::int, to_char(t, 'YYYY-MM-DD"T"HH24'), t
    from generate_series(1, $1::int) n
    cross join lateral (select md5((n % 1000)::text)::uuid as id) l
    cross join lateral (select timestamptz '2026-01-01' + make_interval(hours => n / 1000) as t) slot`,
  livestream_views: `
    insert into livestream_views (livestream_id, day, referrer_host, views)
    select md5((n % 1000)::text)::uuid, date '2026-01-01' + (n / 3000),
      (array['www.example-farm.co.uk', 'facebook.com', 'direct'])[1 + (n / 1000) % 3],
      1 + (random() * 40)::int
    from generate_series(1, $1::int) n`,
  audit_log: `
    insert into audit_log (at, actor_type, actor_id, action, subject_type, subject_id, details, ip)
    select timestamptz '2026-01-01' + make_interval(secs => n), 'customer',
      md5((n % 5000)::text)::uuid::text, 'livestream.schedule-changed', 'livestream',
      md5((n % 1000)::text)::uuid::text,
      jsonb_build_object('hours', jsonb_build_array(6, 12, 18),
        'days', jsonb_build_array('mon', 'tue', 'wed', 'thu', 'fri')),
      '203.0.113.' || (n % 250)
    from generate_series(1, $1::int) n`,
  rate_limits: `
    insert into rate_limits (key, hits, reset_at)
    select 'login-request:ip:198.51.' || (n / 250) || '.' || (n % 250), 1 + n % 20,
      timestamptz '2026-01-01' + make_interval(mins => n % 15)
    from generate_series(1, $1::int) n`,
};

interface TableSize {
  rows: number;
  totalBytes: number;
  bytesPerRow: number;
}

async function measureSizes(url: string, log: (message: string) => void) {
  // Migrated by the app's own code, then written through one session (replica role is per session).
  const database = await openDatabase({ kind: 'postgres', url });
  await database.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const sizes: Record<string, TableSize> = {};
  try {
    await client.query('set session_replication_role = replica');
    for (const text of Object.values(inserts)) await client.query(text, [rows]);
    await client.query('set session_replication_role = origin');
    await client.query('vacuum analyze');
    for (const table of Object.keys(inserts)) {
      const { rows: result } = await client.query<{ count: string; total: string }>(
        `select count(*) as count, pg_total_relation_size('${table}') as total from ${table}`,
      );
      const count = Number(result[0]?.count ?? 0);
      const totalBytes = Number(result[0]?.total ?? 0);
      sizes[table] = { rows: count, totalBytes, bytesPerRow: Math.round(totalBytes / count) };
      log(
        `${table}: ${count} rows, ${(totalBytes / 2 ** 20).toFixed(1)} MiB, ${sizes[table].bytesPerRow} B/row`,
      );
    }
  } finally {
    await client.end();
  }
  return sizes;
}

const scenario: Scenario = {
  name,
  async run(context) {
    const sizes = await withBenchDatabase('sizes', context.log, (url) =>
      measureSizes(url, context.log),
    );
    if (!sizes) {
      return {
        metrics: [
          {
            ...metric(name, 'bytes per row', null, 'B'),
            note: `no PostgreSQL server at ${postgresServerUrl} (BENCH_POSTGRES_URL)`,
          },
        ],
      };
    }
    const metrics: Metric[] = Object.entries(sizes).map(([table, size]) =>
      metric(name, `${table}: bytes per row (with indexes)`, size.bytesPerRow, 'B'),
    );
    return { metrics, details: sizes };
  },
};

export default scenario;
