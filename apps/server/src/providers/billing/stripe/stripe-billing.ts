/**
 * The Stripe adapter of the billing port (BILLING=stripe), on the official `stripe` SDK.
 *
 * - Writes go to Stripe first with an idempotency key, then the answer is mirrored into our
 *   tables in one transaction; webhooks (webhooks.ts: verified with `constructEvent` on the raw
 *   body, deduplicated by event id) keep the mirror right for what happens inside Stripe.
 * - Our catalogue ids are Stripe lookup keys: products are created with our ids (`prod_light`),
 *   prices carry `lookup_key = price_light_month_uk`, so ids in our tables stay stable.
 * - Plan changes use `proration_behavior: 'always_invoice'` with `payment_behavior:
 *   'error_if_incomplete'`: the difference is charged at once and a declined card rejects the
 *   whole update. Pauses use `pause_collection` (behaviour void) from a week before the pause
 *   starts (see applyScheduledPauses) until it ends.
 */
import Stripe from 'stripe';
import { isPeriodPaused } from '@farmcam/billing/pause-policy';
import { and, eq, isNotNull, lte, gt } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { billingCustomers, prices, products, subscriptions } from '../../../db/schema.ts';
import type { Clock } from '../../../lib/clock.ts';
import {
  BillingError,
  type BillingEvent,
  type BillingEventHandler,
  type BillingProvider,
  type CheckoutHooks,
  type SubscriptionRow,
} from '@farmcam/billing';
import { businessDay, dayMs } from '../../../lib/business-calendar.ts';
import { isoDay } from '@farmcam/billing/money';
import {
  mirrorCustomer,
  mirrorInvoice,
  mirrorPaymentMethods,
  mirrorSubscription,
} from './stripe-mirror.ts';
import { createTrackedStripeHttpClient } from './tracked-http-client.ts';
import { createStripeWebhookHandler } from './webhooks.ts';

/** pause_collection is switched on this many days before a pause starts (after the last renewal). */
const pauseCollectionLeadDays = 7;

export interface StripeBilling extends BillingProvider {
  readonly kind: 'stripe';
  readonly client: Stripe;
  /** Verifies, deduplicates and applies a webhook; false when the event was seen before. */
  handleWebhook(
    rawBody: Buffer,
    signature: string,
  ): Promise<{ isDuplicate: boolean; type: string }>;
  /** Pulls a customer's subscriptions, invoices and cards into the mirror (reconciliation). */
  syncCustomer(billingCustomerId: string): Promise<void>;
  /** Switches on pause_collection for pauses about to start. */
  applyScheduledPauses(): Promise<number>;
}

export interface StripeBillingDeps {
  db: Database;
  clock: Clock;
  secretKey: string;
  webhookSecret: string;
  /** Another API address, e.g. http://127.0.0.1:12111 for a local fake. */
  apiUrl: string | undefined;
  /** Per-request time-out; the SDK's default is 80 s. */
  timeoutMs?: number;
  /** Makes the portal account of a pricing-table checkout paid by a new e-mail (activation). */
  checkoutHooks?: CheckoutHooks;
}

/** Stripe failures in the port's terms. */
export function toBillingError(error: unknown): unknown {
  if (error instanceof BillingError) return error;
  if (error instanceof Stripe.errors.StripeCardError) {
    return new BillingError('card_declined', error.message || 'Your card was declined.');
  }
  // Another request with the same key is still running at Stripe (the SDK has retried once):
  // nothing was done twice, and a retry soon gets the first request's answer.
  if (error instanceof Stripe.errors.StripeError && error.code === 'idempotency_key_in_use') {
    return new BillingError(
      'unavailable',
      'This request is already being processed. Try again shortly.',
    );
  }
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    return new BillingError('invalid', error.message);
  }
  if (error instanceof Stripe.errors.StripeError) {
    return new BillingError(
      'unavailable',
      'The payment provider did not answer. Please try again: a retried request is never applied twice.',
    );
  }
  return error;
}

async function call<Result>(work: () => Promise<Result>): Promise<Result> {
  try {
    return await work();
  } catch (error) {
    throw toBillingError(error);
  }
}

const epochOfDay = (day: string) => Math.floor(new Date(`${day}T00:00:00Z`).getTime() / 1000);

