/**
 * A local HTTP fake of the part of the Stripe API the adapter uses, so the Stripe adapter is
 * tested through the official SDK (pointed here with its host/port/protocol options) without a
 * network. It keeps state in memory, honours Idempotency-Key like Stripe (same key, same answer),
 * charges with test payment methods (`pm_card_visa`, `pm_card_mastercard` succeed;
 * `pm_card_chargeCustomerFail` attaches but every charge fails), prorates plan changes with the
 * same arithmetic as the local engine, records the events Stripe would send, and can be told to
 * fail or stall the next requests.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { addInterval, calculateProration } from '@farmcam/billing/proration';

type Json = Record<string, unknown>;
type StripeObject = Json & { id: string };

interface FakeCard {
  id: string;
  customer: string | null;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  failsCharges: boolean;
  created: number;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** Stripe's form encoding (`a[b][0][c]=v`) back into nested objects and arrays. */
export function parseStripeForm(body: string): Json {
  const result: Json = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const keys = rawKey.replace(/\]/g, '').split('[');
    let target: Record<string, unknown> = result;
    keys.forEach((key, index) => {
      if (index === keys.length - 1) {
        target[key] = value;
        return;
      }
      const nextIsIndex = /^\d+$/.test(keys[index + 1]!);
      target[key] ??= nextIsIndex ? [] : {};
      target = target[key] as Record<string, unknown>;
    });
  }
  return result;
}

const testPaymentMethods: Record<string, { brand: string; last4: string; failsCharges: boolean }> =
  {
    pm_card_visa: { brand: 'visa', last4: '4242', failsCharges: false },
    pm_card_mastercard: { brand: 'mastercard', last4: '4444', failsCharges: false },
    pm_card_chargeCustomerFail: { brand: 'visa', last4: '0341', failsCharges: true },
  };

class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface StripeFake {
  url: string;
  /** Events Stripe would have sent, oldest first. */
  events: StripeObject[];
  /** Requests received, e.g. to check idempotency keys were sent. */
  requests: { method: string; path: string; idempotencyKey: string | undefined; body: Json }[];
  /** The next `count` requests answer `status` (500 by default) without doing anything. */
  failNext(count?: number, status?: number): void;
  /** The next request waits this long before answering (to trip the client's time-out). */
  stallNext(milliseconds: number): void;
  /** The clock the fake bills by (seconds); tests move it with the app's clock. */
  setNow(date: Date): void;
  setCardFailing(customerId: string, failsCharges: boolean): void;
  subscription(id: string): StripeObject | undefined;
  invoicesOf(customerId: string): StripeObject[];
  /**
   * A buyer pays a checkout (e.g. from a pricing table): the customer is made if none is given,
   * the card `pm_card_visa` becomes its default, the subscription is created and charged, and
   * `checkout.session.completed` is recorded. Returns that event.
   */
  completeCheckout(input: {
    priceLookupKey: string;
    email: string;
    clientReferenceId: string;
    customer?: string;
    metadata?: Record<string, string>;
  }): StripeObject;
  /**
   * A buyer completes a setup-mode checkout (a card-setup page) with `pm_card_visa` or another
   * test card: the card is attached to the session's customer through a SetupIntent and
   * `checkout.session.completed` is recorded. Returns that event.
   */
  completeSetup(sessionId: string, card?: string): StripeObject;
  /** The customer's tax ids (as listed by Stripe). */
  taxIdsOf(customerId: string): { type: string; value: string }[];
  customer(customerId: string): StripeObject | undefined;
  /** Refunds made, oldest first. */
  refunds: StripeObject[];
  /** Credit notes issued, oldest first. */
  creditNotes: StripeObject[];
  close(): Promise<void>;
}

