/**
 * Activation with BILLING=stripe, through the official SDK against the local fake of Stripe's API:
 * Stripe's pricing tables in the config and solar check, a customer session for signed-in
 * customers, and fulfilment from the signed `checkout.session.completed` webhook, including a
 * second buyer's order that must be refunded.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActors } from '../../../test/helpers/authorization.ts';
import { startStripeFake, type StripeFake } from '../../../test/fakes/stripe-fake-server.ts';
import { createTestContext, nextIp, type TestContext } from '../../../test/helpers/test-app.ts';
import type { Config } from '../../config/config.ts';
import { billingCustomers, customers, sims, subscriptions } from '../../db/schema.ts';
import { seedDemoData, demoStockIccid, type DemoStockCode } from '../../seed/demo.ts';

const webhookSecret = 'whsec_activation_test';
const start = new Date('2026-03-10T12:00:00Z');

function stripeConfig(fake: StripeFake, withTables: boolean): Partial<Config> {
  return {
    billing: {
      mode: 'stripe',
      secretKey: 'sk_test_activation',
      webhookSecret,
      publishableKey: 'pk_test_activation',
      apiUrl: fake.url,
    },
    activation: {
      stripePricingTables: withTables
        ? { uk: 'prctbl_uk', ie: 'prctbl_ie', ukSolar: 'prctbl_uk_solar', ieSolar: undefined }
        : { uk: undefined, ie: undefined, ukSolar: undefined, ieSolar: undefined },
      setupGuideUrl: 'https://guide.test/setup',
    },
  };
}

let fake: StripeFake;
let context: TestContext;

/** Prices exist in Stripe under our catalogue ids as lookup keys (as the adapter makes them). */
async function ensureStripePrice(lookupKey: string, product: string, amount: number) {
  const client = context.services.billing.stripe!.client;
  await client.products.create({ id: product, name: product }).catch(() => undefined);
  await client.prices.create({
    product,
    unit_amount: amount,
    currency: 'gbp',
    recurring: { interval: 'month' },
    lookup_key: lookupKey,
  });
}

