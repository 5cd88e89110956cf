/**
 * The local billing engine's billing cycle: renewals at each period end (in chunks,
 * docs/decisions/075), the retries of unpaid renewals and the dunning steps, on the days and
 * with the numbers of @farmcam/billing/dunning-policy (docs/decisions/025). A declined
 * renewal makes the subscription past_due and raises `invoice.payment_failed`; no renewal is
 * raised while it is unpaid; paying brings it back to active at once (`restoreIfSettled`).
 */
import { and, asc, eq, inArray, lte, type SQL } from 'drizzle-orm';
import type { Executor } from '@farmcam/db';
import { billingCustomers, invoices, subscriptions } from '@farmcam/db/schema';
import { dayMs } from '@farmcam/contract/rules';
import type { BillingEvent, SubscriptionRow } from '@farmcam/billing';
import { periodEndOnAnchor } from '@farmcam/billing/billing-cycle-anchor';
import { cancelAt, dunningPolicy, nextRetryAt, overdueAt } from '@farmcam/billing/dunning-policy';
import { formatMoney } from '@farmcam/billing/money';
import { isPeriodPaused } from '@farmcam/billing/pause-policy';
import {
  plainRenewal,
  readRenewalChunk,
  writeRenewals,
  type PlainRenewal,
} from './batch-renewal.ts';
import {
  loadPrice,
  type EngineKernel,
  type EngineSettings,
  type Transaction,
} from './engine-kernel.ts';
import { demoSupplier } from './invoice-snapshot.ts';
import { isFencedOff, readRestoreFence } from './restore-fence.ts';
import {
  chargeInvoice,
  hasOpenInvoices,
  issueInvoice,
  lockSubscription,
  type InvoiceRow,
} from './ledger.ts';

/** A lapsed subscription has a dunning step due once it is this far past its first failure. */
const overdueAfterMs = dunningPolicy.overdueAfterDays * dayMs;
/**
 * Renewals per transaction in the billing cycle (docs/decisions/075): large enough that the
 * round trips of a chunk cost little per renewal, small enough that a chunk's locks (its
 * subscriptions and customers, then the invoice number sequence for the chunk's last inserts)
 * are held for a fraction of a second.
 */
const defaultRenewalChunkSize = 200;

export type EngineBillingCycle = ReturnType<typeof createEngineBillingCycle>;

