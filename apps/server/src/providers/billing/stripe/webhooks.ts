/**
 * Stripe's webhooks, the mirror's second source (the first is each write's answer): what happens
 * inside Stripe (renewals, declines, dunning, cards changed in its portal, pricing-table
 * checkouts) reaches our tables here. Each event is verified with `constructEvent` on the raw
 * body, applied once (deduplicated by event id in `webhook_events`, in the transaction that
 * mirrors it), and what the app must react to is raised after the commit.
 */
import type Stripe from 'stripe';
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import {
  billingCustomers,
  paymentMethods,
  subscriptions,
  webhookEvents,
} from '../../../db/schema.ts';
import type { Clock } from '../../../lib/clock.ts';
import { countPayment } from '../../../lib/metrics.ts';
import { recordCardDifferences, recordInvoicePayment } from '../billing-activity.ts';
import { BillingError, type BillingEvent, type CheckoutHooks } from '../billing.ts';
import {
  mirrorCustomer,
  mirrorInvoice,
  mirrorPaymentMethods,
  mirrorSubscription,
} from './stripe-mirror.ts';

export interface StripeWebhookDeps {
  db: Database;
  client: Stripe;
  clock: Clock;
  webhookSecret: string;
  /** Makes the portal account of a pricing-table checkout paid by a new e-mail (activation). */
  checkoutHooks?: CheckoutHooks;
  /** The UK day, as every pause rule counts it (docs/decisions/081). */
  today(): string;
  /** Hands the app's events to its handlers, after the commit. */
  raise(events: BillingEvent[]): Promise<void>;
}