async function deliver(event: object) {
  const payload = JSON.stringify(event);
  const signature = context.services.billing.stripe!.client.webhooks.generateTestHeaderString({
    payload,
    secret: webhookSecret,
  });
  const response = await context.app.inject({
    method: 'POST',
    url: '/api/webhooks/stripe',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    payload,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ received: boolean; duplicate: boolean }>();
}

async function simOf(iccid: string) {
  const [row] = await context.database.db.select().from(sims).where(eq(sims.iccid, iccid));
  return row!;
}

const visitor = (url: string, payload: object) =>
  context.app.inject({ method: 'POST', url, payload, remoteAddress: nextIp() });

beforeAll(async () => {
  fake = await startStripeFake(start);
  context = await createTestContext(stripeConfig(fake, true));
  context.clock.set(start);
  await seedDemoData(context.database.db, context.clock);
  await ensureStripePrice('price_heavy_month_uk', 'prod_heavy', 3500);
  await ensureStripePrice('price_light_month_uk', 'prod_light', 1200);
});
afterAll(async () => {
  await context.close();
  await fake.close();
});

describe('Stripe pricing tables', () => {
  it('tells the wizard to draw Stripe’s element with the publishable key and the fallbacks', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/activation/config' });
    expect(response.json()).toMatchObject({
      provider: 'stripe',
      publishable_key: 'pk_test_activation',
      fallback_pricing_tables: { uk: 'prctbl_uk', other: 'prctbl_ie' },
    });
  });

  it('lets the page load exactly Stripe’s pricing-table script and frame (CSP)', async () => {
    const page = await context.app.inject({ method: 'GET', url: '/activate' });
    const policy = String(page.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self' https://js.stripe.com;");
    expect(policy).toContain('frame-src https://js.stripe.com;');
    expect(policy).toContain("connect-src 'self';");
    expect(policy).toContain("frame-ancestors 'none'");
  });

  it('names the table for the region and SIM kind; a solar table not configured falls back', async () => {
    const table = async (code: DemoStockCode, location: string) =>
      (
        await visitor('/api/activation/check-solar-sim', {
          iccid: demoStockIccid(code),
          location,
        })
      ).json();
    expect(await table('KQTX', 'uk')).toEqual({
      is_solar_sim: false,
      pricing_table_id: 'prctbl_uk',
    });
    expect(await table('KQTX', 'ie')).toEqual({
      is_solar_sim: false,
      pricing_table_id: 'prctbl_ie',
    });
    expect(await table('CXGE', 'uk')).toEqual({
      is_solar_sim: true,
      pricing_table_id: 'prctbl_uk_solar',
    });
    expect(await table('CXGE', 'ie')).toEqual({
      is_solar_sim: true,
      pricing_table_id: 'prctbl_ie',
    });
  });
});

describe('fulfilment from Stripe’s webhook', () => {
  it('a new e-mail’s pricing-table checkout becomes an account with an active camera, once', async () => {
    const iccid = demoStockIccid('KQTX');
    const event = fake.completeCheckout({
      priceLookupKey: 'price_heavy_month_uk',
      email: 'stripe.buyer@example.com',
      clientReferenceId: iccid,
    });
    expect(await deliver(event)).toEqual({ received: true, duplicate: false });

    const [account] = await context.database.db
      .select()
      .from(customers)
      .where(eq(customers.email, 'stripe.buyer@example.com'));
    const sim = await simOf(iccid);
    expect(sim).toMatchObject({ state: 'active', customerId: account!.id });
    const [billing] = await context.database.db
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.id, sim.billingCustomerId!));
    expect(billing).toMatchObject({ provider: 'stripe', customerId: account!.id });
    const [subscription] = await context.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.simIccid, iccid));
    expect(subscription).toMatchObject({ status: 'active', priceId: 'price_heavy_month_uk' });
    // The SIM is written on Stripe's subscription too, so later events mirror it.
    expect(fake.subscription(subscription!.id)!.metadata).toMatchObject({ iccid });
    const mails = await context.mailer.list({ to: 'stripe.buyer@example.com' });
    expect(mails.map((mail) => mail.subject)).toEqual(['Your Farmcam camera is activated']);

    expect(await deliver(event)).toEqual({ received: true, duplicate: true });
    expect(await context.mailer.list({ to: 'stripe.buyer@example.com' })).toHaveLength(1);
  });

  it('a second buyer of the same SIM is cancelled and refunded in full, and told so', async () => {
    const iccid = demoStockIccid('KQTX');
    const ownerBefore = (await simOf(iccid)).customerId;
    const event = fake.completeCheckout({
      priceLookupKey: 'price_light_month_uk',
      email: 'too.late@example.com',
      clientReferenceId: iccid,
    });
    await deliver(event);
    expect((await simOf(iccid)).customerId).toBe(ownerBefore);
    const lateSubscription = String(
      (event.data as { object: { subscription: string } }).object.subscription,
    );
    expect(fake.subscription(lateSubscription)!.status).toBe('canceled');
    expect(fake.refunds).toHaveLength(1);
    expect(fake.refunds[0]).toMatchObject({ amount: 1200, status: 'succeeded' });
    const [mirror] = await context.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.id, lateSubscription));
    expect(mirror!.status).toBe('canceled');
    const [note] = await context.mailer.list({ to: 'too.late@example.com' });
    expect(note!.subject).toBe('Your Farmcam order could not go ahead');
    // The reconciliation job finds nothing left to do (and refunds nothing twice).
    expect(await context.services.activation.fulfilment.reconcile()).toEqual({
      fulfilled: 0,
      failed: 0,
    });
    expect(fake.refunds).toHaveLength(1);
  });

  it('a signed-in customer’s checkout with a customer session bills the account made for the camera', async () => {
    const actors = await createActors(context);
    const iccid = demoStockIccid('BWLM');
    const account = await context.app.inject({
      method: 'POST',
      url: '/api/activation/billing-customer',
      payload: { iccid, location: 'uk' },
      headers: actors.headers.owner,
    });
    expect(account.statusCode, account.body).toBe(200);
    const customerId = account.json<{ customer_id: string }>().customer_id;
    expect(customerId).toMatch(/^cus_/);
    const secret = await context.app.inject({
      method: 'POST',
      url: '/api/billing/create-customer-secret',
      payload: { customerId },
      headers: actors.headers.owner,
    });
    expect(secret.json().secret).toMatch(/^cuss_secret_/);

    const [owner] = await context.database.db
      .select()
      .from(customers)
      .where(eq(customers.id, actors.ownerId));
    await deliver(
      fake.completeCheckout({
        priceLookupKey: 'price_light_month_uk',
        email: owner!.email,
        clientReferenceId: iccid,
        customer: customerId,
      }),
    );
    expect(await simOf(iccid)).toMatchObject({
      state: 'active',
      customerId: actors.ownerId,
      billingCustomerId: customerId,
    });
  });
});

describe('Stripe without pricing tables configured', () => {
  let plain: TestContext;
  beforeAll(async () => {
    plain = await createTestContext(stripeConfig(fake, false));
    plain.clock.set(start);
    await seedDemoData(plain.database.db, plain.clock);
  });
  afterAll(() => plain.close());

  it('draws our own table, whose Subscribe opens Stripe Checkout for the SIM', async () => {
    expect(
      (await plain.app.inject({ method: 'GET', url: '/api/activation/config' })).json(),
    ).toMatchObject({
      provider: 'local',
      publishable_key: null,
      fallback_pricing_tables: { uk: 'local_uk', other: 'local_ie' },
    });
    const response = await plain.app.inject({
      method: 'POST',
      url: '/api/activation/checkout',
      payload: {
        pricing_table_id: 'local_uk',
        price_id: 'price_standard_month_uk',
        client_reference_id: demoStockIccid('RHZD'),
        customer_email: 'checkout.buyer@example.com',
      },
      remoteAddress: nextIp(),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    // No Stripe element on the page: the policy stays strict.
    const policy = String(response.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("frame-src 'none';");
    const request = fake.requests.filter((entry) => entry.path === '/v1/checkout/sessions').at(-1)!;
    expect(request.body).toMatchObject({
      client_reference_id: demoStockIccid('RHZD'),
      customer_email: 'checkout.buyer@example.com',
      metadata: { purpose: 'activation', iccid: demoStockIccid('RHZD') },
    });
    expect(String((request.body as { success_url: string }).success_url)).toMatch(
      /^http:\/\/portal\.test\/order-confirmation\?order=ord_\w+&product=Standard\+Streaming&session_id=\{CHECKOUT_SESSION_ID\}$/,
    );
  });
});
