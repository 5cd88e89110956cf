/**
 * Stripe objects → our read model. Every function is an idempotent upsert, so the same object
 * mirrored from an API answer and again from its webhook (in any order) lands once.
 */
import type Stripe from 'stripe';
import { and, eq, notInArray } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import {
  billingCustomers,
  cancellationReasons,
  invoiceLines,
  invoices,
  paymentMethods,
  prices,
  sims,
  subscriptions,
  type SubscriptionStatus,
} from '../../../db/schema.ts';
import { dayMs } from '../../../lib/business-calendar.ts';
import { dunningPolicy } from '@farmcam/billing/dunning-policy';
import { pauseStateOn } from '@farmcam/billing/pause-policy';

/** Stripe has no "overdue": a subscription past due this long is shown as overdue. */
const { overdueAfterDays } = dunningPolicy;

const fromEpoch = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined ? null : new Date(seconds * 1000);
const idOf = (value: string | { id: string } | null | undefined) =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : value.id;

/** Our price id for a Stripe price: its lookup key is our catalogue id. */
export function ourPriceId(price: Stripe.Price | string | null | undefined): string | null {
  if (!price || typeof price === 'string') return null;
  return price.lookup_key ?? null;
}

export async function mirrorCustomer(
  executor: Executor,
  customer: Stripe.Customer,
  portalCustomerId: string,
): Promise<typeof billingCustomers.$inferSelect> {
  const values = {
    id: customer.id,
    customerId: portalCustomerId,
    provider: 'stripe' as const,
    email: customer.email ?? '',
    currency: customer.currency ?? 'gbp',
    balance: customer.balance ?? 0,
  };
  const [row] = await executor
    .insert(billingCustomers)
    .values(values)
    .onConflictDoUpdate({
      target: billingCustomers.id,
      set: { email: values.email, balance: values.balance },
    })
    .returning();
  return row!;
}

/**
 * Mirrors a subscription of ours (its metadata names the SIM). `today` (YYYY-MM-DD) decides
 * whether an active subscription is inside its pause. Returns false for subscriptions that are
 * not ours (no SIM, unknown price or customer).
 */
export async function mirrorSubscription(
  executor: Executor,
  subscription: Stripe.Subscription,
  now: Date,
  today: string,
): Promise<typeof subscriptions.$inferSelect | undefined> {
  const item = subscription.items.data[0];
  const iccid = subscription.metadata?.iccid;
  const priceId = ourPriceId(item?.price);
  const customerId = idOf(subscription.customer);
  if (!item || !iccid || !priceId || !customerId) return undefined;
  const [known] = await executor
    .select({ price: prices.id, sim: sims.iccid, customer: billingCustomers.id })
    .from(prices)
    .innerJoin(sims, eq(sims.iccid, iccid))
    .innerJoin(billingCustomers, eq(billingCustomers.id, customerId))
    .where(eq(prices.id, priceId));
  if (!known) return undefined;

  const [existing] = await executor
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.id, subscription.id));
  const pauseStartsOn = subscription.metadata.pause_starts_on || null;
  const pauseResumesOn = subscription.metadata.pause_resumes_on || null;
  const isInPause =
    pauseStateOn({ status: 'active', pauseStartsOn, pauseResumesOn }, today) === 'paused';

  let pastDueSince = existing?.pastDueSince ?? null;
  let status: SubscriptionStatus;
  switch (subscription.status) {
    case 'active':
    case 'trialing':
      status = isInPause ? 'paused' : 'active';
      pastDueSince = null;
      break;
    case 'past_due':
    case 'unpaid':
      pastDueSince ??= now;
      status =
        subscription.status === 'unpaid' ||
        now.getTime() - pastDueSince.getTime() >= overdueAfterDays * dayMs
          ? 'overdue'
          : 'past_due';
      break;
    case 'paused':
      status = 'paused';
      break;
    case 'incomplete':
      status = 'incomplete';
      break;
    default:
      status = 'canceled';
  }

  const values = {
    id: subscription.id,
    billingCustomerId: customerId,
    simIccid: iccid,
    priceId,
    status,
    currentPeriodStart: fromEpoch(item.current_period_start)!,
    currentPeriodEnd: fromEpoch(item.current_period_end)!,
    // Stripe keeps the anchor and moves it (docs/decisions/108); we only mirror it.
    billingCycleAnchor: fromEpoch(subscription.billing_cycle_anchor ?? item.current_period_start)!,
    pauseStartsOn,
    pauseResumesOn,
    pastDueSince,
    canceledAt: fromEpoch(subscription.canceled_at ?? subscription.ended_at),
    cancellationReason:
      status === 'canceled'
        ? (cancellationReasons.find(
            (reason) => reason === subscription.cancellation_details?.reason,
          ) ?? null)
        : null,
    updatedAt: now,
  };
  const [row] = await executor
    .insert(subscriptions)
    .values({ ...values, createdAt: fromEpoch(subscription.created) ?? now })
    .onConflictDoUpdate({ target: subscriptions.id, set: values })
    .returning();
  return row;
}

