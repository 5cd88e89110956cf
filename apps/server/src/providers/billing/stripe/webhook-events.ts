/**
 * One handler per kind of Stripe event (webhooks.ts verifies, deduplicates and runs them): what
 * it fetches from Stripe before the transaction (no network call holds it open), what it mirrors
 * inside it, and the app's events it raises after the commit.
 */
import type Stripe from 'stripe';
import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { billingCustomers, paymentMethods, subscriptions } from '../../../db/schema.ts';
import { countPayment } from '../../../lib/metrics.ts';
import { recordCardDifferences, recordInvoicePayment } from '@farmcam/billing/billing-activity';
import type { BillingEvent, CheckoutHooks } from '@farmcam/billing';
import {
  mirrorCustomer,
  mirrorInvoice,
  mirrorPaymentMethods,
  mirrorSubscription,
} from './stripe-mirror.ts';

export interface WebhookEventDeps {
  client: Stripe;
  /** Makes the portal account of a pricing-table checkout paid by a new e-mail (activation). */
  checkoutHooks?: CheckoutHooks;
  /** The UK day, as every pause rule counts it (docs/decisions/081). */
  today(): string;
}

export interface WebhookEventHandler {
  /** What the event needs from Stripe, asked before the transaction. */
  fetch(event: Stripe.Event): Promise<unknown>;
  /** Mirrors the event in the transaction; the app's events to raise once it is committed. */
  apply(
    transaction: Executor,
    event: Stripe.Event,
    fetched: unknown,
    now: Date,
  ): Promise<BillingEvent[]>;
  /** After the commit of an event seen for the first time. */
  afterCommit?(event: Stripe.Event): void;
}

const customerIdOf = (event: Stripe.Event): string | null => {
  const object = event.data.object as { customer?: string | { id: string } | null };
  return typeof object.customer === 'string' ? object.customer : (object.customer?.id ?? null);
};

interface CustomerCards {
  customer: Stripe.Customer;
  cards: Stripe.PaymentMethod[];
}

/** The customer and their cards, as Stripe has them now. */
async function fetchCustomerCards(
  client: Stripe,
  customerId: string | null,
): Promise<Partial<CustomerCards>> {
  if (!customerId) return {};
  const retrieved = await client.customers.retrieve(customerId);
  const cards = (
    await client.paymentMethods.list({ customer: customerId, type: 'card', limit: 100 })
  ).data;
  return { customer: retrieved.deleted ? undefined : retrieved, cards };
}

/** The cards of a customer we know, mirrored; changes made in Stripe's portal on the activity log. */
async function mirrorCards(
  transaction: Executor,
  { customer, cards }: Partial<CustomerCards>,
  now: Date,
): Promise<void> {
  if (!customer || !cards) return;
  const [known] = await transaction
    .select()
    .from(billingCustomers)
    .where(eq(billingCustomers.id, customer.id));
  if (!known) return;
  const defaultCard = customer.invoice_settings?.default_payment_method;
  const savedCards = () =>
    transaction
      .select()
      .from(paymentMethods)
      .where(
        and(eq(paymentMethods.billingCustomerId, customer.id), isNull(paymentMethods.detachedAt)),
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

/** customer.subscription.*: the subscription mirrored; its end or its recovery raised. */
function subscriptionChanged(deps: WebhookEventDeps): WebhookEventHandler {
  return {
    fetch: async () => undefined,
    async apply(transaction, event, _fetched, now) {
      const subscription = event.data.object as Stripe.Subscription;
      const [before] = await transaction
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.id, subscription.id));
      const after = await mirrorSubscription(transaction, subscription, now, deps.today());
      const raised: BillingEvent[] = [];
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
      return raised;
    },
  };
}

