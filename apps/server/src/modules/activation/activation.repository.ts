import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { prices, products, sims, subscriptions, type Region } from '../../db/schema.ts';

export type SimRow = typeof sims.$inferSelect;

export const activationRepository = {
  findSimByCode: async (executor: Executor, activationCode: string) => {
    const [row] = await executor.select().from(sims).where(eq(sims.activationCode, activationCode));
    return row;
  },

  findSimByIccid: async (executor: Executor, iccid: string) => {
    const [row] = await executor.select().from(sims).where(eq(sims.iccid, iccid));
    return row;
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

  /** Stock SIMs whose activation code is one of `codes`. */
  stockSimsWithCodes: async (executor: Executor, codes: string[]) =>
    executor
      .select({ iccid: sims.iccid })
      .from(sims)
      .where(and(inArray(sims.activationCode, codes), eq(sims.state, 'stock'))),

  /**
   * Counts one wrong guess near a SIM's code in a window that restarts once it has passed (the
   * `rate_limits` table, shared by every process); returns the count in the current window.
   */
  countNearMiss: async (
    executor: Executor,
    input: { iccid: string; now: Date; windowSeconds: number },
  ): Promise<number> => {
    const resetAt = new Date(input.now.getTime() + input.windowSeconds * 1000).toISOString();
    const now = input.now.toISOString();
    const [row] = await queryRows<{ hits: number }>(
      executor,
      sql`
      insert into rate_limits (key, hits, reset_at)
      values (${`activation-code-near-miss:${input.iccid}`}, 1, ${resetAt})
      on conflict (key) do update set
        hits = case when rate_limits.reset_at <= ${now} then 1 else rate_limits.hits + 1 end,
        reset_at = case when rate_limits.reset_at <= ${now} then excluded.reset_at else rate_limits.reset_at end
      returning hits`,
    );
    return Number(row?.hits ?? 0);
  },

  recordCodeFailures: async (
    executor: Executor,
    input: { iccid: string; failures: number; lockedUntil: Date | null; now: Date },
  ) => {
    await executor
      .update(sims)
      .set({
        failedCodeAttempts: input.failures,
        ...(input.lockedUntil && { codeLockedUntil: input.lockedUntil }),
        updatedAt: input.now,
      })
      .where(eq(sims.iccid, input.iccid));
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
