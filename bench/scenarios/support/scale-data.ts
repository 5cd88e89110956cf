/**
 * Scale data for the plansV2 benchmark (issue 3): 10,000 SIMs with 400 days of daily usage each
 * (4 million rows), one account holding 1,000 of them (scale@example.com) and 900 accounts with
 * ten each. Written with set-based SQL straight into a database directory before the portal
 * starts on it (PGlite is single-process), with the change-notification triggers off while
 * loading, as a bulk import would.
 */
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../../apps/server/src/db/client.ts';
import { seedCatalogue } from '../../../apps/server/src/seed/demo.ts';

export const scaleAccountEmail = 'scale@example.com';
export const scaleSimCount = 10_000;
export const scaleAccountCameras = 1_000;
export const scaleUsageDays = 400;

/** Bulk-loads the scale data into a fresh database directory (or a PostgreSQL URL). */
export async function seedScaleData(
  location: { dataDir: string } | { url: string },
  log: (message: string) => void = () => undefined,
): Promise<void> {
  const database = await openDatabase(
    'url' in location
      ? { kind: 'postgres', url: location.url }
      : { kind: 'directory', dataDir: location.dataDir },
  );
  const { db } = database;
  const started = Date.now();
  try {
    await seedCatalogue(db);
    await db.execute(sql`set session_replication_role = replica`);
    await db.execute(sql`
      insert into customers (email, created_at)
      select ${scaleAccountEmail}, now() - interval '420 days'
      union all
      select 'scale-' || lpad(i::text, 4, '0') || '@example.com', now() - interval '420 days'
      from generate_series(1, ${(scaleSimCount - scaleAccountCameras) / 10}) i`);
    await db.execute(sql`
      create temporary table scale_sims as
      select n,
        '894499' || lpad(n::text, 13, '0') as iccid,
        'cus_scale_' || n as billing_customer_id,
        (select id from customers where email = case when n <= ${scaleAccountCameras}
          then ${scaleAccountEmail}
          else 'scale-' || lpad(((n - ${scaleAccountCameras} - 1) / 10 + 1)::text, 4, '0') || '@example.com'
        end) as customer_id,
        (array['light', 'standard', 'heavy'])[1 + n % 3] as tier,
        case when n % 7 = 0 then 'year' else 'month' end as billing_interval,
        case when n % 50 = 1 then 'terminated' when n % 20 = 0 then 'paused' else 'active' end as sim_state,
        case when n % 50 = 1 then 'canceled' when n % 20 = 0 then 'paused'
          when n % 31 = 0 then 'past_due' when n % 37 = 0 then 'overdue'
          when n % 43 = 0 then 'canceled' else 'active' end as status
      from generate_series(1, ${scaleSimCount}) n`);
    await db.execute(sql`
      insert into billing_customers (id, customer_id, provider, email)
      select s.billing_customer_id, s.customer_id, 'local', c.email
      from scale_sims s join customers c on c.id = s.customer_id`);
    await db.execute(sql`
      insert into sims (iccid, state, customer_id, billing_customer_id, nickname, activated_at,
        terminated_at, created_at)
      select iccid, sim_state, customer_id, billing_customer_id, 'Camera ' || n,
        now() - interval '400 days', case when sim_state = 'terminated' then now() - interval '30 days' end,
        now() - interval '400 days' + n * interval '1 second'
      from scale_sims`);
    await db.execute(sql`
      insert into subscriptions (id, billing_customer_id, sim_iccid, price_id, status,
        current_period_start, current_period_end, billing_cycle_anchor, pause_starts_on,
        pause_resumes_on, created_at)
      select 'sub_scale_' || n, billing_customer_id, iccid,
        'price_' || tier || '_' || billing_interval || '_uk', status,
        date_trunc('month', now()), date_trunc('month', now()) + interval '1 month',
        date_trunc('month', now()),
        case when status = 'paused' then date_trunc('month', now())::date end,
        case when status = 'paused' then (date_trunc('month', now()) + interval '2 months')::date end,
        now() - interval '400 days'
      from scale_sims`);
    // Each camera's card and a year of its bills: a past due or overdue subscription's latest
    // is unpaid and was tried, so plansV2 says why for those (decision 113).
    await db.execute(sql`
      insert into payment_methods (id, billing_customer_id, brand, last4, exp_month, exp_year,
        is_default, created_at)
      select 'pm_scale_' || n, billing_customer_id, 'visa', lpad((n % 10000)::text, 4, '0'),
        1 + n % 12, extract(year from now())::int + (case when n % 3 = 0 then -1 else 2 end),
        true, now() - interval '400 days'
      from scale_sims`);
    await db.execute(sql`
      insert into invoices (id, billing_customer_id, subscription_id, number, status, amount_due,
        amount_paid, currency, description, attempt_count, created_at)
      select 'in_scale_' || s.n || '_' || m, s.billing_customer_id, 'sub_scale_' || s.n,
        'SCALE-' || s.n || '-' || m,
        case when m = 0 and s.status in ('past_due', 'overdue') then 'open' else 'paid' end,
        1200, case when m = 0 and s.status in ('past_due', 'overdue') then 0 else 1200 end,
        'gbp', '1 × plan', 1, date_trunc('month', now()) - m * interval '1 month'
      from scale_sims s
      cross join generate_series(0, 11) m
      where s.n <= ${scaleAccountCameras}`);
    log(`  accounts, SIMs and subscriptions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // Usage in slices of 1,000 SIMs (400,000 rows each) to keep each statement's memory small:
    // each SIM uses 30% to 110% of its plan's allowance a month, varying day to day.
    for (let from = 1; from <= scaleSimCount; from += 1000) {
      await db.execute(sql`
        insert into daily_usage (sim_iccid, day, bytes)
        select s.iccid, d::date,
          (pr.data_allowance_gb * 1e9 / 30
            * (0.3 + (abs(hashtext(s.iccid || d::date::text)) % 800) / 1000.0))::bigint
        from scale_sims s
        join products pr on pr.tier = s.tier
        cross join generate_series(
          (current_date - ${scaleUsageDays - 1}::int)::timestamp,
          current_date::timestamp,
          interval '1 day'
        ) d
        where s.n between ${from}::int and ${from + 999}::int`);
    }
    // The roll-up trigger was off with the others: fill the roll-up as it would have.
    await db.execute(sql`
      insert into monthly_usage (sim_iccid, month, bytes)
      select sim_iccid, date_trunc('month', day::timestamp)::date, sum(bytes)
      from daily_usage group by 1, 2`);
    // Usage alerts for this month went out as the usage accrued.
    await db.execute(sql`
      insert into usage_alerts (sim_iccid, month, threshold_percent)
      select m.sim_iccid, to_char(m.month, 'YYYY-MM'), t.threshold
      from monthly_usage m
      join scale_sims s on s.iccid = m.sim_iccid
      join products pr on pr.tier = s.tier
      cross join (values (80), (100)) t(threshold)
      where m.month = date_trunc('month', current_date::timestamp)::date
        and m.bytes * 100 >= pr.data_allowance_gb * 1e9 * t.threshold`);
    await db.execute(sql`set session_replication_role = origin`);
    await db.execute(sql`analyze`);
    log(
      `  ${scaleSimCount * scaleUsageDays} usage rows in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    await database.close();
  }
}