/** Verifies, deduplicates and applies a webhook; `isDuplicate` when the event was seen before. */
export function createStripeWebhookHandler(deps: StripeWebhookDeps) {
  const { db, client, clock, today } = deps;
  return async function handleWebhook(
    rawBody: Buffer,
    signature: string,
  ): Promise<{ isDuplicate: boolean; type: string }> {
    let event: Stripe.Event;
    try {
      event = client.webhooks.constructEvent(rawBody, signature, deps.webhookSecret);
    } catch {
      throw new BillingError('invalid', 'The webhook signature is not valid');
    }
    const [seen] = await db.select().from(webhookEvents).where(eq(webhookEvents.id, event.id));
    if (seen) return { isDuplicate: true, type: event.type };

    // Fetch what the event needs before the transaction: no network call holds it open.
    const object = event.data.object as {
      object?: string;
      customer?: string | { id: string } | null;
    };
    const customerId =
      typeof object.customer === 'string' ? object.customer : (object.customer?.id ?? null);
    const raised: BillingEvent[] = [];
    let checkoutSubscription: Stripe.Subscription | undefined;
    let cards: Stripe.PaymentMethod[] | undefined;
    let customer: Stripe.Customer | undefined;
    if (event.type === 'checkout.session.completed') {
      const session = event.data.object;
      const subscriptionId =
        typeof session.subscription === 'string' ? session.subscription : session.subscription?.id;
      if (subscriptionId)
        checkoutSubscription = await client.subscriptions.retrieve(subscriptionId);
      // A pricing table's subscription does not name its SIM: the checkout's client reference does.
      if (
        checkoutSubscription &&
        !checkoutSubscription.metadata?.iccid &&
        session.client_reference_id
      ) {
        checkoutSubscription = await client.subscriptions.update(
          checkoutSubscription.id,
          { metadata: { iccid: session.client_reference_id } },
          { idempotencyKey: `checkout-iccid-${session.id}` },
        );
      }
    }
    if (
      customerId &&
      (event.type.startsWith('payment_method.') ||
        event.type === 'customer.updated' ||
        event.type === 'checkout.session.completed')
    ) {
      const retrieved = await client.customers.retrieve(customerId);
      if (!retrieved.deleted) customer = retrieved;
      cards = (await client.paymentMethods.list({ customer: customerId, type: 'card', limit: 100 }))
        .data;
    }

    const isDuplicate = await db.transaction(async (transaction) => {
      const inserted = await transaction
        .insert(webhookEvents)
        .values({ id: event.id, provider: 'stripe', type: event.type })
        .onConflictDoNothing()
        .returning();
      if (inserted.length === 0) return true;
      const now = clock.now();
      if (event.type.startsWith('customer.subscription.')) {
        const subscription = event.data.object as Stripe.Subscription;
        const before = (
          await transaction
            .select()
            .from(subscriptions)
            .where(eq(subscriptions.id, subscription.id))
        )[0];
        const after = await mirrorSubscription(transaction, subscription, now, today());
        if (after && before?.status !== 'canceled' && after.status === 'canceled') {
          raised.push({
            type: 'subscription.canceled',
            subscriptionId: after.id,
            simIccid: after.simIccid,
          });
        }
        if (
          after &&
          before &&
          ['past_due', 'overdue'].includes(before.status) &&
          after.status === 'active'
        ) {
          raised.push({
            type: 'subscription.recovered',
            subscriptionId: after.id,
            simIccid: after.simIccid,
          });
        }
      } else if (event.type.startsWith('invoice.')) {
        const invoice = event.data.object as Stripe.Invoice;
        await mirrorInvoice(transaction, invoice);
        // Payments made and failed on the account's activity log (decision 092). Stripe sends
        // invoice.paid with invoice.payment_succeeded: one of them is recorded.
        const isPaid = event.type === 'invoice.paid';
        if ((isPaid || event.type === 'invoice.payment_failed') && invoice.id) {
          const amount = isPaid ? invoice.amount_paid : invoice.amount_remaining;
          if (amount > 0) {
            await recordInvoicePayment(transaction, {
              invoiceId: invoice.id,
              isPaid,
              amount,
              currency: invoice.currency,
              reason: null,
              at: new Date(event.created * 1000),
            });
          }
        }
      } else if (event.type === 'checkout.session.completed') {
        const session = event.data.object;
        if (customer) {
          const [existing] = await transaction
            .select()
            .from(billingCustomers)
            .where(eq(billingCustomers.id, customer.id));
          const email = session.customer_details?.email ?? customer.email;
          const portalCustomerId =
            existing?.customerId ??
            (session.metadata?.portal_customer_id || undefined) ??
            (email ? await deps.checkoutHooks?.portalCustomerFor(transaction, email) : undefined);
          if (portalCustomerId) await mirrorCustomer(transaction, customer, portalCustomerId);
        }
        const mirrored = checkoutSubscription
          ? await mirrorSubscription(transaction, checkoutSubscription, now, today())
          : undefined;
        if (mirrored) {
          raised.push({
            type: 'checkout.completed',
            sessionId: session.id,
            billingCustomerId: mirrored.billingCustomerId,
            subscriptionId: mirrored.id,
            clientReferenceId: session.client_reference_id,
            metadata: (session.metadata ?? {}) as Record<string, string>,
          });
        }
      }
      if (customer && cards) {
        const [known] = await transaction
          .select()
          .from(billingCustomers)
          .where(eq(billingCustomers.id, customer.id));
        if (known) {
          const defaultCard = customer.invoice_settings?.default_payment_method;
          const savedCards = () =>
            transaction
              .select()
              .from(paymentMethods)
              .where(
                and(
                  eq(paymentMethods.billingCustomerId, customer.id),
                  isNull(paymentMethods.detachedAt),
                ),
              );
          const before = await savedCards();
          await mirrorPaymentMethods(
            transaction,
            customer.id,
            cards,
            typeof defaultCard === 'string' ? defaultCard : (defaultCard?.id ?? null),
            now,
          );
          // Cards changed in Stripe's portal, on the account's activity log (decision 092).
          await recordCardDifferences(transaction, before, await savedCards());
        }
      }
      return false;
    });
    if (event.type === 'invoice.payment_failed' || event.type === 'invoice.payment_succeeded') {
      if (!isDuplicate) countPayment('stripe', event.type === 'invoice.payment_succeeded');
    }
    if (!isDuplicate) await deps.raise(raised);
    return { isDuplicate, type: event.type };
  };
}
