import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { prices, products, sims, subscriptions, type Region } from '../../db/schema.ts';

export type SimRow = typeof sims.$inferSelect;

/** A SIM the wizard looked up, with whether someone has already bought a plan for it. */
export interface ActivationCandidate {
  sim: SimRow;
  hasLiveSubscription: boolean;
}

const hasLiveSubscriptionSql = sql<boolean>`exists (
  select 1 from ${subscriptions}
  where ${subscriptions.simIccid} = ${sims.iccid} and ${subscriptions.status} <> 'canceled')`;

export const activationRepository = {
  /** The SIM with this code or number and its subscription state, in one query. */
  findActivationCandidate: async (
    executor: Executor,
    by: { activationCode: string } | { iccid: string },
  ): Promise<ActivationCandidate | undefined> => {
    const [row] = await executor
      .select({ sim: sims, hasLiveSubscription: hasLiveSubscriptionSql })
      .from(sims)
      .where('iccid' in by ? eq(sims.iccid, by.iccid) : eq(sims.activationCode, by.activationCode));
    return row && { sim: row.sim, hasLiveSubscription: Boolean(row.hasLiveSubscription) };
  },

  /** Locks the SIM's row until the transaction ends: racing activations of one SIM queue here. */
  lockSim: async (executor: Executor, iccid: string) => {
    const [row] = await executor.select().from(sims).where(eq(sims.iccid, iccid)).for('update');
    return row;
  },

  /** Whether a subscription that is not canceled already exists for the SIM (bought, maybe not yet activated). */
  hasLiveSubscription: async (executor: Executor, iccid: string) => {
    const rows = await executor
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(and(eq(subscriptions.simIccid, iccid), ne(subscriptions.status, 'canceled')))
      .limit(1);
    return rows.length > 0;
  },

  /** The active prices of one pricing table, cheapest tier first, monthly before annual. */
  pricingTablePlans: async (executor: Executor, input: { region: Region; isSolar: boolean }) =>
    executor
      .select({ price: prices, product: products })
      .from(prices)
      .innerJoin(products, eq(products.id, prices.productId))
      .where(
        and(
          eq(prices.region, input.region),
          eq(prices.isSolar, input.isSolar),
          eq(prices.isActive, true),
          eq(products.isActive, true),
        ),
      )
      .orderBy(asc(products.dataAllowanceGb), asc(prices.interval)),
};
