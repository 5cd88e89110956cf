import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import {
  currentSubscriptionFirst,
  currentSubscriptionOrder,
} from '../../db/current-subscription.ts';
import {
  routerStatus,
  sims,
  subscriptions,
  type PlanTier,
  type SimState,
  type SubscriptionStatus,
} from '../../db/schema.ts';

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
  tier: PlanTier | null;
  data_allowance_gb: number | null;
  month_bytes: number;
  /** The open silence's start (decision 094), as epoch milliseconds; null when heard. */
  silent_since_ms: number | null;
  /** This month's open data cap's start (decision 095), epoch milliseconds; null when none. */
  capped_at_ms: number | null;
  /** An overdue camera's unpaid invoices and saved cards (decision 113); null otherwise. */
  unpaid: UnpaidRow | null;
  /** When the SIM was switched off (terminated), epoch milliseconds; null while it is not. */
  terminated_at_ms: number | null;
  /** Its livestream schedule is switched on (livestreams.is_active). */
  is_livestreaming: boolean;
  /** It has a livestream set up (configured, or switched on): managed, not set up again. */
  has_livestream: boolean;
}

/** What is unpaid on an overdue camera's billing account, and the cards a charge could use. */
export interface UnpaidRow {
  amountDue: number;
  currency: string;
  /** The oldest unpaid invoice's raising, epoch milliseconds. */
  raisedAtMs: number;
  attemptCount: number;
  /** Saved cards, default first, then newest first. */
  cards: { last4: string; expMonth: number; expYear: number; createdAtMs: number }[];
}

/** UnpaidRow as the statement returns it: amount, currency, raised, attempts, cards. */
type UnpaidTuple = [
  amountDue: number,
  currency: string,
  raisedAtMs: number,
  attemptCount: number,
  cards: [last4: string, expMonth: number, expYear: number, createdAtMs: number][],
];

/**
 * One camera as the statement returns it: a positional array (no key repeated a thousand times),
 * in CameraRow's order with the price's id in place of its plan fields.
 */
type CameraTuple = [
  iccid: string,
  nickname: string | null,
  state: SimState,
  isBarred: boolean,
  billingCustomerId: string | null,
  activatedAtMs: number | null,
  subscriptionId: string | null,
  status: SubscriptionStatus | null,
  currentPeriodEndS: number | null,
  pauseStartsOn: string | null,
  pauseResumesOn: string | null,
  priceId: string | null,
  monthBytes: number,
  terminatedAtMs: number | null,
];

/** The plan fields of each price the cameras' subscriptions use, by price id. */
type PlanTuple = [interval: string, productName: string, dataAllowanceGb: number, tier: PlanTier];

function unpaidRowOf(tuple: UnpaidTuple | undefined): UnpaidRow | null {
  if (!tuple) return null;
  const [amountDue, currency, raisedAtMs, attemptCount, cards] = tuple;
  return {
    amountDue: Number(amountDue),
    currency,
    raisedAtMs: Number(raisedAtMs),
    attemptCount: Number(attemptCount),
    cards: cards.map(([last4, expMonth, expYear, createdAtMs]) => ({
      last4,
      expMonth,
      expYear,
      createdAtMs: Number(createdAtMs),
    })),
  };
}

