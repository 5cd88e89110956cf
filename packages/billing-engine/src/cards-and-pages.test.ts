/**
 * Cards with consent and hosted pages that show only our own words (docs/decisions/027), on the
 * demo data: "Fuel tank" is past due with £20.00 open and only an expired card on file.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoices, paymentMethods, payments, sims, subscriptions } from '@farmcam/db/schema';
import { seedDemoData } from '../../../apps/server/src/seed/demo.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../../apps/server/test/helpers/test-app.ts';

let context: TestContext;
let token: string;
let fuelTank: string;
let portalPath: string;

const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});
const mastercard = { number: '5555 5555 5555 4444', expiry: '11 / 31', cvc: '321' };

async function openPortal(billingCustomerId: string) {
  const portal = await context.app.inject({
    method: 'GET',
    url: `/api/billing/create-portal-session?customerId=${billingCustomerId}`,
    headers: bearer(token),
  });
  if (portal.statusCode !== 200) throw new Error(portal.body);
  return new URL(portal.json<{ url: string }>().url).pathname;
}

/** Posts a portal form and returns where it redirected and what that page shows. */
async function post(path: string, fields: Record<string, string>) {
  const response = await context.app.inject({ method: 'POST', url: path, ...form(fields) });
  expect(response.statusCode).toBe(303);
  const location = String(response.headers.location);
  const page = await context.app.inject({ method: 'GET', url: location });
  return { location, body: page.body };
}

/** Posts a card form that is refused: the page comes back at once, with what was typed. */
async function postRefused(path: string, fields: Record<string, string>, status = 422) {
  const response = await context.app.inject({ method: 'POST', url: path, ...form(fields) });
  expect(response.statusCode).toBe(status);
  return response.body;
}

const cardsOf = (billingCustomerId: string) =>
  context.database.db
    .select()
    .from(paymentMethods)
    .where(
      and(
        eq(paymentMethods.billingCustomerId, billingCustomerId),
        isNull(paymentMethods.detachedAt),
      ),
    );
const openInvoicesOf = (billingCustomerId: string) =>
  context.database.db
    .select()
    .from(invoices)
    .where(and(eq(invoices.billingCustomerId, billingCustomerId), eq(invoices.status, 'open')));

beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
  token = await signInCustomer(context, 'demo@example.com');
  const [sim] = await context.database.db.select().from(sims).where(eq(sims.nickname, 'Fuel tank'));
  fuelTank = sim!.billingCustomerId!;
  portalPath = await openPortal(fuelTank);
});
afterAll(() => context.close());

