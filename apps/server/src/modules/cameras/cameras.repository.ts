import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
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
   * A customer's cameras (SIMs out of stock), each with its newest subscription, plan and use
   * in `month` (its first day), in the order they were added. One statement: per SIM, index
   * lookups on subscriptions (sim_iccid) and on monthly_usage's primary key (sim_iccid, month),
   * the roll-up of daily_usage kept by a trigger.
   */
  listCameras: (executor: Executor, customerId: string, month: string) =>
    queryRows<CameraRow>(
      executor,
      sql`
      select s.iccid, s.nickname, s.state, s.is_barred, s.billing_customer_id,
        (extract(epoch from s.activated_at) * 1000)::float8 as activated_at_ms,
        sub.id as subscription_id, sub.status,
        extract(epoch from sub.current_period_end)::float8 as current_period_end_s,
        sub.pause_starts_on::text as pause_starts_on,
        sub.pause_resumes_on::text as pause_resumes_on,
        p.interval, pr.name as product_name, pr.data_allowance_gb,
        coalesce(usage.bytes, 0)::float8 as month_bytes
      from sims s
      left join lateral (
        select id, status, current_period_end, pause_starts_on, pause_resumes_on, price_id
        from subscriptions
        where sim_iccid = s.iccid
        order by created_at desc
        limit 1
      ) sub on true
      left join prices p on p.id = sub.price_id
      left join products pr on pr.id = p.product_id
      left join monthly_usage usage on usage.sim_iccid = s.iccid and usage.month = ${month}::date
      where s.customer_id = ${customerId} and s.state <> 'stock'
      order by s.created_at, s.iccid`,
    ),

  routerStatus: async (executor: Executor, iccid: string) => {
    const [row] = await executor.select().from(routerStatus).where(eq(routerStatus.simIccid, iccid));
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
