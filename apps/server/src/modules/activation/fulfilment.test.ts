/**
 * Activation from checkout to an active camera, with the local billing engine: the hosted checkout
 * as a buyer uses it, then fulfilment, and every way it could happen twice or for two buyers.
 */
import { and, eq, ne } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActors } from '../../../test/helpers/authorization.ts';
import {
  bearer,
  createTestContext,
  latestLoginToken,
  nextIp,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import {
  auditLog,
  billingCustomers,
  customers,
  payments,
  sims,
  subscriptions,
} from '../../db/schema.ts';
import { seedDemoData, demoStockIccid } from '../../seed/demo.ts';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import { createLocalSimPlatform } from '../../providers/connectivity/local-sim-platform.ts';
import { chargeInvoice, insertCard, issueInvoice } from '@farmcam/billing-engine';
import { simTakenMessage } from './checkout-hooks.ts';

let context: TestContext;
/** Set to make the SIM platform fail its next activations. */
let platformFailures = 0;

const visa = { number: '4242 4242 4242 4242', expiry: '12 / 30', cvc: '123' };

async function startCheckout(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return context.app.inject({
    method: 'POST',
    url: '/api/activation/checkout',
    payload: { pricing_table_id: 'local_uk', price_id: 'price_heavy_month_uk', ...body },
    headers: { 'x-activation-session': 'fulfilment-test-session', ...headers },
    remoteAddress: nextIp(),
  });
}

async function checkoutPath(iccid: string, email: string, extra: Record<string, unknown> = {}) {
  const response = await startCheckout({
    client_reference_id: iccid,
    customer_email: email,
    ...extra,
  });
  expect(response.statusCode, response.body).toBe(200);
  const url = new URL(response.json<{ url: string }>().url);
  expect(url.origin).toBe('http://portal.test');
  expect(url.pathname).toMatch(/^\/billing-engine\/checkout\/cs_[A-Za-z0-9]{32}$/);
  return url.pathname;
}

/** Pays on the hosted checkout page like a person: a form post, then follow the redirect. */
function pay(path: string, card = visa) {
  return context.app.inject({
    method: 'POST',
    url: `${path}/pay`,
    payload: new URLSearchParams(card).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

async function simOf(iccid: string) {
  const [row] = await context.database.db.select().from(sims).where(eq(sims.iccid, iccid));
  return row!;
}

async function liveSubscriptions(iccid: string) {
  return context.database.db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.simIccid, iccid), ne(subscriptions.status, 'canceled')));
}

async function mailsTo(email: string) {
  return context.mailer.list({ to: email, limit: 50 });
}

beforeAll(async () => {
  context = await createTestContext({}, undefined, ({ database, clock }) => {
    const platform = createLocalSimPlatform({ db: database.db, clock });
    const flaky: ConnectivityPlatform = {
      ...platform,
      async activateSim(iccid, options) {
        if (platformFailures > 0) {
          platformFailures -= 1;
          throw new Error('SIM platform timed out');
        }
        return platform.activateSim(iccid, options);
      },
    };
    return { connectivity: flaky };
  });
  await seedDemoData(context.database.db, context.clock);
});
afterAll(() => context.close());

/** The page a hosted form's redirect shows. */
/**
 * The page a checkout's answer shows: where it redirected, or the checkout itself shown again
 * with what was typed after a refusal (decision 114).
 */
async function pageAfter(response: {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}) {
  if (response.statusCode !== 303) return response.body;
  const page = await context.app.inject({
    method: 'GET',
    url: String(response.headers.location),
  });
  return page.body;
}

describe('a new visitor activates a stock SIM', () => {
  const email = 'new.farmer@example.com';
  const iccid = demoStockIccid('KQTX');
  let redirect: URL;

  it('pays on the hosted checkout and lands on the thank-you page', async () => {
    const path = await checkoutPath(iccid, 'New.Farmer@Example.com');
    const page = await context.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Subscribe to Heavy Streaming');
    expect(page.body).toContain('£35.00');
    expect(page.body).toContain('4242 4242 4242 4242');
    // Nothing exists for the e-mail until it pays.
    expect(
      await context.database.db.select().from(customers).where(eq(customers.email, email)),
    ).toEqual([]);

    const paid = await pay(path);
    expect(paid.statusCode).toBe(303);
    redirect = new URL(paid.headers.location as string);
    expect(redirect.pathname).toBe('/order-confirmation');
    expect(redirect.searchParams.get('order')).toMatch(/^ord_/);
    expect(redirect.searchParams.get('product')).toBe('Heavy Streaming');
  });

  it("the thank-you page's order is known, and only a real one (docs/decisions/027)", async () => {
    const known = await context.app.inject({
      method: 'GET',
      url: `/api/activation/orders/${redirect.searchParams.get('order')}`,
    });
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual({
      order: redirect.searchParams.get('order'),
      product: 'Heavy Streaming',
      status: 'activated',
    });
    const unknown = await context.app.inject({
      method: 'GET',
      url: '/api/activation/orders/ord_doesNotExist12345',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ message: 'We could not find this order.' });
    const malformed = await context.app.inject({
      method: 'GET',
      url: `/api/activation/orders/${encodeURIComponent('<b>x</b>')}`,
    });
    expect(malformed.statusCode).toBe(400);
  });

  it('leaves an account, a billing account, an active subscription and an active SIM', async () => {
    const [account] = await context.database.db
      .select()
      .from(customers)
      .where(eq(customers.email, email));
    expect(account).toBeDefined();
    const sim = await simOf(iccid);
    expect(sim).toMatchObject({
      state: 'active',
      customerId: account!.id,
      nickname: 'Camera 4932',
    });
    expect(sim.activatedAt).not.toBeNull();
    const [billing] = await context.database.db
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.id, sim.billingCustomerId!));
    expect(billing).toMatchObject({ customerId: account!.id, email, currency: 'gbp' });
    const live = await liveSubscriptions(iccid);
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({
      status: 'active',
      priceId: 'price_heavy_month_uk',
      billingCustomerId: billing!.id,
    });

    const actions = (
      await context.database.db.select().from(auditLog).where(eq(auditLog.subjectId, iccid))
    ).map((entry) => entry.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'activation.checkout_started',
        'activation.sim_attached',
        'activation.sim_activated',
      ]),
    );
  });

  it('e-mails a welcome with a sign-in link that shows the camera active on the dashboard', async () => {
    const [welcome, ...others] = await mailsTo(email);
    expect(others).toEqual([]);
    expect(welcome!.subject).toBe('Your Farmcam camera is activated');
    expect(welcome!.text).toContain('Heavy Streaming');
    expect(welcome!.text).toContain(redirect.searchParams.get('order')!);
    const token = await latestLoginToken(context, email);
    const login = await context.app.inject({
      method: 'GET',
      url: `/api/auth/login?token=${token}`,
      remoteAddress: nextIp(),
    });
    expect(login.statusCode).toBe(200);
    const plans = await context.app.inject({
      method: 'GET',
      url: '/api/cameras/plansV2',
      headers: bearer(login.json<{ token: string }>().token),
    });
    expect(plans.statusCode).toBe(200);
    const [camera] = plans.json<{ cameras: Record<string, unknown>[] }>().cameras;
    expect(camera).toMatchObject({
      SIM_ICCID: iccid,
      SubStatus: 'active',
      SimStatus: 'active',
      nicknameInDatabase: 'Camera 4932',
    });
  });

  it('applies a replayed event, a retried fulfilment and a second post of the form once', async () => {
    const sim = await simOf(iccid);
    const [subscription] = await liveSubscriptions(iccid);
    const event = {
      type: 'checkout.completed' as const,
      sessionId: 'cs_replayed',
      billingCustomerId: sim.billingCustomerId!,
      subscriptionId: subscription!.id,
      clientReferenceId: iccid,
      metadata: { purpose: 'activation', order: 'ord_replayed' },
    };
    await context.services.activation.fulfilment.handleEvent(event);
    await context.services.activation.fulfilment.handleEvent(event);
    expect(
      await context.services.activation.fulfilment.fulfil({
        subscriptionId: subscription!.id,
        billingCustomerId: sim.billingCustomerId!,
        iccid,
        order: null,
      }),
    ).toBe('already-fulfilled');
    expect(await context.services.activation.fulfilment.reconcile()).toEqual({
      fulfilled: 0,
      failed: 0,
    });
    expect(await mailsTo(email)).toHaveLength(1);
    const attached = await context.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subjectId, iccid), eq(auditLog.action, 'activation.sim_attached')));
    expect(attached).toHaveLength(1);
    expect(await liveSubscriptions(iccid)).toHaveLength(1);
  });

  it('no longer sells the SIM', async () => {
    const again = await context.app.inject({
      method: 'POST',
      url: '/api/activation/validate-activation-code',
      payload: { activationCode: 'KQTX' },
      remoteAddress: nextIp(),
    });
    // The same answer as an unknown code: a sold SIM is not confirmed to exist (decision 063).
    expect(again.statusCode).toBe(404);
    expect(again.json().message).toMatch(/^We can't activate a SIM with this activation code/);
    const checkout = await startCheckout({
      client_reference_id: iccid,
      customer_email: 'late@example.com',
    });
    expect(checkout.statusCode).toBe(404);
  });
});