describe('adding a card while an invoice is open', () => {
  it('offers to pay the amount due, unticked, and never offers an expired card as default', async () => {
    const page = await context.app.inject({ method: 'GET', url: portalPath });
    expect(page.body).toContain('Pay £20.00 now with this card');
    expect(page.body).toMatch(/name="payNow" value="yes">/);
    expect(page.body).not.toMatch(/name="payNow" value="yes" checked/);
    expect(page.body).toContain('Expired');
    expect(page.body).not.toContain('(default)');
    expect(page.body).not.toContain('Make default');
  });

  it('the hosted invoice page asks for a new card while every card on file has expired', async () => {
    const [open] = await openInvoicesOf(fuelTank);
    const page = await context.app.inject({ method: 'GET', url: open!.hostedInvoiceUrl! });
    expect(page.body).toContain('This card has expired: pay with a new card below.');
    expect(page.body).not.toMatch(/Pay £20\.00 with Visa/);
  });

  it('without consent saves the card and charges nothing', async () => {
    const paymentsBefore = (await context.database.db.select().from(payments)).length;
    const { location, body } = await post(`${portalPath}/cards`, {
      ...mastercard,
      makeDefault: 'yes',
    });
    expect(location).toMatch(/\?notice=card_added$/);
    expect(body).toContain('Card added.');
    expect(await openInvoicesOf(fuelTank)).toHaveLength(1);
    expect((await context.database.db.select().from(payments)).length).toBe(paymentsBefore);
    // The new card is the default; the number itself is stored nowhere, only a fingerprint.
    const cards = await cardsOf(fuelTank);
    const added = cards.find((card) => card.last4 === '4444')!;
    expect(added).toMatchObject({ isDefault: true, expMonth: 11, expYear: 2031 });
    expect(added.fingerprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(cards)).not.toContain('5555555555554444');
  });

  it("then the hosted invoice page's main button is the new, unexpired card", async () => {
    const [open] = await openInvoicesOf(fuelTank);
    const page = await context.app.inject({ method: 'GET', url: open!.hostedInvoiceUrl! });
    expect(page.body).toContain('Pay £20.00 with Mastercard ending 4444, expires 11/2031');
    expect(page.body).not.toContain('This card has expired');
  });

  it('refuses the same card a second time with a clear message', async () => {
    const before = (await cardsOf(fuelTank)).length;
    const body = await postRefused(`${portalPath}/cards`, {
      ...mastercard,
      number: '5555-5555-5555-4444',
    });
    expect(body).toContain('This card is already saved.');
    expect(body).toContain('value="5555-5555-5555-4444"');
    expect(await cardsOf(fuelTank)).toHaveLength(before);
  });

  it('pays only the amount the customer agreed to, and then brings the subscription back', async () => {
    const visa = { number: '4242 4242 4242 4242', expiry: '10 / 30', cvc: '123' };
    const changed = await postRefused(`${portalPath}/cards`, {
      ...visa,
      payNow: 'yes',
      payAmountDue: '1999',
    });
    expect(changed).toContain('The amount due has changed since the page was opened.');
    // The box stays as it was ticked, now with the amount actually due.
    expect(changed).toMatch(/name="payNow" value="yes" checked> Pay £20\.00 now/);
    expect((await cardsOf(fuelTank)).some((card) => card.expYear === 2030)).toBe(false);
    expect(await openInvoicesOf(fuelTank)).toHaveLength(1);

    const paid = await post(`${portalPath}/cards`, {
      ...visa,
      payNow: 'yes',
      payAmountDue: '2000',
    });
    expect(paid.body).toContain('Card added and the amount due paid. Thank you.');
    expect(await openInvoicesOf(fuelTank)).toHaveLength(0);
    const [subscription] = await context.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.billingCustomerId, fuelTank));
    expect(subscription!.status).toBe('active');
  });

  it('never makes an expired card the default', async () => {
    const expired = (await cardsOf(fuelTank)).find(
      (card) => card.last4 === '4242' && card.expYear < 2030,
    )!;
    const { body } = await post(`${portalPath}/cards/${expired.id}/default`, {});
    expect(body).toContain('This card has expired, so it cannot be the default.');

    // Removing the default hands it to the newest unexpired card, not the expired one.
    const current = (await cardsOf(fuelTank)).find((card) => card.isDefault)!;
    await post(`${portalPath}/cards/${current.id}/remove`, {});
    const left = await cardsOf(fuelTank);
    const fallback = left.find((card) => card.isDefault)!;
    expect(fallback.id).not.toBe(expired.id);
    expect(fallback).toMatchObject({ last4: '4242', expYear: 2030 });
  });
});