export const camerasRepository = {
  /**
   * A customer's cameras (SIMs out of stock), each with its current subscription
   * (db/current-subscription.ts) and plan and its use in `month` (its first day), in the order
   * they were added. One statement, shaped for 1,000 cameras (docs/decisions/089): the SIMs'
   * current subscriptions in one scan of the subscriptions' SIM index for all of them
   * (`= any(array)`, in index order, rather than a probe per SIM), this month's use the same way
   * from monthly_usage's primary key (the roll-up of daily_usage kept by a trigger), so nothing
   * reads other customers' rows; the plans once per price, not joined per camera. It all comes
   * back as one JSON value of positional arrays, which both drivers parse far faster than a
   * thousand rows of fifteen columns. The activation instant is sent as whole milliseconds from
   * date_part's float seconds (cheap), rounded the way `new Date(ms)` truncates the exact value:
   * the float is within a few ten-thousandths of a millisecond of it, and microseconds never
   * come closer than a thousandth below the next millisecond.
   */
  listCameras: async (
    executor: Executor,
    customerId: string,
    month: string,
  ): Promise<CameraRow[]> => {
    const [result] = await queryRows<{
      plans: {
        prices: Record<string, PlanTuple> | null;
        cameras: CameraTuple[];
        silences: Record<string, number> | null;
        caps: Record<string, number> | null;
        unpaid: Record<string, UnpaidTuple> | null;
        streams: Record<string, boolean> | null;
      };
    }>(
      executor,
      sql`
      with cams as materialized (
        select iccid, nickname, state, is_barred, billing_customer_id, activated_at, created_at,
          terminated_at
        from sims
        where customer_id = ${customerId} and state <> 'stock'
      ),
      subs as (
        select distinct on (sub.sim_iccid)
          sub.sim_iccid, sub.id, sub.status, sub.current_period_end, sub.pause_starts_on,
          sub.pause_resumes_on, sub.price_id
        from subscriptions sub
        where sub.sim_iccid = any(array(select iccid from cams))
        order by sub.sim_iccid, ${currentSubscriptionFirst('sub')}
      ),
      usage as (
        select sim_iccid, bytes
        from monthly_usage
        where month = ${month}::date and sim_iccid = any(array(select iccid from cams))
      )
      select json_build_object(
        'prices', (
          select json_object_agg(p.id, json_build_array(p.interval, pr.name, pr.data_allowance_gb, pr.tier))
          from prices p
          join products pr on pr.id = p.product_id
          where p.id in (select price_id from subs)
        ),
        -- Open silences and stops are few: a semi-join against the account's SIMs reads them
        -- once, where = any(array) would probe an index once per camera (1,000 probes each).
        'silences', (
          select json_object_agg(sim_iccid, floor(date_part('epoch', silent_since) * 1000))
          from camera_silences
          where ended_at is null and sim_iccid in (select iccid from cams)
        ),
        'caps', (
          select json_object_agg(sim_iccid, floor(date_part('epoch', capped_at) * 1000))
          from data_caps
          where month = left(${month}, 7) and capped_at is not null and resumed_at is null
            and sim_iccid in (select iccid from cams)
        ),
        -- Cameras with a livestream set up, and whether it is switched on, read like the
        -- silences (decisions 120, 140).
        'streams', (
          select json_object_agg(sim_iccid, is_active)
          from livestreams
          where (is_active or configured_at is not null) and sim_iccid in (select iccid from cams)
        ),
        -- Overdue cameras are few: their billing accounts' unpaid invoices and saved cards,
        -- which say why the bill is unpaid (decision 113).
        'unpaid', (
          select json_object_agg(o.billing_customer_id, json_build_array(
            o.due, o.currency, floor(date_part('epoch', o.raised) * 1000), o.attempts,
            coalesce((
              select json_agg(json_build_array(
                pm.last4, pm.exp_month, pm.exp_year, floor(date_part('epoch', pm.created_at) * 1000)
              ) order by pm.is_default desc, pm.created_at desc)
              from payment_methods pm
              where pm.billing_customer_id = o.billing_customer_id and pm.detached_at is null
            ), '[]')
          ))
          from (
            select i.billing_customer_id, sum(i.amount_due - i.amount_paid) as due,
              min(i.currency) as currency, min(i.created_at) as raised,
              max(i.attempt_count) as attempts
            from invoices i
            where i.status = 'open' and i.billing_customer_id in (
              select c.billing_customer_id
              from cams c
              join subs sub on sub.sim_iccid = c.iccid
              where sub.status in ('past_due', 'overdue')
            )
            group by i.billing_customer_id
          ) o
        ),
        'cameras', coalesce((
          select json_agg(json_build_array(
            c.iccid, c.nickname, c.state, c.is_barred, c.billing_customer_id,
            floor(date_part('epoch', c.activated_at) * 1000 + 0.0005),
            sub.id, sub.status, date_part('epoch', sub.current_period_end),
            sub.pause_starts_on, sub.pause_resumes_on, sub.price_id,
            coalesce(usage.bytes, 0),
            floor(date_part('epoch', c.terminated_at) * 1000)
          ) order by c.created_at, c.iccid)
          from cams c
          left join subs sub on sub.sim_iccid = c.iccid
          left join usage on usage.sim_iccid = c.iccid
        ), '[]')
      ) as plans`,
    );
    if (!result) return [];
    const prices = result.plans.prices ?? {};
    const silences = result.plans.silences ?? {};
    const caps = result.plans.caps ?? {};
    const unpaid = result.plans.unpaid ?? {};
    const streams = result.plans.streams ?? {};
    return result.plans.cameras.map((camera): CameraRow => {
      // A subscription always has a price (foreign key), and a price its product.
      const plan = camera[11] === null ? undefined : prices[camera[11]];
      return {
        iccid: camera[0],
        nickname: camera[1],
        state: camera[2],
        is_barred: camera[3],
        billing_customer_id: camera[4],
        activated_at_ms: camera[5],
        subscription_id: camera[6],
        status: camera[7],
        current_period_end_s: camera[8],
        pause_starts_on: camera[9],
        pause_resumes_on: camera[10],
        interval: plan?.[0] ?? null,
        product_name: plan?.[1] ?? null,
        data_allowance_gb: plan?.[2] ?? null,
        tier: plan?.[3] ?? null,
        month_bytes: camera[12],
        silent_since_ms: silences[camera[0]] ?? null,
        capped_at_ms: caps[camera[0]] ?? null,
        unpaid: camera[4] === null ? null : unpaidRowOf(unpaid[camera[4]]),
        terminated_at_ms: camera[13],
        is_livestreaming: streams[camera[0]] === true,
        has_livestream: camera[0] in streams,
      };
    });
  },

  /** The SIM's current subscription's status and pause (db/current-subscription.ts). */
  currentSubscription: async (executor: Executor, iccid: string) => {
    const [row] = await executor
      .select({
        status: subscriptions.status,
        pauseStartsOn: subscriptions.pauseStartsOn,
        pauseResumesOn: subscriptions.pauseResumesOn,
      })
      .from(subscriptions)
      .where(eq(subscriptions.simIccid, iccid))
      .orderBy(currentSubscriptionOrder)
      .limit(1);
    return row;
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