describe('double submits and racing buyers', () => {
  it('posting the same checkout twice at once activates once', async () => {
    const iccid = demoStockIccid('BWLM');
    const path = await checkoutPath(iccid, 'double.click@example.com');
    const [first, second] = await Promise.all([pay(path), pay(path)]);
    const locations = [first, second].map((response) => String(response.headers.location ?? ''));
    expect(locations.some((location) => location.includes('/order-confirmation'))).toBe(true);
    expect(await liveSubscriptions(iccid)).toHaveLength(1);
    expect((await simOf(iccid)).state).toBe('active');
    expect(await mailsTo('double.click@example.com')).toHaveLength(1);
    // The page cannot be paid again afterwards.
    const later = await pay(path);
    expect(later.statusCode).toBe(404);
    expect(later.body).toContain('already paid');
  });

  it('the second buyer of a SIM is refused before being charged', async () => {
    const iccid = demoStockIccid('RHZD');
    const winner = await checkoutPath(iccid, 'winner@example.com');
    const loser = await checkoutPath(iccid, 'loser@example.com');
    const paymentsBefore = (await context.database.db.select().from(payments)).length;
    expect((await pay(winner)).headers.location).toContain('/order-confirmation');
    const refused = await pay(loser);
    // The checkout is shown again with the refusal, as any refused card form (decision 114).
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain(simTakenMessage);

    // One payment (the winner's), no account or billing account for the loser's new e-mail.
    expect((await context.database.db.select().from(payments)).length).toBe(paymentsBefore + 1);
    expect(
      await context.database.db
        .select()
        .from(customers)
        .where(eq(customers.email, 'loser@example.com')),
    ).toEqual([]);
    expect(await liveSubscriptions(iccid)).toHaveLength(1);
    const sim = await simOf(iccid);
    const [owner] = await context.database.db
      .select()
      .from(customers)
      .where(eq(customers.id, sim.customerId!));
    expect(owner!.email).toBe('winner@example.com');
  });

  it('two buyers paying at the same moment leave one activation', async () => {
    const iccid = demoStockIccid('PJNV');
    const first = await checkoutPath(iccid, 'racer.one@example.com');
    const second = await checkoutPath(iccid, 'racer.two@example.com');
    const results = await Promise.all([pay(first), pay(second)]);
    const confirmed = results.filter((response) =>
      String(response.headers.location).includes('/order-confirmation'),
    );
    expect(confirmed).toHaveLength(1);
    const refused = results.find(
      (response) => !String(response.headers.location).includes('/order-confirmation'),
    );
    expect(await pageAfter(refused!)).toContain('You have not been charged');
    expect(await liveSubscriptions(iccid)).toHaveLength(1);
    const welcomes = [
      ...(await mailsTo('racer.one@example.com')),
      ...(await mailsTo('racer.two@example.com')),
    ];
    expect(welcomes).toHaveLength(1);
  });

  it('an order that lost its SIM anyway (a provider that charged first) is cancelled and refunded', async () => {
    // Stripe's pricing table charges before we hear of the order: build such a late order by hand.
    const iccid = demoStockIccid('PJNV');
    const engine = context.services.billing.engine!;
    const late = await engine.createCustomer({
      portalCustomerId: (await createActors(context)).ownerId,
      email: 'late.buyer@example.com',
      currency: 'gbp',
      idempotencyKey: 'late-buyer',
    });
    const subscriptionId = 'sub_late_order';
    const now = context.clock.now();
    await context.database.db.transaction(async (transaction) => {
      await transaction.insert(subscriptions).values({
        id: subscriptionId,
        billingCustomerId: late.id,
        simIccid: iccid,
        priceId: 'price_light_month_uk',
        status: 'active',
        currentPeriodStart: now,
        billingCycleAnchor: now,
        currentPeriodEnd: new Date(now.getTime() + 30 * 86_400_000),
      });
      const card = await insertCard(transaction, {
        billingCustomerId: late.id,
        brand: 'visa',
        last4: '4242',
        expMonth: 12,
        expYear: 2030,
        makeDefault: true,
      });
      const invoice = await issueInvoice(transaction, {
        billingCustomerId: late.id,
        subscriptionId,
        description: 'Light Streaming',
        total: 1200,
        currency: 'gbp',
        periodStart: now,
        periodEnd: now,
        now,
      });
      expect((await chargeInvoice(transaction, invoice, now, card)).isPaid).toBe(true);
    });
    const ownerBefore = (await simOf(iccid)).customerId;

    expect(await context.services.activation.fulfilment.reconcile()).toEqual({
      fulfilled: 1,
      failed: 0,
    });
    const [subscription] = await context.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.id, subscriptionId));
    expect(subscription!.status).toBe('canceled');
    const refunded = await context.database.db
      .select()
      .from(payments)
      .where(eq(payments.status, 'refunded'));
    expect(refunded).toHaveLength(1);
    expect((await simOf(iccid)).customerId).toBe(ownerBefore);
    const [note] = await mailsTo('late.buyer@example.com');
    expect(note!.subject).toBe('Your Farmcam order could not go ahead');
    expect(note!.text).toContain('refunded in full');
    // Done once: a second run finds nothing to do.
    expect(await context.services.activation.fulfilment.reconcile()).toEqual({
      fulfilled: 0,
      failed: 0,
    });
    expect(await mailsTo('late.buyer@example.com')).toHaveLength(1);
  });
});