export function createStripeBilling(deps: StripeBillingDeps): StripeBilling {
  const { db, clock } = deps;
  const api = deps.apiUrl ? new URL(deps.apiUrl) : undefined;
  const client = new Stripe(deps.secretKey, {
    maxNetworkRetries: 1,
    timeout: deps.timeoutMs ?? 20_000,
    telemetry: false,
    httpClient: createTrackedStripeHttpClient(),
    ...(api && {
      host: api.hostname,
      port: api.port || (api.protocol === 'https:' ? 443 : 80),
      protocol: api.protocol === 'https:' ? 'https' : 'http',
    }),
  });
  const handlers: BillingEventHandler[] = [];
  const stripePriceIds = new Map<string, string>();
  // The UK day, as every pause rule counts it (docs/decisions/081).
  const today = () => businessDay(clock.now());

  async function raise(events: BillingEvent[]) {
    for (const event of events) for (const handler of handlers) await handler(event);
  }

  /** Stripe's price id for one of our catalogue prices, creating product and price if missing. */
  async function stripePriceId(priceId: string): Promise<string> {
    const cached = stripePriceIds.get(priceId);
    if (cached) return cached;
    const listed = await client.prices.list({ lookup_keys: [priceId], limit: 1 });
    let price = listed.data[0];
    if (!price) {
      const [row] = await db
        .select({ price: prices, product: products })
        .from(prices)
        .innerJoin(products, eq(products.id, prices.productId))
        .where(eq(prices.id, priceId));
      if (!row) throw new BillingError('invalid', 'That plan is not available');
      try {
        await client.products.retrieve(row.product.id);
      } catch (error) {
        if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
        await client.products.create(
          { id: row.product.id, name: row.product.name, metadata: row.product.metadata },
          { idempotencyKey: `product-${row.product.id}` },
        );
      }
      price = await client.prices.create(
        {
          product: row.product.id,
          unit_amount: row.price.unitAmount,
          currency: row.price.currency,
          recurring: { interval: row.price.interval },
          lookup_key: row.price.id,
        },
        { idempotencyKey: `price-${row.price.id}` },
      );
    }
    stripePriceIds.set(priceId, price.id);
    return price.id;
  }

  async function requireSubscription(subscriptionId: string): Promise<SubscriptionRow> {
    const [row] = await db.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId));
    if (!row) throw new BillingError('invalid', 'No such subscription');
    return row;
  }

  async function mirrorSubscriptionNow(
    subscription: Stripe.Subscription,
  ): Promise<SubscriptionRow> {
    const row = await db.transaction((transaction) =>
      mirrorSubscription(transaction, subscription, clock.now(), today()),
    );
    if (!row) throw new BillingError('invalid', 'This subscription is not linked to a camera');
    return row;
  }

  async function syncCustomer(billingCustomerId: string) {
    const [customer, subscriptionList, invoiceList, cardList] = await Promise.all([
      client.customers.retrieve(billingCustomerId),
      client.subscriptions.list({ customer: billingCustomerId, status: 'all', limit: 100 }),
      client.invoices.list({ customer: billingCustomerId, limit: 100 }),
      client.paymentMethods.list({ customer: billingCustomerId, type: 'card', limit: 100 }),
    ]);
    if (customer.deleted) return;
    await db.transaction(async (transaction) => {
      const [row] = await transaction
        .select()
        .from(billingCustomers)
        .where(eq(billingCustomers.id, billingCustomerId));
      const portalCustomerId = row?.customerId ?? customer.metadata?.portal_customer_id;
      if (!portalCustomerId) return;
      await mirrorCustomer(transaction, customer, portalCustomerId);
      for (const subscription of subscriptionList.data) {
        await mirrorSubscription(transaction, subscription, clock.now(), today());
      }
      for (const invoice of invoiceList.data) await mirrorInvoice(transaction, invoice);
      const defaultCard = customer.invoice_settings?.default_payment_method;
      await mirrorPaymentMethods(
        transaction,
        billingCustomerId,
        cardList.data,
        typeof defaultCard === 'string' ? defaultCard : (defaultCard?.id ?? null),
        clock.now(),
      );
    });
  }

  /** Switches pause_collection on once the last invoice before the pause has been issued. */
  async function syncPauseCollection(subscription: SubscriptionRow, idempotencyKey: string) {
    if (!subscription.pauseStartsOn || !subscription.pauseResumesOn) return;
    const leadDay = isoDay(
      new Date(
        new Date(`${subscription.pauseStartsOn}T00:00:00Z`).getTime() -
          pauseCollectionLeadDays * dayMs,
      ),
    );
    if (today() < leadDay) return;
    const updated = await client.subscriptions.update(
      subscription.id,
      {
        pause_collection: { behavior: 'void', resumes_at: epochOfDay(subscription.pauseResumesOn) },
      },
      { idempotencyKey: `${idempotencyKey}-collection` },
    );
    await mirrorSubscriptionNow(updated);
  }

  const adapter: StripeBilling = {
    kind: 'stripe',
    client,
    now: () => clock.now(),
    onEvent(handler) {
      handlers.push(handler);
    },

    async createCustomer(input) {
      return call(async () => {
        const customer = await client.customers.create(
          { email: input.email, metadata: { portal_customer_id: input.portalCustomerId } },
          { idempotencyKey: `customer-${input.idempotencyKey}` },
        );
        return db.transaction((transaction) =>
          mirrorCustomer(transaction, customer, input.portalCustomerId),
        );
      });
    },

    async previewPlanChange(input) {
      return call(async () => {
        const row = await requireSubscription(input.subscriptionId);
        const current = await client.subscriptions.retrieve(row.id);
        const item = current.items.data[0];
        if (!item) throw new BillingError('invalid', 'This subscription has no plan');
        const preview = await client.invoices.createPreview({
          customer: row.billingCustomerId,
          subscription: row.id,
          subscription_details: {
            items: [{ id: item.id, price: await stripePriceId(input.newPriceId) }],
            proration_behavior: 'always_invoice',
            proration_date: Math.floor(clock.now().getTime() / 1000),
          },
        });
        return {
          amountDue: preview.amount_due,
          credit: Math.max(-(preview.total ?? 0), 0),
          currency: preview.currency,
          lines: preview.lines.data.map((line) => ({
            description: line.description ?? '',
            amount: line.amount,
          })),
        };
      });
    },

    async previewUpcomingInvoice(input) {
      return call(async () => {
        const row = await requireSubscription(input.subscriptionId);
        if (!['active', 'paused', 'past_due'].includes(row.status)) return null;
        // A renewal inside a pause is voided by pause_collection: nothing will be charged.
        if (isPeriodPaused(row, row.currentPeriodEnd)) return null;
        try {
          // Since the 2025-03-31 API the preview is per subscription (no customer-wide one).
          const preview = await client.invoices.createPreview({
            customer: row.billingCustomerId,
            subscription: row.id,
          });
          return {
            subscriptionId: row.id,
            raisedAt: row.currentPeriodEnd,
            total: preview.total,
            amountDue: preview.amount_due,
            currency: preview.currency,
            lines: preview.lines.data.map((line) => ({
              description: line.description ?? '',
              amount: line.amount,
            })),
          };
        } catch (error) {
          // A subscription ending at its period's end has no upcoming invoice.
          if (
            error instanceof Stripe.errors.StripeInvalidRequestError &&
            error.code === 'invoice_upcoming_none'
          ) {
            return null;
          }
          throw error;
        }
      });
    },

    async changePlan(input) {
      return call(async () => {
        const row = await requireSubscription(input.subscriptionId);
        const current = await client.subscriptions.retrieve(row.id);
        const item = current.items.data[0];
        if (!item) throw new BillingError('invalid', 'This subscription has no plan');
        const updated = await client.subscriptions.update(
          row.id,
          {
            items: [{ id: item.id, price: await stripePriceId(input.newPriceId) }],
            proration_behavior: 'always_invoice',
            payment_behavior: 'error_if_incomplete',
            expand: ['latest_invoice'],
          },
          { idempotencyKey: input.idempotencyKey },
        );
        const invoice =
          updated.latest_invoice && typeof updated.latest_invoice !== 'string'
            ? updated.latest_invoice
            : null;
        const subscription = await db.transaction(async (transaction) => {
          const mirrored = await mirrorSubscription(transaction, updated, clock.now(), today());
          if (invoice) await mirrorInvoice(transaction, invoice);
          return mirrored;
        });
        if (!subscription)
          throw new BillingError('invalid', 'This subscription is not linked to a camera');
        return {
          subscription,
          invoice:
            invoice?.id !== undefined
              ? {
                  id: invoice.id,
                  amountDue: invoice.amount_due,
                  currency: invoice.currency,
                  status: invoice.status ?? 'draft',
                }
              : null,
        };
      });
    },

    async schedulePause(input) {
      return call(async () => {
        await requireSubscription(input.subscriptionId);
        const updated = await client.subscriptions.update(
          input.subscriptionId,
          { metadata: { pause_starts_on: input.startsOn, pause_resumes_on: input.resumesOn } },
          { idempotencyKey: input.idempotencyKey },
        );
        const row = await mirrorSubscriptionNow(updated);
        await syncPauseCollection(row, input.idempotencyKey);
        return requireSubscription(input.subscriptionId);
      });
    },

    async cancelPause(input) {
      return call(async () => {
        await requireSubscription(input.subscriptionId);
        const updated = await client.subscriptions.update(
          input.subscriptionId,
          { pause_collection: '', metadata: { pause_starts_on: '', pause_resumes_on: '' } },
          { idempotencyKey: input.idempotencyKey },
        );
        return mirrorSubscriptionNow(updated);
      });
    },

    async createPortalSession(input) {
      return call(async () => {
        if (input.purpose === 'pay') {
          // Stripe's portal has no step that pays with a card just added (attaching a card pays
          // nothing; the next retry would use it), so Pay now opens the unpaid invoice's own
          // hosted page, where a new card pays it at once (decision 113). With several unpaid,
          // the portal lists each with its own Pay.
          const open = await client.invoices.list({
            customer: input.billingCustomerId,
            status: 'open',
            limit: 2,
          });
          const [only] = open.data;
          if (open.data.length === 1 && only?.hosted_invoice_url) {
            return { url: only.hosted_invoice_url };
          }
        }
        const session = await client.billingPortal.sessions.create({
          customer: input.billingCustomerId,
          return_url: input.returnUrl,
        });
        return { url: session.url };
      });
    },

    async createCustomerSecret(input) {
      return call(async () => {
        const session = await client.customerSessions.create({
          customer: input.billingCustomerId,
          components: { pricing_table: { enabled: true } },
        });
        return { secret: session.client_secret };
      });
    },

    async createCheckoutSession(input) {
      return call(async () => {
        const session = await client.checkout.sessions.create(
          {
            mode: 'subscription',
            ...(input.billingCustomerId
              ? { customer: input.billingCustomerId }
              : { customer_email: input.email }),
            line_items: [{ price: await stripePriceId(input.priceId), quantity: 1 }],
            client_reference_id: input.clientReferenceId,
            success_url: `${input.successUrl}${input.successUrl.includes('?') ? '&' : '?'}session_id={CHECKOUT_SESSION_ID}`,
            cancel_url: input.cancelUrl,
            metadata: {
              ...input.metadata,
              ...(input.portalCustomerId !== null && {
                portal_customer_id: input.portalCustomerId,
              }),
            },
            subscription_data: { metadata: { ...input.metadata, iccid: input.clientReferenceId } },
          },
          { idempotencyKey: input.idempotencyKey },
        );
        if (!session.url) throw new BillingError('unavailable', 'The checkout could not be opened');
        return { id: session.id, url: session.url };
      });
    },

    async updateCustomerDetails(input) {
      return call(async () => {
        const { details } = input;
        await client.customers.update(
          input.billingCustomerId,
          {
            name: details.name,
            address: {
              line1: details.line1,
              line2: details.line2 ?? '',
              city: details.town,
              postal_code: details.postcode,
              country: 'GB',
            },
          },
          { idempotencyKey: `${input.idempotencyKey}-address` },
        );
        // One VAT number per account: others are removed, the farm's added if it is not there.
        const taxIds = await client.customers.listTaxIds(input.billingCustomerId, { limit: 10 });
        for (const taxId of taxIds.data) {
          if (taxId.type !== 'gb_vat' || taxId.value !== details.vatNumber) {
            await client.customers.deleteTaxId(input.billingCustomerId, taxId.id);
          }
        }
        if (
          details.vatNumber &&
          !taxIds.data.some((taxId) => taxId.type === 'gb_vat' && taxId.value === details.vatNumber)
        ) {
          await client.customers.createTaxId(
            input.billingCustomerId,
            { type: 'gb_vat', value: details.vatNumber },
            { idempotencyKey: `${input.idempotencyKey}-tax-id` },
          );
        }
        await db
          .update(billingCustomers)
          .set({ details })
          .where(eq(billingCustomers.id, input.billingCustomerId));
      });
    },

    async payInvoiceNow(input) {
      return call(async () => {
        try {
          const paid = await client.invoices.pay(
            input.invoiceId,
            {},
            { idempotencyKey: input.idempotencyKey },
          );
          await db.transaction((transaction) => mirrorInvoice(transaction, paid));
          return { outcome: 'paid' as const };
        } catch (error) {
          if (error instanceof Stripe.errors.StripeCardError) {
            // Stripe records the failed attempt on the invoice: mirror it as it is now.
            const invoice = await client.invoices.retrieve(input.invoiceId);
            await db.transaction((transaction) => mirrorInvoice(transaction, invoice));
            return {
              outcome: 'declined' as const,
              reason: error.message || 'Your card was declined.',
            };
          }
          if (error instanceof Stripe.errors.StripeInvalidRequestError) {
            // "Invoice is already paid": paid elsewhere (another tab, the retry schedule).
            const invoice = await client.invoices.retrieve(input.invoiceId);
            if (invoice.status === 'paid') {
              await db.transaction((transaction) => mirrorInvoice(transaction, invoice));
              return { outcome: 'already_paid' as const };
            }
          }
          throw error;
        }
      });
    },

    async startCardSetup(input) {
      return call(async () => {
        if (input.billingCustomerIds.length === 0) {
          throw new BillingError('invalid', 'There is no camera to add a card to.');
        }
        // Stripe attaches a card to one customer only (decision 129): one setup page per
        // camera's account, each making its card the default when it completes (webhooks.ts).
        const steps = [];
        for (const [index, billingCustomerId] of input.billingCustomerIds.entries()) {
          const back = new URL(input.returnUrl);
          back.searchParams.set('card', 'saved');
          back.searchParams.set('step', String(index + 1));
          const session = await client.checkout.sessions.create(
            {
              mode: 'setup',
              customer: billingCustomerId,
              currency: 'gbp',
              success_url: back.toString(),
              cancel_url: input.returnUrl,
              metadata: { purpose: 'card_for_every_camera' },
            },
            { idempotencyKey: `${input.idempotencyKey}-${billingCustomerId}` },
          );
          if (!session.url) {
            throw new BillingError('unavailable', 'The card page could not be opened');
          }
          steps.push({ billingCustomerIds: [billingCustomerId], url: session.url });
        }
        return { steps };
      });
    },

    async refundCheckout(input) {
      return call(async () => {
        const remote = await client.subscriptions.retrieve(input.subscriptionId);
        const canceled =
          remote.status === 'canceled'
            ? remote
            : await client.subscriptions.cancel(
                input.subscriptionId,
                {},
                { idempotencyKey: `refund-cancel-${input.subscriptionId}` },
              );
        await db.transaction((transaction) =>
          mirrorSubscription(transaction, canceled, clock.now(), today()),
        );
        const invoiceList = await client.invoices.list({
          subscription: input.subscriptionId,
          limit: 10,
        });
        // Each paid invoice is given back with a credit note, as the local engine does
        // (docs/decisions/108): what the card paid refunded to it, what the customer's credit
        // balance paid credited back to the balance. The invoice stays paid.
        for (const invoice of invoiceList.data) {
          if (invoice.status !== 'paid' || !invoice.id) continue;
          const refundAmount = invoice.amount_paid;
          const creditAmount = Math.max(
            (invoice.ending_balance ?? 0) - (invoice.starting_balance ?? 0),
            0,
          );
          if (refundAmount + creditAmount <= 0) continue;
          await client.creditNotes.create(
            {
              invoice: invoice.id,
              amount: refundAmount + creditAmount,
              refund_amount: refundAmount,
              credit_amount: creditAmount,
              reason: 'order_change',
              memo: input.reason,
              metadata: { reason: input.reason },
            },
            { idempotencyKey: `refund-${invoice.id}` },
          );
        }
      });
    },

    syncCustomer: (billingCustomerId) => call(() => syncCustomer(billingCustomerId)),

    async applyScheduledPauses() {
      const horizon = businessDay(
        new Date(clock.now().getTime() + pauseCollectionLeadDays * dayMs),
      );
      const due = await db
        .select()
        .from(subscriptions)
        .where(
          and(
            isNotNull(subscriptions.pauseStartsOn),
            lte(subscriptions.pauseStartsOn, horizon),
            gt(subscriptions.pauseResumesOn, today()),
          ),
        );
      let applied = 0;
      for (const subscription of due) {
        const remote = await client.subscriptions.retrieve(subscription.id);
        if (remote.pause_collection) continue;
        await syncPauseCollection(
          subscription,
          `pause-collection-${subscription.id}-${subscription.pauseStartsOn}`,
        );
        applied += 1;
      }
      return applied;
    },

    handleWebhook: createStripeWebhookHandler({
      db,
      client,
      clock,
      webhookSecret: deps.webhookSecret,
      checkoutHooks: deps.checkoutHooks,
      today,
      raise,
    }),
  };
  return adapter;
}