export function createEngineBillingCycle(
  kernel: EngineKernel,
  { invoicing }: EngineSettings,
  options: { renewalChunkSize?: number },
) {
  const { db, clock, emit, transact, metrics } = kernel;

  /** The local engine's subscriptions in one of `statuses` that meet `condition`. */
  function localSubscriptionIds(statuses: SubscriptionRow['status'][], condition: SQL) {
    return db
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .innerJoin(billingCustomers, eq(billingCustomers.id, subscriptions.billingCustomerId))
      .where(
        and(
          eq(billingCustomers.provider, 'local'),
          inArray(subscriptions.status, statuses),
          condition,
        ),
      );
  }

  /**
   * Does what is due by `at` (default now): retries of unpaid renewals, dunning steps, renewals;
   * each stamped with the time it was due (docs/decisions/025).
   */
  async function runBillingCycle(at?: Date) {
    if (!at) await clock.refresh();
    const now = at ?? clock.now();
    const events: BillingEvent[] = [];
    let renewed = 0;
    // Retries first: one due today may settle the invoice before the day's dunning step.
    const retries = await db
      .select({ id: invoices.id })
      .from(invoices)
      .innerJoin(billingCustomers, eq(billingCustomers.id, invoices.billingCustomerId))
      .where(
        and(
          eq(billingCustomers.provider, 'local'),
          eq(invoices.status, 'open'),
          lte(invoices.nextPaymentAttempt, now),
        ),
      )
      .orderBy(asc(invoices.nextPaymentAttempt));
    for (const { id } of retries) {
      await transact((transaction) => retryInvoice(transaction, id, now), events);
    }

    const lapsed = await localSubscriptionIds(
      ['past_due', 'overdue'],
      lte(subscriptions.pastDueSince, new Date(now.getTime() - overdueAfterMs)),
    );
    for (const { id } of lapsed) {
      await transact((transaction) => applyDunning(transaction, id, now), events);
    }

    // A subscription with an unpaid renewal gets no new one until it is paid (restoreIfSettled).
    const due = await localSubscriptionIds(
      ['active', 'paused'],
      lte(subscriptions.currentPeriodEnd, now),
    ).orderBy(asc(subscriptions.currentPeriodEnd));
    const chunkSize = options.renewalChunkSize ?? defaultRenewalChunkSize;
    if (chunkSize <= 0) {
      for (const { id } of due) {
        renewed += await transact((transaction) => renewSubscription(transaction, id, now), events);
      }
    }
    for (let index = 0; chunkSize > 0 && index < due.length; index += chunkSize) {
      const chunk = due.slice(index, index + chunkSize).map(({ id }) => id);
      renewed += await renewChunk(chunk, now, events);
    }
    return { renewed, events };
  }

  /**
   * After a payment at `at`: a lapsed subscription with nothing left unpaid is active again, and
   * the renewal held back while it was unpaid (a period that began meanwhile) is raised now.
   */
  async function restoreIfSettled(executor: Executor, subscriptionId: string | null, at: Date) {
    if (!subscriptionId) return;
    const subscription = await lockSubscription(executor, subscriptionId);
    if (!subscription || !['past_due', 'overdue'].includes(subscription.status)) return;
    if (await hasOpenInvoices(executor, subscriptionId)) return;
    await executor
      .update(subscriptions)
      .set({ status: 'active', pastDueSince: null, updatedAt: at })
      .where(eq(subscriptions.id, subscriptionId));
    emit(executor, {
      type: 'subscription.recovered',
      subscriptionId,
      simIccid: subscription.simIccid,
      at,
    });
    await renewSubscription(executor, subscriptionId, at, at);
  }

  /**
   * Rolls a subscription in good standing through every period that has ended by `now`,
   * invoicing and charging those not paused, each at its period start (or at `notBefore`, for a
   * renewal held back while the subscription was unpaid). A declined charge makes it past_due,
   * which stops the rolling: no further period is raised until that invoice is paid. A period
   * that starts before a restore's billing fence is rolled on without an invoice, as a paused one
   * is: the database the backup replaced may have charged it already (docs/decisions/109).
   */
  async function renewSubscription(
    transaction: Executor,
    subscriptionId: string,
    now: Date,
    notBefore?: Date,
  ) {
    let subscription = await lockSubscription(transaction, subscriptionId);
    const fence = await readRestoreFence(transaction);
    let renewals = 0;
    while (
      subscription &&
      ['active', 'paused'].includes(subscription.status) &&
      subscription.currentPeriodEnd <= now
    ) {
      const price = await loadPrice(transaction, subscription.priceId);
      if (!price) break;
      const start = subscription.currentPeriodEnd;
      const end = periodEndOnAnchor(subscription.billingCycleAnchor, start, price.price.interval);
      const raisedAt = notBefore && notBefore > start ? notBefore : start;
      const isPaused = isPeriodPaused(subscription, start) || isFencedOff(fence, start);
      let pastDueSince = subscription.pastDueSince;
      let status = subscription.status;
      if (!isPaused) {
        const invoice: InvoiceRow = await issueInvoice(transaction, {
          billingCustomerId: subscription.billingCustomerId,
          subscriptionId,
          description: renewalDescriptionOf(price),
          total: price.price.unitAmount,
          currency: price.price.currency,
          periodStart: start,
          periodEnd: end,
          now: raisedAt,
          invoicing,
        });
        if (invoice.status === 'open') {
          const outcome = await chargeInvoice(transaction, invoice, raisedAt, undefined, {
            isAutomatic: true,
            metrics,
          });
          if (!outcome.isPaid) {
            status = 'past_due';
            pastDueSince = raisedAt;
            await scheduleRetry(transaction, invoice, subscription, raisedAt, outcome.reason);
          }
        }
      }
      [subscription] = await transaction
        .update(subscriptions)
        .set({
          currentPeriodStart: start,
          currentPeriodEnd: end,
          status,
          pastDueSince,
          updatedAt: raisedAt,
        })
        .where(eq(subscriptions.id, subscriptionId))
        .returning();
      renewals += 1;
    }
    return renewals;
  }

  /**
   * Renews a chunk of due subscriptions in one transaction (docs/decisions/075), in the cycle's
   * order: plain renewals written together, the others one at a time, each where it falls, so
   * the invoice numbers follow the same order as one renewal per transaction. A renewal that
   * fails rolls its chunk back; the chunk is then renewed one subscription per transaction, so
   * the others are not held back by it and the failure is raised as before.
   */
  async function renewChunk(subscriptionIds: string[], now: Date, raised: BillingEvent[]) {
    try {
      return await transact(async (transaction) => {
        const chunk = await readRenewalChunk(transaction, subscriptionIds);
        const supplier = invoicing.supplier ?? demoSupplier;
        let plain: PlainRenewal[] = [];
        let renewals = 0;
        for (const id of subscriptionIds) {
          const renewal = plainRenewal(chunk, id, now, supplier);
          if (renewal) {
            plain.push(renewal);
            continue;
          }
          await writeRenewals(
            transaction,
            plain,
            renewalDescriptionOf,
            chunk.secret,
            invoicing,
            metrics,
          );
          renewals += plain.length;
          plain = [];
          renewals += await renewSubscription(transaction, id, now);
        }
        await writeRenewals(
          transaction,
          plain,
          renewalDescriptionOf,
          chunk.secret,
          invoicing,
          metrics,
        );
        return renewals + plain.length;
      }, raised);
    } catch {
      let renewals = 0;
      for (const id of subscriptionIds) {
        renewals += await transact(
          (transaction) => renewSubscription(transaction, id, now),
          raised,
        );
      }
      return renewals;
    }
  }

  /**
   * After a failed automatic attempt at `at`: books the next retry of the policy (or none) and
   * tells the customer, with the page to pay on.
   */
  async function scheduleRetry(
    executor: Executor,
    invoice: InvoiceRow,
    subscription: SubscriptionRow,
    at: Date,
    reason: string,
  ) {
    const firstFailureAt = subscription.pastDueSince ?? at;
    const nextPaymentAttempt = nextRetryAt(firstFailureAt, at);
    const [updated] = await executor
      .update(invoices)
      .set({ nextPaymentAttempt })
      .where(eq(invoices.id, invoice.id))
      .returning();
    emit(executor, {
      type: 'invoice.payment_failed',
      invoiceId: invoice.id,
      billingCustomerId: invoice.billingCustomerId,
      subscriptionId: subscription.id,
      simIccid: subscription.simIccid,
      at,
      amountDue: invoice.amountDue - invoice.amountPaid,
      currency: invoice.currency,
      reason,
      attemptCount: updated?.attemptCount ?? invoice.attemptCount,
      nextPaymentAttempt,
      cancelAt: cancelAt(firstFailureAt),
      hostedInvoiceUrl: invoice.hostedInvoiceUrl,
    });
  }

  /**
   * The scheduled retry of an unpaid renewal, made (and stamped) at the time it was due. An
   * invoice issued before a restore's billing fence is not retried: the database the backup
   * replaced may have collected it already, so it waits to be paid on its page (decision 109).
   */
  async function retryInvoice(transaction: Transaction, invoiceId: string, now: Date) {
    const [invoice] = await transaction
      .select()
      .from(invoices)
      .where(eq(invoices.id, invoiceId))
      .for('update');
    const dueAt = invoice?.nextPaymentAttempt;
    if (!invoice || invoice.status !== 'open' || !dueAt || dueAt > now) return;
    if (isFencedOff(await readRestoreFence(transaction), invoice.createdAt)) {
      await transaction
        .update(invoices)
        .set({ nextPaymentAttempt: null })
        .where(eq(invoices.id, invoice.id));
      return;
    }
    const subscription = invoice.subscriptionId
      ? await lockSubscription(transaction, invoice.subscriptionId)
      : undefined;
    const outcome = await chargeInvoice(transaction, invoice, dueAt, undefined, {
      isAutomatic: true,
      metrics,
    });
    if (outcome.isPaid) {
      await restoreIfSettled(transaction, invoice.subscriptionId, dueAt);
    } else if (subscription) {
      await scheduleRetry(transaction, invoice, subscription, dueAt, outcome.reason);
    } else {
      await transaction
        .update(invoices)
        .set({ nextPaymentAttempt: null })
        .where(eq(invoices.id, invoice.id));
    }
  }

  /**
   * Moves an unpaid subscription on at the times the policy names: overdue, then canceled, its
   * open invoices marked uncollectible (Stripe's "mark the invoice as uncollectible" setting), so
   * they can no longer be paid for a camera whose plan has ended.
   */
  async function applyDunning(transaction: Transaction, subscriptionId: string, now: Date) {
    const subscription = await lockSubscription(transaction, subscriptionId);
    if (!subscription?.pastDueSince || !['past_due', 'overdue'].includes(subscription.status))
      return;
    const canceledAt = cancelAt(subscription.pastDueSince);
    const becameOverdueAt = overdueAt(subscription.pastDueSince);
    if (canceledAt <= now) {
      await transaction
        .update(subscriptions)
        .set({
          status: 'canceled',
          canceledAt,
          cancellationReason: 'payment_failed',
          updatedAt: canceledAt,
        })
        .where(eq(subscriptions.id, subscriptionId));
      await transaction
        .update(invoices)
        .set({ status: 'uncollectible', nextPaymentAttempt: null })
        .where(and(eq(invoices.subscriptionId, subscriptionId), eq(invoices.status, 'open')));
      emit(transaction, {
        type: 'subscription.canceled',
        subscriptionId,
        simIccid: subscription.simIccid,
        at: canceledAt,
      });
    } else if (subscription.status === 'past_due' && becameOverdueAt <= now) {
      await transaction
        .update(subscriptions)
        .set({ status: 'overdue', updatedAt: becameOverdueAt })
        .where(eq(subscriptions.id, subscriptionId));
    }
  }

  return { runBillingCycle, restoreIfSettled };
}

/** The line of a renewal invoice (and of a checkout's first invoice). */
export function renewalDescriptionOf({
  price,
  product,
}: {
  price: { unitAmount: number; currency: string; interval: string };
  product: { name: string };
}) {
  return renewalDescription(product.name, price.unitAmount, price.currency, price.interval);
}

export function renewalDescription(
  productName: string,
  unitAmount: number,
  currency: string,
  interval: string,
): string {
  return `1 × ${productName} (at ${formatMoney(unitAmount, currency)} / ${interval})`;
}
