import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { currentSubscriptionFirst } from '../../db/current-subscription.ts';
import { routerStatus, sims, type SimState, type SubscriptionStatus } from '../../db/schema.ts';

export interface CameraRow {
  iccid: string;
  nickname: string | null;
  state: SimState;
  is_barred: boolean;
  billing_customer_id: string | null;
  activated_at_ms: number | null;
  subscription_id: string | null;
  status: SubscriptionStatus | null;
  current_period_end_s: number | null;
  pause_starts_on: string | null;
  pause_resumes_on: string | null;
  interval: string | null;
  product_name: string | null;
  data_allowance_gb: number | null;
  month_bytes: number;
}

export const camerasRepository = {
  /**
   * A customer's cameras (SIMs out of stock), each with its current subscription (db/current-subscription.ts) and plan and its
   * use in `month` (its first day), in the order they were added. One statement: the current
   * subscriptions of these SIMs in one pass (DISTINCT ON), usage from monthly_usage's primary key
   * (the roll-up of daily_usage kept by a trigger). The rows come back as one JSON array, which
   * both drivers parse far faster than a thousand rows of fifteen columns.
   */
  listCameras: async (executor: Executor, customerId: string, month: string) => {
    const [result] = await queryRows<{ cameras: CameraRow[] }>(
      executor,
      sql`
      with cams as materialized (
        select iccid, nickname, state, is_barred, billing_customer_id, activated_at, created_at
        from sims
        where customer_id = ${customerId} and state <> 'stock'
      ),
      latest as (
        select distinct on (sub.sim_iccid)
          sub.sim_iccid, sub.id, sub.status, sub.current_period_end, sub.pause_starts_on,
          sub.pause_resumes_on, p.interval, pr.name as product_name, pr.data_allowance_gb
        from subscriptions sub
        join cams on cams.iccid = sub.sim_iccid
        join prices p on p.id = sub.price_id
        join products pr on pr.id = p.product_id
        order by sub.sim_iccid, ${currentSubscriptionFirst('sub')}
      )
      select coalesce(json_agg(camera order by camera.added_at, camera.iccid), '[]') as cameras
      from (
        select s.iccid, s.nickname, s.state, s.is_barred, s.billing_customer_id,
          s.created_at as added_at,
          (extract(epoch from s.activated_at) * 1000)::float8 as activated_at_ms,
          sub.id as subscription_id, sub.status,
          extract(epoch from sub.current_period_end)::float8 as current_period_end_s,
          sub.pause_starts_on::text as pause_starts_on,
          sub.pause_resumes_on::text as pause_resumes_on,
          sub.interval, sub.product_name, sub.data_allowance_gb,
          coalesce(usage.bytes, 0)::float8 as month_bytes
        from cams s
        left join latest sub on sub.sim_iccid = s.iccid
        left join monthly_usage usage on usage.sim_iccid = s.iccid and usage.month = ${month}::date
      ) camera`,
    );
    return result?.cameras ?? [];
  },

  routerStatus: async (executor: Executor, iccid: string) => {
    const [row] = await executor
      .select()
      .from(routerStatus)
      .where(eq(routerStatus.simIccid, iccid));
    return row;
  },

  /** Sets the nickname of the customer's SIM; undefined when it is not theirs. */
  updateNickname: async (
    executor: Executor,
    customerId: string,
    iccid: string,
    nickname: string,
    now: Date,
  ) => {
    const [row] = await executor
      .update(sims)
      .set({ nickname, updatedAt: now })
      .where(and(eq(sims.iccid, iccid), eq(sims.customerId, customerId)))
      .returning({ iccid: sims.iccid, nickname: sims.nickname });
    return row;
  },
};
