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
