/**
 * The SQL of activation: the SIMs the wizard looks up, the pricing tables' plans, the order's
 * trail in the audit log, and fulfilment's writes (the SIM attached to its buyer, then activated).
 */
import { and, asc, eq, gt, inArray, isNotNull, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import {
  auditLog,
  billingCustomers,
  billingSessions,
  customers,
  idempotencyKeys,
  prices,
  products,
  sims,
  subscriptions,
  type Region,
  type SimState,
} from '../../db/schema.ts';

export type SimRow = typeof sims.$inferSelect;

/** A SIM the wizard looked up, with whether someone has already bought a plan for it. */
export interface ActivationCandidate {
  sim: SimRow;
  hasLiveSubscription: boolean;
}

/** The markers of the e-mails fulfilment sends once (idempotency_keys, this scope). */
const messageScope = 'activation-mail';

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

  /** The billing account of an unexpired customer session (the pricing table's secret). */
  async billingCustomerOfSession(executor: Executor, secret: string, now: Date) {
    const [session] = await executor
      .select({ billingCustomerId: billingSessions.billingCustomerId })
      .from(billingSessions)
      .where(
        and(
          eq(billingSessions.id, secret),
          eq(billingSessions.kind, 'customer_session'),
          gt(billingSessions.expiresAt, now),
        ),
      );
    return session?.billingCustomerId ?? null;
  },

  /** The SIMs a billing account holds. */
  async simsOfBillingCustomer(executor: Executor, billingCustomerId: string): Promise<string[]> {
    const rows = await executor
      .select({ iccid: sims.iccid })
      .from(sims)
      .where(eq(sims.billingCustomerId, billingCustomerId));
    return rows.map((row) => row.iccid);
  },

  async customerIdByEmail(executor: Executor, email: string) {
    const [row] = await executor
      .select({ id: customers.id })
      .from(customers)
      .where(eq(customers.email, email));
    return row?.id;
  },

  /** The portal customer with this (normalised) e-mail, made when there is none. */
  async findOrCreateCustomer(executor: Executor, email: string): Promise<string> {
    await executor.insert(customers).values({ email }).onConflictDoNothing();
    const [row] = await executor
      .select({ id: customers.id })
      .from(customers)
      .where(eq(customers.email, email));
    return row!.id;
  },

  /** The farm's billing address and VAT number (decision 127), null when not given. */
  async farmBillingDetails(executor: Executor, customerId: string) {
    const [row] = await executor
      .select({ details: customers.billingDetails })
      .from(customers)
      .where(eq(customers.id, customerId));
    return row?.details ?? null;
  },

  /** The audit entries with these actions that carry this order reference. */
  orderTrail: (executor: Executor, orderId: string, actions: string[]) =>
    executor
      .select({ action: auditLog.action, details: auditLog.details })
      .from(auditLog)
      .where(
        and(inArray(auditLog.action, actions), sql`${auditLog.details}->>'order' = ${orderId}`),
      ),

  async productNameOfPrice(executor: Executor, priceId: string) {
    const [row] = await executor
      .select({ name: products.name })
      .from(prices)
      .innerJoin(products, eq(products.id, prices.productId))
      .where(eq(prices.id, priceId));
    return row?.name;
  },

  async productNameOfSubscription(executor: Executor, subscriptionId: string) {
    const [row] = await executor
      .select({ name: products.name })
      .from(subscriptions)
      .innerJoin(prices, eq(prices.id, subscriptions.priceId))
      .innerJoin(products, eq(products.id, prices.productId))
      .where(eq(subscriptions.id, subscriptionId));
    return row?.name;
  },

  /** The billing account that paid, with its portal customer's and its payer's e-mails. */
  async payingAccount(executor: Executor, billingCustomerId: string) {
    const [row] = await executor
      .select({
        id: billingCustomers.id,
        customerId: billingCustomers.customerId,
        email: customers.email,
        payerEmail: billingCustomers.email,
      })
      .from(billingCustomers)
      .innerJoin(customers, eq(customers.id, billingCustomers.customerId))
      .where(eq(billingCustomers.id, billingCustomerId));
    return row;
  },

  /** An order's subscription: its SIM, status and the region its price was sold in. */
  async orderSubscription(executor: Executor, subscriptionId: string) {
    const [row] = await executor
      .select({
        simIccid: subscriptions.simIccid,
        status: subscriptions.status,
        region: prices.region,
      })
      .from(subscriptions)
      .innerJoin(prices, eq(prices.id, subscriptions.priceId))
      .where(eq(subscriptions.id, subscriptionId));
    return row;
  },

  /** The SIM joins its buyer's account and billing account. */
  async attachSim(
    executor: Executor,
    iccid: string,
    values: {
      customerId: string;
      billingCustomerId: string;
      nickname: string;
      region: Region;
      updatedAt: Date;
    },
  ): Promise<SimRow> {
    const [row] = await executor.update(sims).set(values).where(eq(sims.iccid, iccid)).returning();
    return row!;
  },

  /** The SIM as the platform activated it. */
  recordSimActivation: (
    executor: Executor,
    iccid: string,
    values: { state: SimState; isBarred: boolean; activatedAt: Date; updatedAt: Date },
  ) => executor.update(sims).set(values).where(eq(sims.iccid, iccid)),

  /** Claims the marker of a message sent once: false when it was claimed before. */
  async claimMessage(executor: Executor, key: string, now: Date): Promise<boolean> {
    const claimed = await executor
      .insert(idempotencyKeys)
      .values({ scope: messageScope, key, requestHash: key, statusCode: 200, createdAt: now })
      .onConflictDoNothing()
      .returning();
    return claimed.length > 0;
  },

  /** Gives a message's marker back (sending failed), so it is tried again. */
  releaseMessage: (executor: Executor, key: string) =>
    executor
      .delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, messageScope), eq(idempotencyKeys.key, key))),

  /**
   * Paid orders not finished: live subscriptions whose SIM is still in stock, or held by another
   * billing account (an order that lost its SIM).
   */
  unfinishedOrders: (executor: Executor) =>
    executor
      .select({
        subscriptionId: subscriptions.id,
        billingCustomerId: subscriptions.billingCustomerId,
        iccid: subscriptions.simIccid,
      })
      .from(subscriptions)
      .innerJoin(sims, eq(sims.iccid, subscriptions.simIccid))
      .where(
        and(
          ne(subscriptions.status, 'canceled'),
          or(
            eq(sims.state, 'stock'),
            sql`${sims.billingCustomerId} is distinct from ${subscriptions.billingCustomerId}`,
          ),
        ),
      ),

  /** The metadata of the completed checkout that made the subscription. */
  async completedCheckoutMetadata(executor: Executor, subscriptionId: string) {
    const [row] = await executor
      .select({ metadata: billingSessions.metadata })
      .from(billingSessions)
      .where(
        and(
          eq(billingSessions.subscriptionId, subscriptionId),
          isNotNull(billingSessions.completedAt),
        ),
      );
    return row?.metadata;
  },
};