/** invoice.*: the invoice mirrored; payments made and failed on the activity log (decision 092). */
function invoiceChanged(): WebhookEventHandler {
  return {
    fetch: async () => undefined,
    async apply(transaction, event) {
      const invoice = event.data.object as Stripe.Invoice;
      await mirrorInvoice(transaction, invoice);
      // Stripe sends invoice.paid with invoice.payment_succeeded: one of them is recorded.
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
      return [];
    },
    afterCommit(event) {
      if (event.type === 'invoice.payment_failed' || event.type === 'invoice.payment_succeeded') {
        countPayment('stripe', event.type === 'invoice.payment_succeeded');
      }
    },
  };
}

/**
 * checkout.session.completed: a card-setup page's card becomes the default (decision 129); a
 * subscription's checkout (a pricing table's names its SIM by the client reference) mirrors the
 * customer, the subscription and the cards, and raises checkout.completed.
 */
function checkoutCompleted(deps: WebhookEventDeps): WebhookEventHandler {
  const { client } = deps;
  return {
    async fetch(event) {
      const session = event.data.object as Stripe.Checkout.Session;
      const customerId = customerIdOf(event);
      const setupIntentId =
        typeof session.setup_intent === 'string' ? session.setup_intent : session.setup_intent?.id;
      if (session.mode === 'setup' && setupIntentId && customerId) {
        const intent = await client.setupIntents.retrieve(setupIntentId);
        const card =
          typeof intent.payment_method === 'string'
            ? intent.payment_method
            : intent.payment_method?.id;
        if (card) {
          await client.customers.update(
            customerId,
            { invoice_settings: { default_payment_method: card } },
            { idempotencyKey: `setup-default-${session.id}` },
          );
        }
      }
      const subscriptionId =
        typeof session.subscription === 'string' ? session.subscription : session.subscription?.id;
      let subscription = subscriptionId
        ? await client.subscriptions.retrieve(subscriptionId)
        : undefined;
      if (subscription && !subscription.metadata?.iccid && session.client_reference_id) {
        subscription = await client.subscriptions.update(
          subscription.id,
          { metadata: { iccid: session.client_reference_id } },
          { idempotencyKey: `checkout-iccid-${session.id}` },
        );
      }
      return { subscription, ...(await fetchCustomerCards(client, customerId)) };
    },
    async apply(transaction, event, fetched, now) {
      const session = event.data.object as Stripe.Checkout.Session;
      const { subscription, customer, cards } = fetched as Partial<CustomerCards> & {
        subscription: Stripe.Subscription | undefined;
      };
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
      const mirrored = subscription
        ? await mirrorSubscription(transaction, subscription, now, deps.today())
        : undefined;
      await mirrorCards(transaction, { customer, cards }, now);
      return mirrored
        ? [
            {
              type: 'checkout.completed',
              sessionId: session.id,
              billingCustomerId: mirrored.billingCustomerId,
              subscriptionId: mirrored.id,
              clientReferenceId: session.client_reference_id,
              metadata: (session.metadata ?? {}) as Record<string, string>,
            },
          ]
        : [];
    },
  };
}

/** payment_method.*, customer.updated: the customer's cards and default card mirrored. */
function cardsChanged(deps: WebhookEventDeps): WebhookEventHandler {
  return {
    fetch: (event) => fetchCustomerCards(deps.client, customerIdOf(event)),
    async apply(transaction, _event, fetched, now) {
      await mirrorCards(transaction, fetched as Partial<CustomerCards>, now);
      return [];
    },
  };
}

/** The handler of an event's type; undefined for a type we only record as seen. */
export function webhookEventHandlers(
  deps: WebhookEventDeps,
): (type: string) => WebhookEventHandler | undefined {
  const subscription = subscriptionChanged(deps);
  const invoice = invoiceChanged();
  const checkout = checkoutCompleted(deps);
  const cards = cardsChanged(deps);
  return (type) => {
    if (type.startsWith('customer.subscription.')) return subscription;
    if (type.startsWith('invoice.')) return invoice;
    if (type === 'checkout.session.completed') return checkout;
    if (type.startsWith('payment_method.') || type === 'customer.updated') return cards;
    return undefined;
  };
}