export async function mirrorInvoice(executor: Executor, invoice: Stripe.Invoice): Promise<void> {
  const customerId = idOf(invoice.customer);
  if (!customerId || !invoice.id) return;
  const [customer] = await executor
    .select({ id: billingCustomers.id })
    .from(billingCustomers)
    .where(eq(billingCustomers.id, customerId));
  if (!customer) return;
  const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription ?? null);
  const [subscription] = subscriptionId
    ? await executor
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .where(eq(subscriptions.id, subscriptionId))
    : [];
  const status = (['draft', 'open', 'paid', 'void', 'uncollectible'] as const).find(
    (candidate) => candidate === invoice.status,
  );
  const values = {
    billingCustomerId: customerId,
    subscriptionId: subscription?.id ?? null,
    number: invoice.number ?? invoice.id,
    status: status ?? 'draft',
    amountDue: invoice.amount_due,
    amountPaid: invoice.amount_paid,
    currency: invoice.currency,
    description: invoice.lines?.data[0]?.description ?? invoice.description ?? '',
    periodStart: fromEpoch(invoice.period_start),
    periodEnd: fromEpoch(invoice.period_end),
    hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
    invoicePdfUrl: invoice.invoice_pdf ?? null,
    paidAt: fromEpoch(invoice.status_transitions?.paid_at),
    attemptCount: invoice.attempt_count ?? 0,
    nextPaymentAttempt: fromEpoch(invoice.next_payment_attempt),
    // Totals and lines as Stripe computed them (docs/decisions/026).
    subtotal: invoice.subtotal ?? 0,
    total: invoice.total ?? 0,
    tax: (invoice.total_taxes ?? []).reduce((sum, tax) => sum + tax.amount, 0),
    startingBalance: invoice.starting_balance ?? 0,
    endingBalance: invoice.ending_balance ?? 0,
  };
  const invoiceId = invoice.id;
  await executor
    .insert(invoices)
    .values({ id: invoiceId, ...values, createdAt: fromEpoch(invoice.created)! })
    .onConflictDoUpdate({ target: invoices.id, set: values });
  const lines = invoice.lines?.data ?? [];
  if (lines.length > 0) {
    await executor.delete(invoiceLines).where(eq(invoiceLines.invoiceId, invoiceId));
    await executor.insert(invoiceLines).values(
      lines.map((line, position) => ({
        id: `${invoiceId}:${position}`,
        billingCustomerId: customerId,
        subscriptionId: subscription?.id ?? null,
        invoiceId,
        description: line.description ?? '',
        amount: line.amount,
        periodStart: fromEpoch(line.period?.start),
        periodEnd: fromEpoch(line.period?.end),
        position,
      })),
    );
  }
}

/** Mirrors a customer's cards: the listed ones are attached, any other is marked detached. */
export async function mirrorPaymentMethods(
  executor: Executor,
  billingCustomerId: string,
  cards: Stripe.PaymentMethod[],
  defaultPaymentMethodId: string | null,
  now: Date,
): Promise<void> {
  for (const method of cards) {
    if (!method.card) continue;
    const values = {
      billingCustomerId,
      brand: method.card.brand,
      last4: method.card.last4,
      expMonth: method.card.exp_month,
      expYear: method.card.exp_year,
      isDefault: method.id === defaultPaymentMethodId,
      detachedAt: null,
    };
    await executor
      .insert(paymentMethods)
      .values({ id: method.id, ...values, createdAt: fromEpoch(method.created) ?? now })
      .onConflictDoUpdate({ target: paymentMethods.id, set: values });
  }
  const attached = cards.map((method) => method.id);
  await executor
    .update(paymentMethods)
    .set({ detachedAt: now, isDefault: false })
    .where(
      and(
        eq(paymentMethods.billingCustomerId, billingCustomerId),
        attached.length > 0 ? notInArray(paymentMethods.id, attached) : undefined,
      ),
    );
}
