/**
 * Reads of the billing read model (our tables), for the billing endpoints; the SIM's state as
 * billing sets it, and the subscription leases (subscription-lease.ts).
 */
import { and, asc, desc, eq, inArray, isNull, lt } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { currentSubscriptionOrder } from '../../db/current-subscription.ts';
import { availableCredit, creditNotePdfUrl, linesOfInvoices } from '@farmcam/billing-engine';
import {
  billingCustomers,
  creditNotes,
  idempotencyKeys,
  invoices,
  paymentMethods,
  prices,
  products,
  sims,
  subscriptions,
  type Region,
  type SimState,
} from '../../db/schema.ts';

/** The leases of subscription-lease.ts (idempotency_keys, this scope). */
const leaseScope = 'subscription-lease';
const leaseOf = (subscriptionId: string) =>
  and(eq(idempotencyKeys.scope, leaseScope), eq(idempotencyKeys.key, subscriptionId));

export type PlanRow = { price: typeof prices.$inferSelect; product: typeof products.$inferSelect };
export type SubscriptionWithPlan = {
  subscription: typeof subscriptions.$inferSelect;
  price: typeof prices.$inferSelect;
  product: typeof products.$inferSelect;
};

export const billingRepository = {
  /** The billing customer's current subscription (db/current-subscription.ts). */
  async currentSubscription(
    executor: Executor,
    billingCustomerId: string,
  ): Promise<SubscriptionWithPlan | undefined> {
    const [row] = await executor
      .select({ subscription: subscriptions, price: prices, product: products })
      .from(subscriptions)
      .innerJoin(prices, eq(prices.id, subscriptions.priceId))
      .innerJoin(products, eq(products.id, prices.productId))
      .where(eq(subscriptions.billingCustomerId, billingCustomerId))
      .orderBy(currentSubscriptionOrder)
      .limit(1);
    return row;
  },

  /** Plans on sale in one price list (region, solar or not), Light to Heavy, monthly first. */
  async plans(
    executor: Executor,
    list: { region: Region; isSolar: boolean; currency: string },
  ): Promise<PlanRow[]> {
    return executor
      .select({ price: prices, product: products })
      .from(prices)
      .innerJoin(products, eq(products.id, prices.productId))
      .where(
        and(
          eq(prices.region, list.region),
          eq(prices.isSolar, list.isSolar),
          eq(prices.currency, list.currency),
          eq(prices.isActive, true),
          eq(products.isActive, true),
        ),
      )
      .orderBy(asc(products.dataAllowanceGb), asc(prices.interval));
  },

  async paymentMethods(executor: Executor, billingCustomerId: string) {
    return executor
      .select()
      .from(paymentMethods)
      .where(
        and(
          eq(paymentMethods.billingCustomerId, billingCustomerId),
          isNull(paymentMethods.detachedAt),
        ),
      )
      .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.createdAt));
  },

  async invoices(executor: Executor, billingCustomerId: string) {
    return executor
      .select()
      .from(invoices)
      .where(eq(invoices.billingCustomerId, billingCustomerId))
      .orderBy(desc(invoices.createdAt), desc(invoices.number));
  },

  /** The lines of these invoices, in their order (docs/decisions/026). */
  invoiceLines: linesOfInvoices,

  /** Credit notes against these invoices, with their PDF addresses (relative). */
  async creditNotes(executor: Executor, invoiceIds: string[]) {
    if (invoiceIds.length === 0) return [];
    const rows = await executor
      .select()
      .from(creditNotes)
      .where(inArray(creditNotes.invoiceId, invoiceIds))
      .orderBy(asc(creditNotes.createdAt));
    return Promise.all(
      rows.map(async (row) => ({ ...row, pdfUrl: await creditNotePdfUrl(executor, row.id) })),
    );
  },

  /** The credit the next invoice takes off, and the customer's currency. */
  async creditBalance(executor: Executor, billingCustomerId: string) {
    const [customer] = await executor
      .select({ currency: billingCustomers.currency })
      .from(billingCustomers)
      .where(eq(billingCustomers.id, billingCustomerId));
    return {
      credit: await availableCredit(executor, billingCustomerId),
      currency: customer?.currency ?? 'gbp',
    };
  },

  /** The camera (SIM) a billing account pays for: its newest, should it have had several. */
  async simOfBillingCustomer(executor: Executor, billingCustomerId: string) {
    const [row] = await executor
      .select()
      .from(sims)
      .where(eq(sims.billingCustomerId, billingCustomerId))
      .orderBy(desc(sims.createdAt))
      .limit(1);
    return row;
  },

  async sim(executor: Executor, iccid: string) {
    const [row] = await executor.select().from(sims).where(eq(sims.iccid, iccid));
    return row;
  },

  /** The SIM's state as the platform answered a pause, resume or termination. */
  setSimState: (
    executor: Executor,
    iccid: string,
    values: { state: SimState; terminatedAt: Date | null; updatedAt: Date },
  ) => executor.update(sims).set(values).where(eq(sims.iccid, iccid)),

  /**
   * Takes the subscription's lease unless another holds it; a lease taken before `staleBefore`
   * was left by a dead process and is dropped first. Whether it was taken.
   */
  async takeSubscriptionLease(
    executor: Executor,
    subscriptionId: string,
    input: { now: Date; staleBefore: Date },
  ): Promise<boolean> {
    await executor
      .delete(idempotencyKeys)
      .where(and(leaseOf(subscriptionId), lt(idempotencyKeys.createdAt, input.staleBefore)));
    const taken = await executor
      .insert(idempotencyKeys)
      .values({
        scope: leaseScope,
        key: subscriptionId,
        requestHash: 'lease',
        createdAt: input.now,
      })
      .onConflictDoNothing()
      .returning();
    return taken.length > 0;
  },

  releaseSubscriptionLease: (executor: Executor, subscriptionId: string) =>
    executor.delete(idempotencyKeys).where(leaseOf(subscriptionId)),

  /** Each SIM with its current subscription, for reconciling SIM state with billing. */
  async simsWithLatestSubscription(db: Database, iccid?: string) {
    return db
      .selectDistinctOn([subscriptions.simIccid], {
        iccid: sims.iccid,
        simState: sims.state,
        subscription: subscriptions,
      })
      .from(subscriptions)
      .innerJoin(sims, eq(sims.iccid, subscriptions.simIccid))
      .where(iccid === undefined ? undefined : eq(subscriptions.simIccid, iccid))
      .orderBy(subscriptions.simIccid, currentSubscriptionOrder);
  },
};
