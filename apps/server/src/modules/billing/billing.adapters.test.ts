/**
 * The same service tests against both billing adapters: the local engine, and the Stripe adapter
 * talking through the official SDK to a local fake of the Stripe API (test/fakes).
 */
import Stripe from 'stripe';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActors, type Actors } from '../../../test/helpers/authorization.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { startStripeFake, type StripeFake } from '../../../test/fakes/stripe-fake-server.ts';
import {
  auditLog,
  billingCustomers,
  invoices,
  paymentMethods,
  payments,
  sims,
  subscriptions,
  webhookEvents,
} from '../../db/schema.ts';
import { seedCatalogue } from '../../seed/demo.ts';
import { BillingError } from '@farmcam/billing';
import { insertCard, insertCustomer, issueInvoice, chargeInvoice } from '@farmcam/billing-engine';
import {
  toBillingError,
  type StripeBilling,
} from '../../providers/billing/stripe/stripe-billing.ts';

const webhookSecret = 'whsec_test_secret';
const start = new Date('2026-03-10T12:00:00Z');

interface Harness {
  context: TestContext;
  actors: Actors;
  fake?: StripeFake;
  /** A camera of the owner on Light monthly (1 March - 1 April) with a working card. */
  createSubscriber(
    serial: number,
  ): Promise<{ billingCustomerId: string; subscriptionId: string; iccid: string }>;
  makeCardFail(billingCustomerId: string): Promise<void>;
}

async function createHarness(adapter: 'local' | 'stripe'): Promise<Harness> {
  const fake = adapter === 'stripe' ? await startStripeFake(start) : undefined;
  const context = await createTestContext(
    fake
      ? {
          billing: {
            mode: 'stripe',
            secretKey: 'sk_test_fake',
            webhookSecret,
            publishableKey: undefined,
            apiUrl: fake.url,
          },
        }
      : {},
  );
  context.clock.set(start);
  await seedCatalogue(context.database.db);
  const actors = await createActors(context);
  const db = context.database.db;

  async function insertSim(serial: number) {
    const iccid = `894411000000${String(serial).padStart(7, '0')}`;
    await db
      .insert(sims)
      .values({ iccid, state: 'active', customerId: actors.ownerId, nickname: `Camera ${serial}` });
    return iccid;
  }

  return {
    context,
    actors,
    fake,
    async createSubscriber(serial) {
      const iccid = await insertSim(serial);
      if (!fake) {
        const customer = await insertCustomer(db, {
          portalCustomerId: actors.ownerId,
          email: 'owner@example.com',
        });
        await insertCard(db, {
          billingCustomerId: customer!.id,
          brand: 'visa',
          last4: '4242',
          expMonth: 12,
          expYear: 2034,
          makeDefault: true,
        });
        const subscriptionId = `sub_local_${serial}`;
        await db.insert(subscriptions).values({
          id: subscriptionId,
          billingCustomerId: customer!.id,
          simIccid: iccid,
          priceId: 'price_light_month_uk',
          status: 'active',
          currentPeriodStart: new Date('2026-03-01T00:00:00Z'),
          billingCycleAnchor: new Date('2026-03-01T00:00:00Z'),
          currentPeriodEnd: new Date('2026-04-01T00:00:00Z'),
          createdAt: new Date('2026-03-01T00:00:00Z'),
        });
        const invoice = await issueInvoice(db, {
          billingCustomerId: customer!.id,
          subscriptionId,
          description: '1 × Light Streaming (at £12.00 / month)',
          total: 1200,
          currency: 'gbp',
          periodStart: new Date('2026-03-01T00:00:00Z'),
          periodEnd: new Date('2026-04-01T00:00:00Z'),
          now: new Date('2026-03-01T00:00:00Z'),
        });
        await chargeInvoice(db, invoice, new Date('2026-03-01T00:00:00Z'));
        await db.update(sims).set({ billingCustomerId: customer!.id }).where(eq(sims.iccid, iccid));
        return { billingCustomerId: customer!.id, subscriptionId, iccid };
      }
      const stripe = context.services.billing.stripe!;
      const customer = await stripe.createCustomer({
        portalCustomerId: actors.ownerId,
        email: 'owner@example.com',
        currency: 'gbp',
        idempotencyKey: `test-customer-${serial}`,
      });
      const card = await stripe.client.paymentMethods.attach('pm_card_visa', {
        customer: customer.id,
      });
      await stripe.client.customers.update(customer.id, {
        invoice_settings: { default_payment_method: card.id },
      });
      const [price] = (await stripe.client.prices.list({ lookup_keys: ['price_light_month_uk'] }))
        .data;
      const priceId =
        price?.id ??
        (
          await stripe.client.prices.create({
            product: 'prod_light',
            unit_amount: 1200,
            currency: 'gbp',
            recurring: { interval: 'month' },
            lookup_key: 'price_light_month_uk',
          })
        ).id;
      // The period 1 March - 1 April, like the local case.
      fake!.setNow(new Date('2026-03-01T00:00:00Z'));
      const subscription = await stripe.client.subscriptions.create({
        customer: customer.id,
        items: [{ price: priceId }],
        metadata: { iccid },
      });
      fake!.setNow(start);
      await db.update(sims).set({ billingCustomerId: customer.id }).where(eq(sims.iccid, iccid));
      await stripe.syncCustomer(customer.id);
      return { billingCustomerId: customer.id, subscriptionId: subscription.id, iccid };
    },
    async makeCardFail(billingCustomerId) {
      if (fake) fake.setCardFailing(billingCustomerId, true);
      else {
        await db
          .update(paymentMethods)
          .set({ last4: '0341' })
          .where(eq(paymentMethods.billingCustomerId, billingCustomerId));
      }
    },
  };
}

