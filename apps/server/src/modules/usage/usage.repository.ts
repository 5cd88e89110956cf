import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { currentPlanOf } from '../../db/current-subscription.ts';

export interface UsageAlertCandidate {
  iccid: string;
  customer_id: string;
  nickname: string | null;
  email: string;
  month_bytes: number;
  allowance_gb: number;
  product_name: string;
  activated_at_ms: number | null;
  /** The camera's chosen early-alert share (camera_watch_settings, 80 without a row); null: 100 % only. */
  alert_percent: number | null;
  /** Thresholds already e-mailed this month. */
  sent_thresholds: number[];
}

export const usageRepository = {
  /** Bytes per day for one SIM, days with data only, in order. */
  dailyBytes: (executor: Executor, iccid: string, fromDay: string, toDay: string) =>
    queryRows<{ day: string; bytes: number }>(
      executor,
      sql`
      select day::text as day, bytes::float8 as bytes
      from daily_usage
      where sim_iccid = ${iccid} and day >= ${fromDay}::date and day <= ${toDay}::date
      order by day`,
    ),

  /**
   * Customers' live cameras whose use this month reached their chosen alert share (or 100 %) of
   * a plan in force, with the thresholds already e-mailed. One statement over the month's
   * roll-up rows.
   */
  usageAlertCandidates: (
    executor: Executor,
    input: { month: string; monthStart: string; defaultAlertPercent: number },
  ) =>
    queryRows<UsageAlertCandidate>(
      executor,
      sql`
      with used as (
        select sim_iccid, bytes::float8 as bytes
        from monthly_usage
        where month = ${input.monthStart}::date and bytes > 0
      )
      select s.iccid, s.customer_id, s.nickname, c.email, used.bytes as month_bytes,
        plan.data_allowance_gb as allowance_gb, plan.product_name,
        (extract(epoch from s.activated_at) * 1000)::float8 as activated_at_ms,
        watch.alert_percent,
        coalesce(
          (select array_agg(a.threshold_percent order by a.threshold_percent)
           from usage_alerts a where a.sim_iccid = s.iccid and a.month = ${input.month}),
          '{}'
        ) as sent_thresholds
      from used
      join sims s on s.iccid = used.sim_iccid
      join customers c on c.id = s.customer_id
      join lateral ${currentPlanOf(sql`s.iccid`)} plan on true
      cross join lateral (
        select case when w.sim_iccid is null then ${input.defaultAlertPercent}::int
          else w.data_alert_percent end as alert_percent
        from (select 1) one
        left join camera_watch_settings w on w.sim_iccid = s.iccid
      ) watch
      where s.state <> 'terminated'
        and plan.status in ('active', 'past_due', 'overdue')
        and plan.data_allowance_gb > 0
        and used.bytes * 100 >= plan.data_allowance_gb * 1e9 * coalesce(watch.alert_percent, 100)
      order by s.iccid`,
    ),

  /** Records that a threshold was e-mailed; false when it already was (another run got there). */
  claimUsageAlert: async (
    executor: Executor,
    input: { iccid: string; month: string; thresholdPercent: number; now: Date },
  ) => {
    const rows = await queryRows(
      executor,
      sql`
      insert into usage_alerts (sim_iccid, month, threshold_percent, sent_at)
      values (${input.iccid}, ${input.month}, ${input.thresholdPercent}, ${input.now.toISOString()}::timestamptz)
      on conflict do nothing
      returning sim_iccid`,
    );
    return rows.length > 0;
  },

  /** Withdraws claims whose e-mail could not be sent, so a later run sends it. */
  releaseUsageAlerts: async (
    executor: Executor,
    input: { iccid: string; month: string; thresholds: number[] },
  ) => {
    for (const threshold of input.thresholds) {
      await queryRows(
        executor,
        sql`
        delete from usage_alerts
        where sim_iccid = ${input.iccid} and month = ${input.month}
          and threshold_percent = ${threshold}`,
      );
    }
  },
};