export async function startStripeFake(start: Date): Promise<StripeFake> {
  let nowSeconds = Math.floor(start.getTime() / 1000);
  const customers = new Map<string, StripeObject>();
  const products = new Map<string, StripeObject>();
  const prices = new Map<string, StripeObject>();
  const subscriptions = new Map<string, StripeObject>();
  const invoices = new Map<string, StripeObject>();
  const cards = new Map<string, FakeCard>();
  /** Requests by idempotency key; status 0 while the first is still running. */
  const idempotent = new Map<
    string,
    { endpoint: string; body: string; status: number; response: unknown }
  >();
  const events: StripeObject[] = [];
  const refunds: StripeObject[] = [];
  const creditNotes: StripeObject[] = [];
  const taxIds: (StripeObject & { customer: string; type: string; value: string })[] = [];
  const setupIntents = new Map<string, StripeObject>();
  const checkoutSessions = new Map<string, StripeObject>();
  const requests: StripeFake['requests'] = [];
  let failures: { count: number; status: number } = { count: 0, status: 500 };
  let stallMs = 0;

  const emit = (type: string, object: unknown) =>
    events.push({
      id: id('evt'),
      object: 'event',
      type,
      created: nowSeconds,
      data: { object: structuredClone(object) },
      api_version: '2026-10-28.endive',
    });

  const list = (data: unknown[]) => ({ object: 'list', data, has_more: false, url: '' });

  function attachCard(token: string, customer: string): FakeCard {
    const known = testPaymentMethods[token];
    if (!known)
      throw new StripeFailure(400, 'invalid_request_error', `No such PaymentMethod: '${token}'`);
    const card: FakeCard = {
      id: id('pm'),
      customer,
      ...known,
      expMonth: 12,
      expYear: 2034,
      created: nowSeconds,
    };
    cards.set(card.id, card);
    return card;
  }

  const cardObject = (card: FakeCard) => ({
    id: card.id,
    object: 'payment_method',
    type: 'card',
    customer: card.customer,
    created: card.created,
    card: {
      brand: card.brand,
      last4: card.last4,
      exp_month: card.expMonth,
      exp_year: card.expYear,
    },
  });

  function defaultCardOf(customerId: string): FakeCard | undefined {
    const customer = customers.get(customerId);
    const settings = customer?.invoice_settings as
      { default_payment_method: string | null } | undefined;
    return settings?.default_payment_method
      ? cards.get(settings.default_payment_method)
      : undefined;
  }

  function priceObject(priceId: string) {
    const price = prices.get(priceId);
    if (!price)
      throw new StripeFailure(400, 'invalid_request_error', `No such price: '${priceId}'`);
    return price;
  }

  /** Creates an invoice for `total`, applying and updating the customer's balance. */
  function createInvoice(
    customerId: string,
    subscriptionId: string | null,
    lines: { description: string; amount: number }[],
    currency: string,
  ) {
    const customer = customers.get(customerId)!;
    const total = lines.reduce((sum, line) => sum + line.amount, 0);
    const withBalance = total + Number(customer.balance ?? 0);
    const invoiceId = id('in');
    const invoice: StripeObject = {
      id: invoiceId,
      object: 'invoice',
      customer: customerId,
      number: `FAKE-${invoices.size + 1}`,
      status: 'open',
      total,
      amount_due: Math.max(withBalance, 0),
      amount_paid: 0,
      starting_balance: Number(customer.balance ?? 0),
      ending_balance: Math.min(withBalance, 0),
      currency,
      created: nowSeconds,
      period_start: nowSeconds,
      period_end: nowSeconds,
      description: null,
      hosted_invoice_url: `https://invoice.stripe.test/i/${invoiceId}`,
      invoice_pdf: `https://pay.stripe.test/invoice/${invoiceId}/pdf`,
      lines: list(lines.map((line) => ({ object: 'line_item', ...line }))),
      parent: subscriptionId
        ? {
            type: 'subscription_details',
            quote_details: null,
            subscription_details: { subscription: subscriptionId, metadata: {} },
          }
        : null,
      status_transitions: { paid_at: null },
    };
    return { invoice, newBalance: Math.min(withBalance, 0) };
  }

  function pay(invoice: StripeObject): boolean {
    if (invoice.amount_due === 0) {
      Object.assign(invoice, { status: 'paid', status_transitions: { paid_at: nowSeconds } });
      return true;
    }
    const card = defaultCardOf(String(invoice.customer));
    if (!card || card.failsCharges) return false;
    Object.assign(invoice, {
      status: 'paid',
      amount_paid: invoice.amount_due,
      status_transitions: { paid_at: nowSeconds },
    });
    return true;
  }

  function subscriptionItem(subscription: StripeObject) {
    return (subscription.items as { data: Json[] }).data[0]!;
  }

  const handlers: {
    method: string;
    pattern: RegExp;
    handle: (match: RegExpMatchArray, body: Json, query: URLSearchParams) => unknown;
  }[] = [
    {
      method: 'POST',
      pattern: /^\/v1\/customers$/,
      handle: (_match, body) => {
        const customer: StripeObject = {
          id: id('cus'),
          object: 'customer',
          email: body.email ?? null,
          metadata: body.metadata ?? {},
          balance: 0,
          currency: 'gbp',
          created: nowSeconds,
          invoice_settings: { default_payment_method: null },
        };
        customers.set(customer.id, customer);
        emit('customer.created', customer);
        return customer;
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/customers\/([^/]+)$/,
      handle: (match) => {
        const customer = customers.get(match[1]!);
        if (!customer)
          throw new StripeFailure(404, 'invalid_request_error', `No such customer: '${match[1]}'`);
        return customer;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/customers\/([^/]+)$/,
      handle: (match, body) => {
        const customer = customers.get(match[1]!);
        if (!customer)
          throw new StripeFailure(404, 'invalid_request_error', `No such customer: '${match[1]}'`);
        if (body.invoice_settings)
          Object.assign(customer.invoice_settings as Json, body.invoice_settings);
        if (body.name !== undefined) customer.name = body.name;
        if (body.address !== undefined) customer.address = body.address;
        if (body.balance !== undefined) customer.balance = Number(body.balance);
        emit('customer.updated', customer);
        return customer;
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/customers\/([^/]+)\/tax_ids$/,
      handle: (match) => list(taxIds.filter((taxId) => taxId.customer === match[1])),
    },
    {
      method: 'POST',
      pattern: /^\/v1\/customers\/([^/]+)\/tax_ids$/,
      handle: (match, body) => {
        if (!customers.has(match[1]!))
          throw new StripeFailure(404, 'invalid_request_error', `No such customer: '${match[1]}'`);
        // Stripe checks the shape of a gb_vat value: GB and 9 or 12 digits.
        if (body.type !== 'gb_vat' || !/^GB(\d{9}|\d{12})$/.test(String(body.value)))
          throw new StripeFailure(
            400,
            'invalid_request_error',
            'Invalid value for gb_vat.',
            'tax_id_invalid',
          );
        const taxId = {
          id: id('txi'),
          object: 'tax_id',
          customer: match[1]!,
          type: String(body.type),
          value: String(body.value),
        };
        taxIds.push(taxId);
        return taxId;
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/v1\/customers\/([^/]+)\/tax_ids\/([^/]+)$/,
      handle: (match) => {
        const index = taxIds.findIndex((taxId) => taxId.id === match[2]);
        if (index < 0) throw new StripeFailure(404, 'invalid_request_error', 'No such tax id');
        taxIds.splice(index, 1);
        return { id: match[2], object: 'tax_id', deleted: true };
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/invoices\/(in_[^/]+)$/,
      handle: (match) => {
        const invoice = invoices.get(match[1]!);
        if (!invoice) throw new StripeFailure(404, 'invalid_request_error', 'No such invoice');
        return invoice;
      },
    },
    {
      // Pays an open invoice with the customer's default card, as Stripe's /pay: a paid one is
      // refused, a declined card is a 402 card_error with the attempt counted.
      method: 'POST',
      pattern: /^\/v1\/invoices\/([^/]+)\/pay$/,
      handle: (match) => {
        const invoice = invoices.get(match[1]!);
        if (!invoice) throw new StripeFailure(404, 'invalid_request_error', 'No such invoice');
        if (invoice.status === 'paid')
          throw new StripeFailure(
            400,
            'invalid_request_error',
            'Invoice is already paid',
            'invoice_already_paid',
          );
        if (invoice.status !== 'open')
          throw new StripeFailure(400, 'invalid_request_error', 'This invoice cannot be paid.');
        invoice.attempt_count = Number(invoice.attempt_count ?? 0) + 1;
        if (!pay(invoice)) {
          emit('invoice.payment_failed', invoice);
          throw new StripeFailure(402, 'card_error', 'Your card was declined.', 'card_declined');
        }
        emit('invoice.paid', invoice);
        return invoice;
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/setup_intents\/([^/]+)$/,
      handle: (match) => {
        const intent = setupIntents.get(match[1]!);
        if (!intent) throw new StripeFailure(404, 'invalid_request_error', 'No such setup intent');
        return intent;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/payment_methods\/([^/]+)\/attach$/,
      handle: (match, body) => {
        const card = attachCard(match[1]!, String(body.customer));
        emit('payment_method.attached', cardObject(card));
        return cardObject(card);
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/payment_methods$/,
      handle: (_match, _body, query) =>
        list(
          [...cards.values()]
            .filter((card) => card.customer === query.get('customer'))
            .map(cardObject),
        ),
    },
    {
      method: 'GET',
      pattern: /^\/v1\/products\/([^/]+)$/,
      handle: (match) => {
        const product = products.get(match[1]!);
        if (!product)
          throw new StripeFailure(404, 'invalid_request_error', `No such product: '${match[1]}'`);
        return product;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/products$/,
      handle: (_match, body) => {
        const product = {
          id: String(body.id ?? id('prod')),
          object: 'product',
          name: body.name,
          metadata: body.metadata ?? {},
        };
        products.set(product.id, product);
        return product;
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/prices$/,
      handle: (_match, _body, query) => {
        const keys = [...query.entries()]
          .filter(([key]) => key.startsWith('lookup_keys'))
          .map(([, value]) => value);
        return list(
          [...prices.values()].filter((price) => keys.includes(String(price.lookup_key))),
        );
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/prices$/,
      handle: (_match, body) => {
        const recurring = body.recurring as { interval: string };
        const price: StripeObject = {
          id: id('price'),
          object: 'price',
          product: body.product,
          unit_amount: Number(body.unit_amount),
          currency: body.currency,
          recurring: { interval: recurring.interval },
          lookup_key: body.lookup_key ?? null,
          active: true,
        };
        prices.set(price.id, price);
        return price;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/subscriptions$/,
      handle: (_match, body) => {
        const customerId = String(body.customer);
        const items = body.items as { price: string }[];
        const price = priceObject(items[0]!.price);
        const interval = (price.recurring as { interval: 'month' | 'year' }).interval;
        const periodStart = body.billing_cycle_anchor_start
          ? Number(body.billing_cycle_anchor_start)
          : nowSeconds;
        const periodEnd = Math.floor(
          addInterval(new Date(periodStart * 1000), interval).getTime() / 1000,
        );
        const subscriptionId = id('sub');
        const { invoice, newBalance } = createInvoice(
          customerId,
          subscriptionId,
          [
            {
              description: `1 × ${price.product} (at ${price.unit_amount} / ${interval})`,
              amount: Number(price.unit_amount),
            },
          ],
          String(price.currency),
        );
        const isPaid = pay(invoice);
        customers.get(customerId)!.balance = newBalance;
        invoices.set(invoice.id, invoice);
        const subscription: StripeObject = {
          id: subscriptionId,
          object: 'subscription',
          customer: customerId,
          status: isPaid ? 'active' : 'incomplete',
          metadata: body.metadata ?? {},
          items: list([
            {
              id: id('si'),
              object: 'subscription_item',
              price,
              current_period_start: periodStart,
              current_period_end: periodEnd,
            },
          ]),
          billing_cycle_anchor: periodStart,
          cancellation_details: { reason: null },
          pause_collection: null,
          created: nowSeconds,
          canceled_at: null,
          ended_at: null,
          latest_invoice: invoice.id,
        };
        subscriptions.set(subscription.id, subscription);
        emit('customer.subscription.created', subscription);
        emit(isPaid ? 'invoice.paid' : 'invoice.payment_failed', invoice);
        return subscription;
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/subscriptions$/,
      handle: (_match, _body, query) =>
        list(
          [...subscriptions.values()].filter(
            (subscription) => subscription.customer === query.get('customer'),
          ),
        ),
    },
    {
      method: 'GET',
      pattern: /^\/v1\/subscriptions\/([^/]+)$/,
      handle: (match) => {
        const subscription = subscriptions.get(match[1]!);
        if (!subscription)
          throw new StripeFailure(
            404,
            'invalid_request_error',
            `No such subscription: '${match[1]}'`,
          );
        return subscription;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/subscriptions\/([^/]+)$/,
      handle: (match, body) => {
        const subscription = subscriptions.get(match[1]!);
        if (!subscription)
          throw new StripeFailure(
            404,
            'invalid_request_error',
            `No such subscription: '${match[1]}'`,
          );
        const updated = structuredClone(subscription);
        if (body.metadata) {
          const metadata = { ...(updated.metadata as Json), ...(body.metadata as Json) };
          for (const [key, value] of Object.entries(metadata))
            if (value === '') delete metadata[key];
          updated.metadata = metadata;
        }
        if (body.pause_collection !== undefined) {
          updated.pause_collection =
            body.pause_collection === ''
              ? null
              : {
                  behavior: (body.pause_collection as Json).behavior,
                  resumes_at: Number((body.pause_collection as Json).resumes_at),
                };
        }
        let invoice: StripeObject | undefined;
        let newBalance: number | undefined;
        if (body.items) {
          const item = subscriptionItem(updated);
          const from = item.price as StripeObject;
          const to = priceObject((body.items as { price: string }[])[0]!.price);
          if (from.id === to.id)
            throw new StripeFailure(
              400,
              'invalid_request_error',
              'The subscription is already on this price',
            );
          const asPrice = (price: StripeObject) => ({
            name: String(price.product),
            unitAmount: Number(price.unit_amount),
            interval: (price.recurring as { interval: 'month' | 'year' }).interval,
          });
          const proration = calculateProration({
            from: asPrice(from),
            to: asPrice(to),
            periodStart: new Date(Number(item.current_period_start) * 1000),
            periodEnd: new Date(Number(item.current_period_end) * 1000),
            now: new Date(nowSeconds * 1000),
          });
          item.price = to;
          if (proration.newPeriod) {
            item.current_period_start = Math.floor(proration.newPeriod.start.getTime() / 1000);
            item.current_period_end = Math.floor(proration.newPeriod.end.getTime() / 1000);
            // Stripe resets the anchor when the interval changes.
            updated.billing_cycle_anchor = item.current_period_start;
          }
          if (body.proration_behavior === 'always_invoice') {
            ({ invoice, newBalance } = createInvoice(
              String(updated.customer),
              updated.id,
              proration.lines,
              String(to.currency),
            ));
            const isPaid = pay(invoice);
            if (!isPaid && body.payment_behavior === 'error_if_incomplete') {
              throw new StripeFailure(
                402,
                'card_error',
                'Your card was declined.',
                'card_declined',
              );
            }
            updated.latest_invoice = invoice.id;
          }
        }
        // Applied only now: a refused update changes nothing.
        subscriptions.set(updated.id, updated);
        if (invoice) {
          invoices.set(invoice.id, invoice);
          customers.get(String(updated.customer))!.balance = newBalance;
          emit('invoice.paid', invoice);
        }
        emit('customer.subscription.updated', updated);
        const expand = Object.values((body.expand as Json | undefined) ?? {});
        return expand.includes('latest_invoice') && updated.latest_invoice
          ? { ...updated, latest_invoice: invoices.get(String(updated.latest_invoice)) }
          : updated;
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/v1\/subscriptions\/([^/]+)$/,
      handle: (match) => {
        const subscription = subscriptions.get(match[1]!);
        if (!subscription)
          throw new StripeFailure(404, 'invalid_request_error', 'No such subscription');
        Object.assign(subscription, {
          status: 'canceled',
          canceled_at: nowSeconds,
          ended_at: nowSeconds,
          cancellation_details: { reason: 'cancellation_requested' },
        });
        emit('customer.subscription.deleted', subscription);
        return subscription;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/invoices\/create_preview$/,
      handle: (_match, body) => {
        const subscription = subscriptions.get(String(body.subscription));
        if (!subscription)
          throw new StripeFailure(404, 'invalid_request_error', 'No such subscription');
        if (!body.subscription_details) {
          // The subscription's upcoming invoice: its renewal at the current price.
          if (subscription.status === 'canceled' || subscription.cancel_at_period_end) {
            throw new StripeFailure(
              400,
              'invalid_request_error',
              'No upcoming invoices for this subscription',
              'invoice_upcoming_none',
            );
          }
          const price = subscriptionItem(subscription).price as StripeObject;
          const { invoice } = createInvoice(
            String(subscription.customer),
            subscription.id,
            [{ description: `1 × ${String(price.product)}`, amount: Number(price.unit_amount) }],
            String(price.currency),
          );
          return { ...invoice, id: undefined, status: 'draft' };
        }
        const details = body.subscription_details as {
          items: { price: string }[];
          proration_date?: string;
        };
        const item = subscriptionItem(subscription);
        const from = item.price as StripeObject;
        const to = priceObject(details.items[0]!.price);
        const asPrice = (price: StripeObject) => ({
          name: String(price.product),
          unitAmount: Number(price.unit_amount),
          interval: (price.recurring as { interval: 'month' | 'year' }).interval,
        });
        const proration = calculateProration({
          from: asPrice(from),
          to: asPrice(to),
          periodStart: new Date(Number(item.current_period_start) * 1000),
          periodEnd: new Date(Number(item.current_period_end) * 1000),
          now: new Date(Number(details.proration_date ?? nowSeconds) * 1000),
        });
        const { invoice } = createInvoice(
          String(subscription.customer),
          subscription.id,
          proration.lines,
          String(to.currency),
        );
        return { ...invoice, id: undefined, status: 'draft' };
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/invoices$/,
      handle: (_match, _body, query) =>
        list(
          [...invoices.values()]
            .filter((invoice) =>
              query.get('subscription')
                ? (invoice.parent as { subscription_details?: { subscription: string } } | null)
                    ?.subscription_details?.subscription === query.get('subscription')
                : invoice.customer === query.get('customer'),
            )
            .filter((invoice) => !query.get('status') || invoice.status === query.get('status'))
            .reverse(),
        ),
    },
    {
      method: 'POST',
      pattern: /^\/v1\/billing_portal\/sessions$/,
      handle: (_match, body) => {
        if (!customers.has(String(body.customer)))
          throw new StripeFailure(400, 'invalid_request_error', 'No such customer');
        const sessionId = id('bps');
        return {
          id: sessionId,
          object: 'billing_portal.session',
          customer: body.customer,
          return_url: body.return_url,
          url: `https://billing.stripe.test/p/session/${sessionId}`,
        };
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/customer_sessions$/,
      handle: (_match, body) => {
        const components = body.components as { pricing_table?: { enabled: string } } | undefined;
        if (components?.pricing_table?.enabled !== 'true')
          throw new StripeFailure(400, 'invalid_request_error', 'Enable a component');
        return {
          object: 'customer_session',
          customer: body.customer,
          client_secret: `cuss_secret_${randomBytes(12).toString('hex')}`,
          expires_at: nowSeconds + 1800,
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/invoice_payments$/,
      handle: (_match, _body, query) => {
        const invoice = invoices.get(String(query.get('invoice')));
        if (!invoice || invoice.status !== 'paid' || Number(invoice.amount_paid) === 0)
          return list([]);
        return list([
          {
            id: id('inpay'),
            object: 'invoice_payment',
            invoice: invoice.id,
            status: 'paid',
            amount_paid: invoice.amount_paid,
            payment: { type: 'payment_intent', payment_intent: `pi_${invoice.id}` },
          },
        ]);
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/refunds$/,
      handle: (_match, body) => {
        const intent = String(body.payment_intent);
        if (refunds.some((refund) => refund.payment_intent === intent))
          throw new StripeFailure(
            400,
            'invalid_request_error',
            'Charge has already been refunded.',
            'charge_already_refunded',
          );
        const invoice = invoices.get(intent.replace(/^pi_/, ''));
        if (!invoice)
          throw new StripeFailure(404, 'invalid_request_error', 'No such payment_intent');
        const refund = {
          id: id('re'),
          object: 'refund',
          payment_intent: intent,
          amount: invoice.amount_paid,
          status: 'succeeded',
          reason: body.reason ?? null,
          metadata: body.metadata ?? {},
        };
        refunds.push(refund);
        emit('refund.created', refund);
        return refund;
      },
    },
    {
      // A credit note on a paid invoice: `refund_amount` refunds that much of what the card paid,
      // `credit_amount` goes to the customer's balance (Stripe's post-payment credit note).
      method: 'POST',
      pattern: /^\/v1\/credit_notes$/,
      handle: (_match, body) => {
        const invoice = invoices.get(String(body.invoice));
        if (!invoice) throw new StripeFailure(404, 'invalid_request_error', 'No such invoice');
        if (invoice.status !== 'paid')
          throw new StripeFailure(400, 'invalid_request_error', 'The invoice is not paid.');
        const refundAmount = Number(body.refund_amount ?? 0);
        const creditAmount = Number(body.credit_amount ?? 0);
        const amount = Number(body.amount ?? refundAmount + creditAmount);
        const earlier = creditNotes.filter((note) => note.invoice === invoice.id);
        const sum = (key: string) => earlier.reduce((total, note) => total + Number(note[key]), 0);
        if (
          amount !== refundAmount + creditAmount ||
          sum('amount') + amount > Number(invoice.total) ||
          sum('refund_amount') + refundAmount > Number(invoice.amount_paid)
        ) {
          throw new StripeFailure(
            400,
            'invalid_request_error',
            'The sum of refund_amount, credit_amount and out_of_band_amount must equal the credit note amount, within what the invoice was paid.',
          );
        }
        const note: StripeObject = {
          id: id('cn'),
          object: 'credit_note',
          invoice: invoice.id,
          customer: invoice.customer,
          amount,
          refund_amount: refundAmount,
          credit_amount: creditAmount,
          reason: body.reason ?? null,
          memo: body.memo ?? null,
          metadata: body.metadata ?? {},
          refunds: [] as Json[],
        };
        if (refundAmount > 0) {
          const refund = {
            id: id('re'),
            object: 'refund',
            payment_intent: `pi_${invoice.id}`,
            amount: refundAmount,
            status: 'succeeded',
            reason: null,
            metadata: body.metadata ?? {},
          };
          refunds.push(refund);
          (note.refunds as Json[]).push({ amount_refunded: refundAmount, refund: refund.id });
          emit('refund.created', refund);
        }
        if (creditAmount > 0) {
          const customer = customers.get(String(invoice.customer))!;
          customer.balance = Number(customer.balance ?? 0) - creditAmount;
          emit('customer.updated', customer);
        }
        creditNotes.push(note);
        emit('credit_note.created', note);
        return note;
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/checkout\/sessions$/,
      handle: (_match, body) => {
        const sessionId = id('cs_test');
        const session = {
          id: sessionId,
          object: 'checkout.session',
          mode: body.mode,
          customer: body.customer ?? null,
          client_reference_id: body.client_reference_id,
          metadata: body.metadata ?? {},
          success_url: body.success_url,
          setup_intent: null,
          url: `https://checkout.stripe.test/c/pay/${sessionId}`,
        };
        checkoutSessions.set(sessionId, session);
        return session;
      },
    },
  ];

  const server = http.createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      void (async () => {
        const url = new URL(request.url ?? '/', 'http://fake');
        const method = request.method ?? 'GET';
        const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
        const body = method === 'GET' ? {} : parseStripeForm(raw);
        requests.push({ method, path: url.pathname, idempotencyKey, body });
        const send = (status: number, payload: unknown) => {
          response.writeHead(status, {
            'content-type': 'application/json',
            'request-id': id('req'),
          });
          response.end(JSON.stringify(payload));
        };
        // Keys are the account's, across endpoints, as Stripe's: the same key on another
        // endpoint or with other parameters is refused (400), and while the first request with
        // it is still running the others get 409 idempotency_key_in_use.
        const cacheKey = idempotencyKey && method === 'POST' ? idempotencyKey : undefined;
        const endpoint = `${method} ${url.pathname}`;
        const cached = cacheKey ? idempotent.get(cacheKey) : undefined;
        if (cached) {
          if (cached.endpoint !== endpoint) {
            return send(400, {
              error: {
                type: 'idempotency_error',
                message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${cached.endpoint}' vs '${endpoint}'). Try using a key other than '${cacheKey}' if you meant to execute a different request.`,
              },
            });
          }
          if (cached.body !== raw) {
            return send(400, {
              error: {
                type: 'idempotency_error',
                message:
                  'Keys for idempotent requests can only be used with the same parameters they were first used with.',
              },
            });
          }
          if (cached.status === 0) {
            return send(409, {
              error: {
                type: 'invalid_request_error',
                code: 'idempotency_key_in_use',
                message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${cacheKey}. Please try again later.`,
              },
            });
          }
          return send(cached.status, cached.response);
        }
        if (cacheKey) idempotent.set(cacheKey, { endpoint, body: raw, status: 0, response: null });
        if (stallMs > 0) {
          const wait = stallMs;
          stallMs = 0;
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
        if (failures.count > 0) {
          failures.count -= 1;
          // Stripe saves no result for a request that failed before it ran.
          if (cacheKey) idempotent.delete(cacheKey);
          return send(failures.status, {
            error: { type: 'api_error', message: 'Fake Stripe failure' },
          });
        }
        const handler = handlers.find(
          (candidate) => candidate.method === method && candidate.pattern.test(url.pathname),
        );
        if (!handler) {
          if (cacheKey) idempotent.delete(cacheKey);
          return send(404, {
            error: {
              type: 'invalid_request_error',
              message: `Unrecognized request URL (${method}: ${url.pathname})`,
            },
          });
        }
        let status = 200;
        let payload: unknown;
        try {
          payload = handler.handle(url.pathname.match(handler.pattern)!, body, url.searchParams);
        } catch (error) {
          if (!(error instanceof StripeFailure)) throw error;
          status = error.status;
          payload = { error: { type: error.type, message: error.message, code: error.code } };
        }
        if (cacheKey) idempotent.set(cacheKey, { endpoint, body: raw, status, response: payload });
        send(status, payload);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    events,
    requests,
    failNext: (count = 1, status = 500) => {
      failures = { count, status };
    },
    stallNext: (milliseconds) => {
      stallMs = milliseconds;
    },
    setNow: (date) => {
      nowSeconds = Math.floor(date.getTime() / 1000);
    },
    setCardFailing: (customerId, failsCharges) => {
      for (const card of cards.values())
        if (card.customer === customerId) card.failsCharges = failsCharges;
    },
    subscription: (subscriptionId) => subscriptions.get(subscriptionId),
    completeSetup: (sessionId, token = 'pm_card_visa') => {
      const session = checkoutSessions.get(sessionId);
      if (!session || session.mode !== 'setup') throw new Error(`No setup session ${sessionId}`);
      const card = attachCard(token, String(session.customer));
      const intent = {
        id: id('seti'),
        object: 'setup_intent',
        customer: session.customer,
        payment_method: card.id,
        status: 'succeeded',
      };
      setupIntents.set(intent.id, intent);
      emit('payment_method.attached', cardObject(card));
      Object.assign(session, { status: 'complete', setup_intent: intent.id });
      emit('checkout.session.completed', session);
      return events.at(-1)!;
    },
    taxIdsOf: (customerId) =>
      taxIds
        .filter((taxId) => taxId.customer === customerId)
        .map((taxId) => ({ type: taxId.type, value: taxId.value })),
    customer: (customerId) => customers.get(customerId),
    refunds,
    creditNotes,
    completeCheckout: (input) => {
      const price = [...prices.values()].find(
        (candidate) => candidate.lookup_key === input.priceLookupKey,
      );
      if (!price) throw new Error(`No price with lookup key ${input.priceLookupKey}`);
      const call = (method: string, path: string, body: Json) => {
        const handler = handlers.find(
          (candidate) => candidate.method === method && candidate.pattern.test(path),
        )!;
        return handler.handle(
          path.match(handler.pattern)!,
          body,
          new URLSearchParams(),
        ) as StripeObject;
      };
      const customerId = input.customer ?? call('POST', '/v1/customers', { email: input.email }).id;
      const card = call('POST', '/v1/payment_methods/pm_card_visa/attach', {
        customer: customerId,
      });
      call('POST', `/v1/customers/${customerId}`, {
        invoice_settings: { default_payment_method: card.id },
      });
      const subscription = call('POST', '/v1/subscriptions', {
        customer: customerId,
        items: [{ price: price.id }],
        metadata: input.metadata ?? {},
      });
      const session = {
        id: id('cs_test'),
        object: 'checkout.session',
        mode: 'subscription',
        status: 'complete',
        payment_status: 'paid',
        customer: customerId,
        customer_details: { email: input.email },
        subscription: subscription.id,
        client_reference_id: input.clientReferenceId,
        metadata: input.metadata ?? {},
      };
      emit('checkout.session.completed', session);
      return events.at(-1)!;
    },
    invoicesOf: (customerId) =>
      [...invoices.values()].filter((invoice) => invoice.customer === customerId),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