describe.each(['local', 'stripe'] as const)('billing service on the %s adapter', (adapter) => {
  let harness: Harness;
  let context: TestContext;
  const owner = () => harness.actors.headers.owner;

  beforeAll(async () => {
    harness = await createHarness(adapter);
    context = harness.context;
    // The Stripe SDK creates the catalogue's products before the first subscription needs them.
    if (harness.fake) {
      const stripe = context.services.billing.stripe!;
      for (const product of ['prod_light', 'prod_standard', 'prod_heavy']) {
        await stripe.client.products.create({ id: product, name: product });
      }
    }
  });
  afterAll(async () => {
    await context.close();
    await harness.fake?.close();
  });

  const invoiceCount = async (billingCustomerId: string) =>
    (
      await context.database.db
        .select()
        .from(invoices)
        .where(eq(invoices.billingCustomerId, billingCustomerId))
    ).length;
  const subscriptionRow = async (subscriptionId: string) =>
    (
      await context.database.db
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.id, subscriptionId))
    )[0]!;
  const switchPlan = (billingCustomerId: string, newPlanId: string, key?: string) =>
    context.app.inject({
      method: 'POST',
      url: '/api/subscriptions/change-plan',
      headers: { ...owner(), ...(key && { 'idempotency-key': key }) },
      payload: { customerId: billingCustomerId, newPlanId },
    });

  it('previews and charges a plan switch pro-rata, and mirrors it', async () => {
    const { billingCustomerId, subscriptionId } = await harness.createSubscriber(1);
    const preview = await context.app.inject({
      method: 'GET',
      url: `/api/subscriptions/preview-change/${billingCustomerId}?newPlanId=price_heavy_month_uk`,
      headers: owner(),
    });
    expect(preview.json()).toMatchObject({ amount_due: 1595, currency: 'gbp' });
    const before = await invoiceCount(billingCustomerId);
    const response = await switchPlan(
      billingCustomerId,
      'price_heavy_month_uk',
      'adapter-switch-0001',
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ invoice: { amount_due: 1595, status: 'paid' } });
    expect((await subscriptionRow(subscriptionId)).priceId).toBe('price_heavy_month_uk');
    expect(await invoiceCount(billingCustomerId)).toBe(before + 1);

    const retry = await switchPlan(
      billingCustomerId,
      'price_heavy_month_uk',
      'adapter-switch-0001',
    );
    expect(retry.json()).toEqual(response.json());
    expect(await invoiceCount(billingCustomerId)).toBe(before + 1);
    if (harness.fake) {
      const update = harness.fake.requests.filter(
        (request) =>
          request.method === 'POST' && request.path === `/v1/subscriptions/${subscriptionId}`,
      );
      expect(update).toHaveLength(1);
      expect(update[0]!.idempotencyKey).toBe('change-plan-adapter-switch-0001');
      expect(update[0]!.body).toMatchObject({
        proration_behavior: 'always_invoice',
        payment_behavior: 'error_if_incomplete',
      });
    }
  });

  it('changes nothing when the card is declined', async () => {
    const { billingCustomerId, subscriptionId } = await harness.createSubscriber(2);
    await harness.makeCardFail(billingCustomerId);
    const before = await subscriptionRow(subscriptionId);
    const count = await invoiceCount(billingCustomerId);
    const response = await switchPlan(billingCustomerId, 'price_standard_month_uk');
    expect(response.statusCode).toBe(422);
    expect(response.json().message).toMatch(/declined/i);
    expect(await subscriptionRow(subscriptionId)).toEqual(before);
    expect(await invoiceCount(billingCustomerId)).toBe(count);
    if (harness.fake) {
      const remote = harness.fake.subscription(subscriptionId)!;
      expect(
        (remote.items as { data: { price: { lookup_key: string } }[] }).data[0]!.price.lookup_key,
      ).toBe('price_light_month_uk');
    }
  });

  it('leaves no half-done state when the provider fails or times out, and a retry applies once', async () => {
    const { billingCustomerId, subscriptionId } = await harness.createSubscriber(3);
    const before = await subscriptionRow(subscriptionId);
    const count = await invoiceCount(billingCustomerId);
    const provider = context.services.billing.provider;
    let restore: () => void = () => undefined;
    if (harness.fake) {
      harness.fake.failNext(3, 500); // the SDK retries once; the retry fails too
    } else {
      const spy = vi
        .spyOn(provider, 'changePlan')
        .mockRejectedValueOnce(
          new BillingError('unavailable', 'The payment provider did not answer. Please try again.'),
        );
      restore = () => spy.mockRestore();
    }
    const failed = await switchPlan(
      billingCustomerId,
      'price_standard_month_uk',
      'adapter-fault-0001',
    );
    expect(failed.statusCode).toBe(503);
    expect(failed.json().message).toMatch(/try again/i);
    expect(await subscriptionRow(subscriptionId)).toEqual(before);
    expect(await invoiceCount(billingCustomerId)).toBe(count);
    restore();
    harness.fake?.failNext(0);

    const retried = await switchPlan(
      billingCustomerId,
      'price_standard_month_uk',
      'adapter-fault-0001',
    );
    expect(retried.statusCode).toBe(200);
    const again = await switchPlan(
      billingCustomerId,
      'price_standard_month_uk',
      'adapter-fault-0001',
    );
    expect(again.json()).toEqual(retried.json());
    expect(await invoiceCount(billingCustomerId)).toBe(count + 1);
  });

  if (adapter === 'stripe') {
    it('answers a clear 503 when Stripe does not answer in time', async () => {
      const { billingCustomerId, subscriptionId } = await harness.createSubscriber(4);
      const before = await subscriptionRow(subscriptionId);
      const stripe = context.services.billing.stripe as StripeBilling;
      // A client with a short time-out, as production would see a stalled Stripe.
      const slowClient = new Stripe('sk_test_fake', {
        host: '127.0.0.1',
        port: new URL(harness.fake!.url).port,
        protocol: 'http',
        timeout: 200,
        maxNetworkRetries: 0,
      });
      const spy = vi
        .spyOn(stripe.client.subscriptions, 'retrieve')
        .mockImplementation((id: string) => {
          harness.fake!.stallNext(1000);
          return slowClient.subscriptions.retrieve(id);
        });
      const response = await switchPlan(billingCustomerId, 'price_heavy_month_uk');
      spy.mockRestore();
      expect(response.statusCode).toBe(503);
      expect(await subscriptionRow(subscriptionId)).toEqual(before);
    });
  }

  it('keeps the billing cycle anchor on a switch within the interval, and moves it to a switch of interval', async () => {
    const { billingCustomerId, subscriptionId } = await harness.createSubscriber(31);
    const anchor = new Date('2026-03-01T00:00:00Z');
    expect((await subscriptionRow(subscriptionId)).billingCycleAnchor).toEqual(anchor);
    expect((await switchPlan(billingCustomerId, 'price_heavy_month_uk')).statusCode).toBe(200);
    expect(await subscriptionRow(subscriptionId)).toMatchObject({
      billingCycleAnchor: anchor,
      currentPeriodEnd: new Date('2026-04-01T00:00:00Z'),
    });
    // To the annual plan: the period restarts now, and so does the anchor (Stripe's rule).
    expect((await switchPlan(billingCustomerId, 'price_heavy_year_uk')).statusCode).toBe(200);
    const startOfSecond = new Date(Math.floor(start.getTime() / 1000) * 1000);
    expect(await subscriptionRow(subscriptionId)).toMatchObject({
      billingCycleAnchor: startOfSecond,
      currentPeriodStart: startOfSecond,
      currentPeriodEnd: new Date('2027-03-10T12:00:00Z'),
    });
  });

  it('applies 20 concurrent identical switches once', async () => {
    const { billingCustomerId, subscriptionId } = await harness.createSubscriber(5);
    const count = await invoiceCount(billingCustomerId);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        switchPlan(billingCustomerId, 'price_standard_month_uk', `adapter-concurrent-${index}`),
      ),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    expect(await invoiceCount(billingCustomerId)).toBe(count + 1);
    expect((await subscriptionRow(subscriptionId)).priceId).toBe('price_standard_month_uk');
  });

  it("previews a subscription's upcoming invoice (its renewal), and none for a period in a pause", async () => {
    const { billingCustomerId, subscriptionId } = await harness.createSubscriber(21);
    const provider = context.services.billing.provider;
    const upcoming = await provider.previewUpcomingInvoice({ subscriptionId });
    expect(upcoming).toMatchObject({
      subscriptionId,
      raisedAt: new Date('2026-04-01T00:00:00Z'),
      total: 1200,
      amountDue: 1200,
      currency: 'gbp',
    });
    expect(upcoming!.lines.map((line) => line.amount)).toEqual([1200]);
    // A preview creates nothing.
    const before = await invoiceCount(billingCustomerId);
    await provider.previewUpcomingInvoice({ subscriptionId });
    expect(await invoiceCount(billingCustomerId)).toBe(before);

    const paused = await context.app.inject({
      method: 'POST',
      url: '/api/pause/pause-subscription',
      headers: owner(),
      payload: { customer_id: billingCustomerId, resume_date: '2026-06-01' },
    });
    expect(paused.statusCode).toBe(200);
    expect(await provider.previewUpcomingInvoice({ subscriptionId })).toBeNull();
    // The later cases count the account's pauses: this one is taken back.
    const canceled = await context.app.inject({
      method: 'POST',
      url: '/api/pause/cancel-pause-subscription',
      headers: owner(),
      payload: { customer_id: billingCustomerId },
    });
    expect(canceled.statusCode).toBe(200);
  });

  it('schedules and cancels a pause', async () => {
    const { billingCustomerId, subscriptionId } = await harness.createSubscriber(6);
    const paused = await context.app.inject({
      method: 'POST',
      url: '/api/pause/pause-subscription',
      headers: owner(),
      payload: { customer_id: billingCustomerId, resume_date: '2026-06-01' },
    });
    expect(paused.json()).toMatchObject({
      success: true,
      pause: { start_date: '2026-04-01', end_date: '2026-06-01' },
    });
    expect(await subscriptionRow(subscriptionId)).toMatchObject({
      pauseStartsOn: '2026-04-01',
      pauseResumesOn: '2026-06-01',
    });
    if (harness.fake) {
      // 22 days before the start: collection is switched off only a week before.
      expect(harness.fake.subscription(subscriptionId)!.pause_collection).toBeNull();
      context.clock.set('2026-03-26T12:00:00Z');
      expect(await context.services.billing.stripe!.applyScheduledPauses()).toBe(1);
      expect(harness.fake.subscription(subscriptionId)!.pause_collection).toMatchObject({
        behavior: 'void',
        resumes_at: Date.parse('2026-06-01T00:00:00Z') / 1000,
      });
      context.clock.set(start);
    }
    const canceled = await context.app.inject({
      method: 'POST',
      url: '/api/pause/cancel-pause-subscription',
      headers: owner(),
      payload: { customer_id: billingCustomerId },
    });
    expect(canceled.json()).toMatchObject({ success: true, pause: null });
    expect(await subscriptionRow(subscriptionId)).toMatchObject({
      pauseStartsOn: null,
      pauseResumesOn: null,
      status: 'active',
    });
    if (harness.fake)
      expect(harness.fake.subscription(subscriptionId)!.pause_collection).toBeNull();
  });

  it('lists cards and invoices from our tables, and opens the portal and a customer secret', async () => {
    const { billingCustomerId } = await harness.createSubscriber(7);
    const cards = await context.app.inject({
      method: 'GET',
      url: `/api/billing/all-payment-methods/${billingCustomerId}`,
      headers: owner(),
    });
    expect(cards.json().payment_methods).toEqual([
      expect.objectContaining({
        card_brand: 'visa',
        last4: '4242',
        is_default: true,
        is_expired: false,
      }),
    ]);
    const list = await context.app.inject({
      method: 'GET',
      url: `/api/invoices/fetch-invoices/${billingCustomerId}`,
      headers: owner(),
    });
    expect(list.json().invoices[0]).toMatchObject({ status: 'paid', amount_due: 1200 });
    expect(list.json().invoices[0].invoice_pdf).toMatch(/^https?:\/\//);
    const portal = await context.app.inject({
      method: 'GET',
      url: `/api/billing/create-portal-session?customerId=${billingCustomerId}`,
      headers: owner(),
    });
    expect(portal.json().url).toMatch(/^https?:\/\//);
    const secret = await context.app.inject({
      method: 'POST',
      url: '/api/billing/create-customer-secret',
      headers: owner(),
      payload: { customerId: billingCustomerId },
    });
    expect(secret.json().secret).toMatch(/^cuss_secret_/);
  });

  if (adapter === 'stripe') {
    it("sends Pay now to the unpaid invoice's own page: Stripe's portal cannot pay with a new card (decision 113)", async () => {
      const { billingCustomerId } = await harness.createSubscriber(51);
      const payNow = async () =>
        (
          await context.app.inject({
            method: 'GET',
            url: `/api/billing/create-portal-session?customerId=${billingCustomerId}&purpose=pay`,
            headers: owner(),
          })
        ).json<{ url: string }>().url;
      // Nothing unpaid: the portal, as for managing cards.
      expect(await payNow()).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\//);
      const [invoice] = harness.fake!.invoicesOf(billingCustomerId);
      invoice!.status = 'open';
      expect(await payNow()).toBe(invoice!.hosted_invoice_url);
      invoice!.status = 'paid';
    });

    it('applies signed webhooks once and refuses bad signatures', async () => {
      const { subscriptionId } = await harness.createSubscriber(8);
      const stripe = context.services.billing.stripe!;
      await stripe.client.subscriptions.cancel(subscriptionId);
      const event = harness
        .fake!.events.filter((candidate) => candidate.type === 'customer.subscription.deleted')
        .at(-1)!;
      const payload = JSON.stringify(event);
      const header = stripe.client.webhooks.generateTestHeaderString({
        payload,
        secret: webhookSecret,
      });
      const deliver = (signature: string) =>
        context.app.inject({
          method: 'POST',
          url: '/api/webhooks/stripe',
          headers: { 'content-type': 'application/json', 'stripe-signature': signature },
          payload,
        });
      const first = await deliver(header);
      expect(first.json()).toEqual({ received: true, duplicate: false });
      expect((await subscriptionRow(subscriptionId)).status).toBe('canceled');
      expect((await deliver(header)).json()).toEqual({ received: true, duplicate: true });
      const forged = await deliver(header.replace(/v1=[0-9a-f]+/, `v1=${'0'.repeat(64)}`));
      expect(forged.statusCode).toBe(400);
      const seen = await context.database.db
        .select()
        .from(webhookEvents)
        .where(eq(webhookEvents.id, String(event.id)));
      expect(seen).toHaveLength(1);
    });

    it('holds the fake to Stripe’s idempotency: one key per request, 409 while it runs', async () => {
      const fake = harness.fake!;
      const url = new URL(fake.url);
      // No retries: the 409 is what Stripe answers before the SDK's own retry.
      const raw = new Stripe('sk_test_fake', {
        host: url.hostname,
        port: url.port,
        protocol: 'http',
        maxNetworkRetries: 0,
      });
      await raw.customers.create({ email: 'keys@example.com' }, { idempotencyKey: 'fake-key-1' });
      const otherEndpoint = await raw.products
        .create({ name: 'x' }, { idempotencyKey: 'fake-key-1' })
        .catch((error: unknown) => error);
      expect(otherEndpoint).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
      expect((otherEndpoint as Error).message).toMatch(/same endpoint/);

      fake.stallNext(300);
      const [first, second] = await Promise.allSettled([
        raw.customers.create({ email: 'stalled@example.com' }, { idempotencyKey: 'fake-key-2' }),
        new Promise((resolve) => setTimeout(resolve, 100)).then(() =>
          raw.customers.create({ email: 'stalled@example.com' }, { idempotencyKey: 'fake-key-2' }),
        ),
      ]);
      expect(first.status).toBe('fulfilled');
      expect(second.status).toBe('rejected');
      const inUse = (second as PromiseRejectedResult).reason as InstanceType<
        typeof Stripe.errors.StripeError
      >;
      expect(inUse.statusCode).toBe(409);
      expect(inUse.code).toBe('idempotency_key_in_use');
      // The adapter says so in our words: nothing was done twice, try again shortly.
      expect(toBillingError(inUse)).toEqual(
        new BillingError(
          'unavailable',
          'This request is already being processed. Try again shortly.',
        ),
      );
      const again = await raw.customers.create(
        { email: 'stalled@example.com' },
        { idempotencyKey: 'fake-key-2' },
      );
      expect(again.id).toBe((first as PromiseFulfilledResult<Stripe.Customer>).value.id);
    });

    it('refunds a checkout with credit notes: the card part to the card, the balance part to the balance', async () => {
      const stripe = context.services.billing.stripe!;
      const fake = harness.fake!;
      const customer = await stripe.createCustomer({
        portalCustomerId: harness.actors.ownerId,
        email: 'owner@example.com',
        currency: 'gbp',
        idempotencyKey: 'test-customer-refund-51',
      });
      const card = await stripe.client.paymentMethods.attach('pm_card_visa', {
        customer: customer.id,
      });
      // £5.00 of credit on the account when the plan is bought.
      await stripe.client.customers.update(customer.id, {
        invoice_settings: { default_payment_method: card.id },
        balance: -500,
      });
      const [price] = (await stripe.client.prices.list({ lookup_keys: ['price_light_month_uk'] }))
        .data;
      const subscription = await stripe.client.subscriptions.create({
        customer: customer.id,
        items: [{ price: price!.id }],
        metadata: { iccid: '8944110000000000511' },
      });
      await stripe.refundCheckout({ subscriptionId: subscription.id, reason: 'SIM taken.' });
      const notes = fake.creditNotes.filter((note) => note.customer === customer.id);
      expect(notes).toMatchObject([{ amount: 1200, refund_amount: 700, credit_amount: 500 }]);
      expect(fake.refunds.at(-1)).toMatchObject({ amount: 700 });
      expect(
        (await stripe.client.customers.retrieve(customer.id)) as Stripe.Customer,
      ).toMatchObject({ balance: -500 });
      // A retry (the app's fulfilment job) gives nothing back twice.
      await stripe.refundCheckout({ subscriptionId: subscription.id, reason: 'SIM taken.' });
      expect(fake.creditNotes.filter((note) => note.customer === customer.id)).toHaveLength(1);
    });

    it("e-mails the end of Stripe's dunning once, and nothing for a cancellation the customer asked for", async () => {
      const stripe = context.services.billing.stripe!;
      const deliverDeletion = async (subscriptionId: string, reason: string) => {
        await stripe.client.subscriptions.cancel(subscriptionId);
        const event = structuredClone(
          harness
            .fake!.events.filter(
              (candidate) =>
                candidate.type === 'customer.subscription.deleted' &&
                JSON.stringify(candidate).includes(subscriptionId),
            )
            .at(-1)!,
        ) as unknown as { data: { object: { cancellation_details: { reason: string } } } };
        // What Stripe sends when its retries ran out and the subscription is canceled.
        event.data.object.cancellation_details.reason = reason;
        const payload = JSON.stringify(event);
        await context.app.inject({
          method: 'POST',
          url: '/api/webhooks/stripe',
          headers: {
            'content-type': 'application/json',
            'stripe-signature': stripe.client.webhooks.generateTestHeaderString({
              payload,
              secret: webhookSecret,
            }),
          },
          payload,
        });
      };
      const unpaid = await harness.createSubscriber(41);
      const asked = await harness.createSubscriber(42);
      await deliverDeletion(unpaid.subscriptionId, 'payment_failed');
      await deliverDeletion(asked.subscriptionId, 'cancellation_requested');
      expect((await subscriptionRow(unpaid.subscriptionId)).cancellationReason).toBe(
        'payment_failed',
      );
      await context.services.billing.cycle.runCycle();
      await context.services.billing.cycle.runCycle();
      const mails = await context.mailer.list({ limit: 100 });
      const ended = (name: string) =>
        mails.filter((mail) => mail.subject === `The streaming plan for ${name} has ended`);
      expect(ended('Camera 41')).toHaveLength(1);
      expect(ended('Camera 41')[0]!.text).toContain(
        `/pricing/${unpaid.iccid}/${unpaid.billingCustomerId}`,
      );
      expect(ended('Camera 42')).toHaveLength(0);
    });

    it('records cards added and payments made in Stripe on the account (decision 092)', async () => {
      const { billingCustomerId, iccid } = await harness.createSubscriber(9);
      const stripe = context.services.billing.stripe!;
      const deliver = (type: string) => {
        const event = harness
          .fake!.events.filter(
            (candidate) =>
              candidate.type === type && JSON.stringify(candidate).includes(billingCustomerId),
          )
          .at(-1)!;
        const payload = JSON.stringify(event);
        return context.app.inject({
          method: 'POST',
          url: '/api/webhooks/stripe',
          headers: {
            'content-type': 'application/json',
            'stripe-signature': stripe.client.webhooks.generateTestHeaderString({
              payload,
              secret: webhookSecret,
            }),
          },
          payload,
        });
      };
      const entriesOf = async (action: string) =>
        (
          await context.database.db.select().from(auditLog).where(eq(auditLog.action, action))
        ).filter((entry) => entry.accountId === harness.actors.ownerId);

      // A card added in Stripe's portal, not yet in our tables.
      await context.database.db
        .delete(paymentMethods)
        .where(eq(paymentMethods.billingCustomerId, billingCustomerId));
      expect((await deliver('payment_method.attached')).statusCode).toBe(200);
      expect(await entriesOf('billing.card_added')).toEqual([
        expect.objectContaining({
          actorType: 'system',
          subjectId: iccid,
          details: expect.objectContaining({ brand: 'visa', last4: '4242' }),
        }),
      ]);

      expect((await deliver('invoice.paid')).statusCode).toBe(200);
      expect(await entriesOf('billing.payment_succeeded')).toEqual([
        expect.objectContaining({
          actorType: 'system',
          subjectId: iccid,
          details: expect.objectContaining({ amount: 1200, currency: 'gbp' }),
        }),
      ]);
    });
  }

  /** One open invoice of the account, as a renewal whose charge failed leaves it. */
  async function openInvoiceOf(billingCustomerId: string): Promise<string> {
    const db = context.database.db;
    if (harness.fake) {
      const [remote] = harness.fake.invoicesOf(billingCustomerId);
      Object.assign(remote!, { status: 'open', amount_paid: 0 });
      await context.services.billing.stripe!.syncCustomer(billingCustomerId);
      return remote!.id;
    }
    const invoice = await issueInvoice(db, {
      billingCustomerId,
      subscriptionId: null,
      description: '1 × Light Streaming (at £12.00 / month)',
      total: 1200,
      currency: 'gbp',
      periodStart: new Date('2026-04-01T00:00:00Z'),
      periodEnd: new Date('2026-05-01T00:00:00Z'),
      now: new Date('2026-03-10T00:00:00Z'),
    });
    return invoice.id;
  }

  it('pays an open invoice once under a key; a declined card is an outcome, not an error', async () => {
    const { billingCustomerId } = await harness.createSubscriber(61);
    await harness.makeCardFail(billingCustomerId);
    const invoiceId = await openInvoiceOf(billingCustomerId);
    const provider = context.services.billing.provider;
    const declined = await provider.payInvoiceNow({ invoiceId, idempotencyKey: 'pay-61-a' });
    expect(declined).toMatchObject({
      outcome: 'declined',
      reason: expect.stringMatching(/declined/),
    });
    const row = async () =>
      (await context.database.db.select().from(invoices).where(eq(invoices.id, invoiceId)))[0]!;
    expect((await row()).status).toBe('open');
    expect((await row()).attemptCount).toBeGreaterThan(0);

    // The card works again: paid once; the same key again answers the same, and charges nothing.
    if (harness.fake) harness.fake.setCardFailing(billingCustomerId, false);
    else {
      await context.database.db
        .update(paymentMethods)
        .set({ last4: '4242' })
        .where(eq(paymentMethods.billingCustomerId, billingCustomerId));
    }
    expect(await provider.payInvoiceNow({ invoiceId, idempotencyKey: 'pay-61-b' })).toEqual({
      outcome: 'paid',
    });
    expect(await row()).toMatchObject({ status: 'paid', amountPaid: (await row()).amountDue });
    expect(await provider.payInvoiceNow({ invoiceId, idempotencyKey: 'pay-61-b' })).toEqual({
      outcome: 'paid',
    });
    // Another click (another key) finds it paid: nothing more is taken.
    expect(await provider.payInvoiceNow({ invoiceId, idempotencyKey: 'pay-61-c' })).toEqual({
      outcome: 'already_paid',
    });
    if (harness.fake) {
      const pays = harness.fake.requests.filter(
        (request) => request.path === `/v1/invoices/${invoiceId}/pay`,
      );
      expect(pays.map((request) => request.idempotencyKey)).toEqual([
        'pay-61-a',
        'pay-61-b',
        'pay-61-b',
        'pay-61-c',
      ]);
    } else {
      const taken = await context.database.db
        .select()
        .from(payments)
        .where(and(eq(payments.invoiceId, invoiceId), eq(payments.status, 'succeeded')));
      expect(taken).toHaveLength(1);
    }
  });

  it('gives an account the billing address and VAT number, and takes the VAT number away', async () => {
    const { billingCustomerId } = await harness.createSubscriber(62);
    const provider = context.services.billing.provider;
    const details = {
      name: 'Hill Farm Ltd',
      line1: '1 Hill Road',
      line2: null,
      town: 'Exeter',
      postcode: 'EX1 2MP',
      vatNumber: 'GB123456789',
    };
    await provider.updateCustomerDetails({ billingCustomerId, details, idempotencyKey: 'd-62-1' });
    const stored = async () =>
      (
        await context.database.db
          .select()
          .from(billingCustomers)
          .where(eq(billingCustomers.id, billingCustomerId))
      )[0]!.details;
    expect(await stored()).toEqual(details);
    if (harness.fake) {
      expect(harness.fake.customer(billingCustomerId)).toMatchObject({
        name: 'Hill Farm Ltd',
        address: { line1: '1 Hill Road', city: 'Exeter', postal_code: 'EX1 2MP', country: 'GB' },
      });
      expect(harness.fake.taxIdsOf(billingCustomerId)).toEqual([
        { type: 'gb_vat', value: 'GB123456789' },
      ]);
    }
    await provider.updateCustomerDetails({
      billingCustomerId,
      details: { ...details, vatNumber: null },
      idempotencyKey: 'd-62-2',
    });
    expect(await stored()).toEqual({ ...details, vatNumber: null });
    if (harness.fake) expect(harness.fake.taxIdsOf(billingCustomerId)).toEqual([]);
  });

  if (adapter === 'stripe') {
    it('puts one card on each camera through a setup page per account, made default by the webhook', async () => {
      const first = await harness.createSubscriber(63);
      const second = await harness.createSubscriber(64);
      const stripe = context.services.billing.stripe!;
      const { steps } = await stripe.startCardSetup({
        billingCustomerIds: [first.billingCustomerId, second.billingCustomerId],
        returnUrl: 'http://portal.test/billing',
        idempotencyKey: 'setup-63',
      });
      // Stripe attaches a card to one customer only (decision 129): a page per account.
      expect(steps.map((step) => step.billingCustomerIds)).toEqual([
        [first.billingCustomerId],
        [second.billingCustomerId],
      ]);
      const sessionId = new URL(steps[0]!.url).pathname.split('/').at(-1)!;
      const event = harness.fake!.completeSetup(sessionId, 'pm_card_mastercard');
      const payload = JSON.stringify(event);
      const delivered = await context.app.inject({
        method: 'POST',
        url: '/api/webhooks/stripe',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': stripe.client.webhooks.generateTestHeaderString({
            payload,
            secret: webhookSecret,
          }),
        },
        payload,
      });
      expect(delivered.statusCode).toBe(200);
      const defaultOf = async (billingCustomerId: string) =>
        (
          await context.database.db
            .select()
            .from(paymentMethods)
            .where(
              and(
                eq(paymentMethods.billingCustomerId, billingCustomerId),
                eq(paymentMethods.isDefault, true),
              ),
            )
        )[0];
      expect(await defaultOf(first.billingCustomerId)).toMatchObject({ last4: '4444' });
      // The second camera keeps its card until its own page is completed.
      expect(await defaultOf(second.billingCustomerId)).toMatchObject({ last4: '4242' });
    });
  }
});