describe('hosted pages: only our own words, 4xx for bad input', () => {
  it('shows a known code as our sentence and never the text of the address', async () => {
    const attack = await context.app.inject({
      method: 'GET',
      url: `${portalPath}?error=${encodeURIComponent('Call 0800 SCAM <b>now</b>')}`,
    });
    expect(attack.statusCode).toBe(200);
    expect(attack.body).not.toContain('SCAM');
    expect(attack.body).not.toContain('class="notice');
    const known = await context.app.inject({ method: 'GET', url: `${portalPath}?error=declined` });
    expect(known.body).toContain('Your card was declined. Use another card and try again.');
    // Not even a property every object has.
    const proto = await context.app.inject({ method: 'GET', url: `${portalPath}?error=toString` });
    expect(proto.body).not.toContain('class="notice');
  });

  it('answers a card number sent as a JSON number with 400, never 500', async () => {
    for (const payload of [
      { number: 4242424242424242, expiry: '12/30', cvc: '123' },
      { number: ['4242424242424242'], expiry: '12/30', cvc: '123' },
      { number: '4242424242424242', expiry: 1230, cvc: 123 },
    ]) {
      const response = await context.app.inject({
        method: 'POST',
        url: `${portalPath}/cards`,
        payload,
      });
      expect(response.statusCode).toBe(400);
    }
  });

  it('answers unknown portal, checkout and invoice links with 404', async () => {
    for (const url of [
      '/billing-engine/portal/bps_nothing',
      '/billing-engine/checkout/cs_nothing',
      '/billing-engine/invoices/in_nothing/token',
    ]) {
      expect((await context.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    }
  });

  it('has the .visually-hidden rule its pages use', async () => {
    const css = await context.app.inject({
      method: 'GET',
      url: '/billing-engine/assets/engine.css',
    });
    expect(css.body).toMatch(/\.visually-hidden\{position:absolute!important;/);
  });
});

describe('the card form answers as Stripe Elements does (decision 114)', () => {
  const fieldsOf = (body: string) => ({
    number: body.match(/id="card-number-error">([^<]*)</)?.[1],
    expiry: body.match(/id="card-expiry-error">([^<]*)</)?.[1],
    cvc: body.match(/id="card-cvc-error">([^<]*)</)?.[1],
  });

  it('says under each field what is wrong, keeps what was typed and saves nothing', async () => {
    const before = (await cardsOf(fuelTank)).length;
    const body = await postRefused(`${portalPath}/cards`, {
      number: '4242 4242 4242 4241',
      expiry: '13 / 30',
      cvc: '12',
    });
    expect(fieldsOf(body)).toEqual({
      number: 'Your card number is invalid.',
      expiry: 'Your card&#39;s expiration month is invalid.',
      cvc: 'Your card&#39;s security code is incomplete.',
    });
    expect(body).toContain('Check the card details below.');
    expect(body).toContain('value="4242 4242 4242 4241"');
    expect(body).toContain('value="13 / 30"');
    expect(body).toContain('value="12"');
    expect(body).toMatch(/id="card-cvc" name="cvc"[^>]*aria-invalid="true"/);
    expect(await cardsOf(fuelTank)).toHaveLength(before);
  });

  it('calls a short number incomplete and a past expiry in the past', async () => {
    const body = await postRefused(`${portalPath}/cards`, {
      number: '4242 4242',
      expiry: '01 / 20',
      cvc: '123',
    });
    expect(fieldsOf(body)).toEqual({
      number: 'Your card number is incomplete.',
      expiry: 'Your card&#39;s expiration year is in the past.',
      cvc: undefined,
    });
  });

  it('shows placeholders that are the shape of a card, not a card number', async () => {
    const page = await context.app.inject({ method: 'GET', url: portalPath });
    expect(page.body).toContain('placeholder="1234 1234 1234 1234"');
    expect(page.body).toContain('placeholder="MM / YY"');
    expect(page.body).toContain('placeholder="CVC"');
    expect(page.body).not.toMatch(/placeholder="4242/);
  });

  it('keeps the typed card on the hosted invoice page when the new card is mistyped', async () => {
    const [sim] = await context.database.db
      .select()
      .from(sims)
      .where(eq(sims.nickname, 'Bottom field'));
    const [open] = await openInvoicesOf(sim!.billingCustomerId!);
    const body = await postRefused(`${open!.hostedInvoiceUrl!}/pay`, {
      number: '5555 5555 5555 4444',
      expiry: '11 /',
      cvc: '321',
    });
    expect(fieldsOf(body).expiry).toBe('Your card&#39;s expiration date is incomplete.');
    expect(body).toContain('value="5555 5555 5555 4444"');
  });
});

describe('one word for an unpaid bill on the hosted pages (decision 113)', () => {
  it('names statuses Paid and Unpaid with the due date, and downloads are "Download PDF"', async () => {
    const [sim] = await context.database.db
      .select()
      .from(sims)
      .where(eq(sims.nickname, 'Bottom field'));
    const bottomField = sim!.billingCustomerId!;
    const portal = await context.app.inject({ method: 'GET', url: await openPortal(bottomField) });
    expect(portal.body).toContain('<h2 id="open-heading">Unpaid invoices</h2>');
    expect(portal.body).toContain('<th>Due date</th>');
    expect(portal.body).toMatch(/class="status-open">Unpaid</);
    expect(portal.body).toMatch(/class="status-paid">Paid</);
    expect(portal.body).not.toMatch(/>open</);
    const [open] = await openInvoicesOf(bottomField);
    const hosted = await context.app.inject({ method: 'GET', url: open!.hostedInvoiceUrl! });
    expect(hosted.body).toMatch(/Unpaid · due \d{1,2} \w+ \d{4}/);
    expect(hosted.body).toContain('>Download PDF<');
  });

  it('from Pay now, the new card pays what is due unless unticked, and comes first', async () => {
    const [sim] = await context.database.db
      .select()
      .from(sims)
      .where(eq(sims.nickname, 'Bottom field'));
    const bottomField = sim!.billingCustomerId!;
    const session = await context.app.inject({
      method: 'GET',
      url: `/api/billing/create-portal-session?customerId=${bottomField}&purpose=pay`,
      headers: bearer(token),
    });
    expect(session.statusCode).toBe(200);
    const path = new URL(session.json<{ url: string }>().url).pathname;
    const page = (await context.app.inject({ method: 'GET', url: path })).body;
    expect(page).toMatch(/name="payNow" value="yes" checked> Pay £12\.00 now with this card/);
    expect(page.indexOf('Pay with a new card')).toBeLessThan(page.indexOf('Unpaid invoices'));
    expect(page).toContain('>Add card and pay</button>');

    // Unticked, the card is saved and nothing is paid.
    const unticked = await post(`${path}/cards`, {
      number: '4242 4242 4242 4242',
      expiry: '10 / 30',
      cvc: '123',
      makeDefault: 'yes',
      payAmountDue: '1200',
    });
    expect(unticked.body).toContain('Card added.');
    expect(await openInvoicesOf(bottomField)).toHaveLength(1);
    // Ticked (as it opens), the next card pays it.
    const paid = await post(`${path}/cards`, {
      number: '5555 5555 5555 4444',
      expiry: '09 / 31',
      cvc: '321',
      makeDefault: 'yes',
      payNow: 'yes',
      payAmountDue: '1200',
    });
    expect(paid.body).toContain('Card added and the amount due paid. Thank you.');
    expect(await openInvoicesOf(bottomField)).toHaveLength(0);
  });

  it('an unknown purpose is a 400 in words', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/billing/create-portal-session?customerId=${fuelTank}&purpose=steal`,
      headers: bearer(token),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe('The purpose is manage or pay.');
  });
});

describe('the checkout says the price includes VAT (decision 114)', () => {
  it('beside the price', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/activation/checkout',
      payload: {
        pricing_table_id: 'local_uk',
        price_id: 'price_standard_month_uk',
        client_reference_id: '8944702345135332725',
        customer_email: 'vat.check@example.com',
      },
    });
    expect(response.statusCode).toBe(200);
    const page = await context.app.inject({
      method: 'GET',
      url: new URL(response.json<{ url: string }>().url).pathname,
    });
    expect(page.body).toContain('£20.00 <span class="muted">per month</span>');
    expect(page.body).toContain('Price includes VAT at 20%');
  });
});
