/**
 * The SQL of the dunning e-mails (docs/decisions/025, 108): which were sent (dunning_mails,
 * dunning_end_mails), to whom, and the plans whose end-of-dunning e-mail is due.
 */
import { and, desc, eq, gt, inArray, lte, ne, notExists, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.ts';
import {
  billingCustomers,
  dunningEndMails,
  dunningMails,
  invoices,
  sims,
  subscriptions,
} from '../../db/schema.ts';

export type EndMailKind = (typeof dunningEndMails.$inferSelect)['kind'];

const newer = alias(subscriptions, 'newer');

export const dunningRepository = {
  async isDunningMailSent(executor: Executor, invoiceId: string, attemptCount: number) {
    const [sent] = await executor
      .select()
      .from(dunningMails)
      .where(
        and(eq(dunningMails.invoiceId, invoiceId), eq(dunningMails.attemptCount, attemptCount)),
      );
    return sent !== undefined;
  },

  recordDunningMail: (executor: Executor, invoiceId: string, attemptCount: number) =>
    executor.insert(dunningMails).values({ invoiceId, attemptCount }).onConflictDoNothing(),

  /** The billing account's e-mail and the portal customer it belongs to. */
  async payerOf(executor: Executor, billingCustomerId: string) {
    const [row] = await executor
      .select({ email: billingCustomers.email, customerId: billingCustomers.customerId })
      .from(billingCustomers)
      .where(eq(billingCustomers.id, billingCustomerId));
    return row;
  },

  /**
   * Plans canceled for an unpaid renewal between `canceledAfter` (exclusive) and `canceledBy`
   * whose `kind` e-mail was not sent, with their payer and camera; for `sim_switched_off`, only
   * SIMs already terminated. Not when the camera has a newer subscription (renewed since).
   */
  endedPlans: (
    executor: Executor,
    input: { kind: EndMailKind; canceledBy: Date; canceledAfter: Date },
  ) =>
    executor
      .select({
        subscriptionId: subscriptions.id,
        billingCustomerId: subscriptions.billingCustomerId,
        iccid: subscriptions.simIccid,
        priceId: subscriptions.priceId,
        canceledAt: subscriptions.canceledAt,
        email: billingCustomers.email,
        customerId: billingCustomers.customerId,
        nickname: sims.nickname,
      })
      .from(subscriptions)
      .innerJoin(billingCustomers, eq(billingCustomers.id, subscriptions.billingCustomerId))
      .innerJoin(sims, eq(sims.iccid, subscriptions.simIccid))
      .where(
        and(
          eq(subscriptions.status, 'canceled'),
          eq(subscriptions.cancellationReason, 'payment_failed'),
          lte(subscriptions.canceledAt, input.canceledBy),
          gt(subscriptions.canceledAt, input.canceledAfter),
          input.kind === 'sim_switched_off' ? eq(sims.state, 'terminated') : undefined,
          notExists(
            executor
              .select({ one: sql`1` })
              .from(dunningEndMails)
              .where(
                and(
                  eq(dunningEndMails.subscriptionId, subscriptions.id),
                  eq(dunningEndMails.kind, input.kind),
                ),
              ),
          ),
          notExists(
            executor
              .select({ one: sql`1` })
              .from(newer)
              .where(
                and(
                  eq(newer.simIccid, subscriptions.simIccid),
                  ne(newer.id, subscriptions.id),
                  gt(newer.createdAt, subscriptions.createdAt),
                ),
              ),
          ),
        ),
      ),

  /** The subscription's latest invoice left unpaid (open or uncollectible), when there is one. */
  async unpaidInvoiceOf(executor: Executor, subscriptionId: string) {
    const [row] = await executor
      .select({
        number: invoices.number,
        amount: sql<number>`${invoices.amountDue} - ${invoices.amountPaid}`.mapWith(Number),
        currency: invoices.currency,
      })
      .from(invoices)
      .where(
        and(
          eq(invoices.subscriptionId, subscriptionId),
          inArray(invoices.status, ['uncollectible', 'open']),
        ),
      )
      .orderBy(desc(invoices.createdAt))
      .limit(1);
    return row;
  },

  recordDunningEndMail: (executor: Executor, subscriptionId: string, kind: EndMailKind) =>
    executor.insert(dunningEndMails).values({ subscriptionId, kind }).onConflictDoNothing(),
};
