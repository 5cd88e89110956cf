/** The data caps' statements (decision 095): who is over the allowance, open caps, claims. */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { currentPlanOf } from '../../db/current-subscription.ts';

export interface CapCandidate {
  iccid: string;
  nickname: string | null;
  customer_id: string;
  owner_email: string;
  month_bytes: number;
  allowance_gb: number;
  product_name: string;
}

export interface OpenCap {
  iccid: string;
  nickname: string | null;
  customer_id: string;
  owner_email: string;
  month: string;
  capped_at_ms: number;
  /** Why it ends now: a new month began, or pausing at the allowance was turned off. */
  reason: 'new-month' | 'setting-off';
}

export const dataCapsRepository = {
  /**
   * Cameras set to pause data at the allowance whose use this month (`monthStart`, the roll-up's
   * month) reached their plan's allowance and that have no cap row for `month` yet (a camera
   * resumed this month keeps its row, so it is not stopped again).
   */
  capCandidates: (executor: Executor, input: { month: string; monthStart: string }) =>
    queryRows<CapCandidate>(
      executor,
      sql`
      select s.iccid, s.nickname, s.customer_id, c.email as owner_email,
        used.bytes::float8 as month_bytes, plan.data_allowance_gb as allowance_gb,
        plan.product_name
      from camera_watch_settings w
      join sims s on s.iccid = w.sim_iccid
      join customers c on c.id = s.customer_id
      join monthly_usage used on used.sim_iccid = s.iccid and used.month = ${input.monthStart}::date
      join lateral ${currentPlanOf(sql`s.iccid`)} plan on true
      where w.pause_data_at_allowance
        and s.state = 'active'
        and plan.status in ('active', 'past_due', 'overdue')
        and plan.data_allowance_gb > 0
        and used.bytes >= plan.data_allowance_gb * 1e9
        and not exists (
          select 1 from data_caps d where d.sim_iccid = s.iccid and d.month = ${input.month}
        )
      order by s.iccid`,
    ),

  /** Claims this month's cap for the SIM; false when a cap row already exists (another run, or resumed). */
  claimCap: async (executor: Executor, input: { iccid: string; month: string; now: Date }) => {
    const rows = await queryRows(
      executor,
      sql`
      insert into data_caps (sim_iccid, month, capped_at, updated_at)
      values (${input.iccid}, ${input.month}, ${input.now.toISOString()}::timestamptz,
        ${input.now.toISOString()}::timestamptz)
      on conflict do nothing
      returning sim_iccid`,
    );
    return rows.length > 0;
  },

  /** Withdraws a claim whose stop the platform refused or could not make (the next run tries again). */
  releaseCap: (executor: Executor, input: { iccid: string; month: string }) =>
    queryRows(
      executor,
      sql`delete from data_caps
        where sim_iccid = ${input.iccid} and month = ${input.month} and resumed_at is null`,
    ),

  /**
   * Caps still holding that should end: those of an earlier month (the allowance is new), and
   * this month's of a camera no longer set to pause at the allowance.
   */
  capsToEnd: (executor: Executor, month: string) =>
    queryRows<OpenCap>(
      executor,
      sql`
      select d.sim_iccid as iccid, s.nickname, s.customer_id, c.email as owner_email, d.month,
        floor(date_part('epoch', d.capped_at) * 1000)::float8 as capped_at_ms,
        case when d.month < ${month} then 'new-month' else 'setting-off' end as reason
      from data_caps d
      join sims s on s.iccid = d.sim_iccid
      join customers c on c.id = s.customer_id
      left join camera_watch_settings w on w.sim_iccid = d.sim_iccid
      where d.capped_at is not null and d.resumed_at is null
        and (d.month < ${month} or not coalesce(w.pause_data_at_allowance, false))
      order by d.sim_iccid, d.month`,
    ),

  /** Marks a cap ended (data back on); false when it already was (the click and a run racing). */
  endCap: async (executor: Executor, input: { iccid: string; month: string; now: Date }) => {
    const rows = await queryRows(
      executor,
      sql`
      update data_caps set resumed_at = ${input.now.toISOString()}::timestamptz,
        updated_at = ${input.now.toISOString()}::timestamptz
      where sim_iccid = ${input.iccid} and month = ${input.month}
        and capped_at is not null and resumed_at is null
      returning sim_iccid`,
    );
    return rows.length > 0;
  },

  /** This month's cap row of one SIM. */
  capOf: async (executor: Executor, iccid: string, month: string) => {
    const [row] = await queryRows<{
      capped_at_ms: number | null;
      resumed_at_ms: number | null;
    }>(
      executor,
      sql`select floor(date_part('epoch', capped_at) * 1000)::float8 as capped_at_ms,
          floor(date_part('epoch', resumed_at) * 1000)::float8 as resumed_at_ms
        from data_caps
        where sim_iccid = ${iccid} and month = ${month}`,
    );
    return row;
  },

  /** Drops the customer's cached camera list in every process (plansV2 carries `dataCap`). */
  notifyCameraChanges: (executor: Executor, customerId: string) =>
    queryRows(executor, sql`select pg_notify('camera_changes', ${customerId})`),
};