describe('other paths through checkout', () => {
  it('a declined card changes nothing and the buyer can pay again', async () => {
    const iccid = demoStockIccid('TMYF');
    const path = await checkoutPath(iccid, 'declined@example.com');
    const declined = await pay(path, { ...visa, number: '4000 0000 0000 0002' });
    expect(await pageAfter(declined)).toContain('Your card was declined');
    expect((await simOf(iccid)).state).toBe('stock');
    expect(
      await context.database.db
        .select()
        .from(customers)
        .where(eq(customers.email, 'declined@example.com')),
    ).toEqual([]);
    expect((await pay(path)).headers.location).toContain('/order-confirmation');
    expect((await simOf(iccid)).state).toBe('active');
  });

  it('an existing customer’s e-mail adds the camera to their account', async () => {
    const demo = await createActors(context);
    const [owner] = await context.database.db
      .select()
      .from(customers)
      .where(eq(customers.id, demo.ownerId));
    const iccid = demoStockIccid('CXGE');
    const path = await checkoutPath(iccid, owner!.email, {
      pricing_table_id: 'local_uk_solar',
      price_id: 'price_standard_year_uk_solar',
    });
    expect((await pay(path)).headers.location).toContain('product=Standard+Streaming');
    expect((await simOf(iccid)).customerId).toBe(demo.ownerId);
    expect(
      await context.database.db.select().from(customers).where(eq(customers.email, owner!.email)),
    ).toHaveLength(1);
  });

  it('checks the table fits the SIM and the plan the table', async () => {
    const iccid = demoStockIccid('RHZD');
    await context.database.db
      .insert(sims)
      .values({ iccid: '8944110000000009074', activationCode: 'SOLR', kind: 'solar' });
    await context.database.db
      .insert(sims)
      .values({ iccid: '8944110000000009082', activationCode: 'PLAN' });
    const solarOnStandard = await startCheckout({
      client_reference_id: '8944110000000009074',
      customer_email: 'a@example.com',
    });
    expect(solarOnStandard.statusCode).toBe(400);
    expect(solarOnStandard.json().message).toBe(
      'This is a solar SIM: choose one of the solar plans',
    );
    const standardOnSolar = await startCheckout({
      client_reference_id: '8944110000000009082',
      customer_email: 'a@example.com',
      pricing_table_id: 'local_uk_solar',
      price_id: 'price_light_month_uk_solar',
    });
    expect(standardOnSolar.json().message).toBe('These plans are for solar SIMs only');
    const otherRegion = await startCheckout({
      client_reference_id: '8944110000000009082',
      customer_email: 'a@example.com',
      price_id: 'price_light_month_ie',
    });
    expect(otherRegion.json().message).toBe('That plan is not in this pricing table');
    const taken = await startCheckout({
      client_reference_id: iccid,
      customer_email: 'a@example.com',
    });
    expect(taken.statusCode).toBe(404);
  });

  it('a signed-in customer’s checkout uses the billing account made for the camera', async () => {
    const actors = await createActors(context);
    const iccid = '8944110000000009082';
    const account = await context.app.inject({
      method: 'POST',
      url: '/api/activation/billing-customer',
      payload: { iccid, location: 'uk' },
      headers: actors.headers.owner,
    });
    const customerId = account.json<{ customer_id: string }>().customer_id;
    const secret = await context.app.inject({
      method: 'POST',
      url: '/api/billing/create-customer-secret',
      payload: { customerId },
      headers: actors.headers.owner,
    });
    const [owner] = await context.database.db
      .select()
      .from(customers)
      .where(eq(customers.id, actors.ownerId));
    const path = await checkoutPath(iccid, owner!.email, {
      price_id: 'price_light_month_uk',
      customer_session_client_secret: secret.json<{ secret: string }>().secret,
    });
    expect((await pay(path)).headers.location).toContain('/order-confirmation');
    expect(await simOf(iccid)).toMatchObject({
      state: 'active',
      billingCustomerId: customerId,
      customerId: actors.ownerId,
    });
  });

  it('finishes an activation the SIM platform failed, once, from the job', async () => {
    await context.database.db
      .insert(sims)
      .values({ iccid: '8944110000000009090', activationCode: 'LATE' });
    const iccid = '8944110000000009090';
    platformFailures = 1;
    const path = await checkoutPath(iccid, 'patient@example.com', {
      pricing_table_id: 'local_ie',
      price_id: 'price_light_month_ie',
    });
    expect((await pay(path)).headers.location).toContain('/order-confirmation');
    const waiting = await simOf(iccid);
    expect(waiting.state).toBe('stock');
    expect(waiting.customerId).not.toBeNull();
    expect(await mailsTo('patient@example.com')).toEqual([]);

    expect(await context.services.activation.fulfilment.reconcile()).toEqual({
      fulfilled: 1,
      failed: 0,
    });
    // Bought in Ireland: the camera's region follows the plan.
    expect(await simOf(iccid)).toMatchObject({ state: 'active', region: 'ie' });
    expect(await mailsTo('patient@example.com')).toHaveLength(1);
    expect(await context.services.activation.fulfilment.reconcile()).toEqual({
      fulfilled: 0,
      failed: 0,
    });
    expect(await mailsTo('patient@example.com')).toHaveLength(1);
  });
});
