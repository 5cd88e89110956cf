/**
 * A SIM's current subscription, in one meaning for every query that picks one (docs/decisions/081):
 * its live subscription (any status but 'canceled') if it has one, else its newest; among equals
 * the newest by `created_at`, then by id, so two rows written in the same instant still give one
 * answer. A camera has one billing customer, so the same order picks a billing customer's current
 * subscription.
 */
import { sql, type SQL } from 'drizzle-orm';

/**
 * The ORDER BY terms that put the current subscription first, for the subscriptions table under
 * `alias` (e.g. `sub` in `from subscriptions sub`, or `"subscriptions"` in a query builder). Use
 * after `distinct on (alias.sim_iccid)` or `alias.sim_iccid`, or with `limit 1` for one SIM.
 */
export function currentSubscriptionFirst(alias: string): SQL {
  if (!/^(?:[a-z_][a-z0-9_]*|"[a-z_]+")$/.test(alias)) throw new Error(`Not an alias: ${alias}`);
  return sql.raw(
    `case when ${alias}.status = 'canceled' then 1 else 0 end, ${alias}.created_at desc, ${alias}.id desc`,
  );
}

/** The same order for the drizzle query builder over `subscriptions`. */
export const currentSubscriptionOrder = currentSubscriptionFirst('"subscriptions"');

/**
 * A SIM's current plan, as one lateral subquery every query that needs it joins (decision 170):
 * its current subscription (the order above) with that subscription's price and product. Join it
 * as `left join lateral ${currentPlanOf(sql`s.iccid`)} plan on true` (or `join lateral` to keep
 * only SIMs with a plan) and read `plan.status`, `plan.pause_starts_on`, `plan.pause_resumes_on`,
 * `plan.price_id`, `plan.interval`, `plan.product_name`, `plan.tier`, `plan.data_allowance_gb`
 * and `plan.product_metadata`. A probe per SIM: lists of a whole account's cameras read their
 * subscriptions in one scan instead (cameras.repository.ts, decision 089).
 */
export function currentPlanOf(simIccid: SQL): SQL {
  return sql`(
    select sub.id as subscription_id, sub.status, sub.pause_starts_on, sub.pause_resumes_on,
           sub.price_id, plan_price.interval, plan_product.name as product_name,
           plan_product.tier, plan_product.data_allowance_gb,
           plan_product.metadata as product_metadata
    from subscriptions sub
    join prices plan_price on plan_price.id = sub.price_id
    join products plan_product on plan_product.id = plan_price.product_id
    where sub.sim_iccid = ${simIccid}
    order by ${currentSubscriptionFirst('sub')}
    limit 1
  )`;
}
