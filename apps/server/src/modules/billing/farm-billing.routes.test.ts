/**
 * The farm's Billing page (issue 24 item 11, decisions 127–129) through its routes: the owner
 * sees every camera's invoices with their names, filters them and downloads a CSV; Pay all pays
 * each open invoice through its own camera's account, reports each failure and pays none twice;
 * one card becomes every camera's card; the billing address and VAT number reach the next
 * invoices' PDFs. A manager and a viewer are refused (403), another customer sees only their own.
 */
import { and, eq } from 'drizzle-orm';
import type { FarmBillingResponse, PayAllResponse } from '@farmcam/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addMembers,
  createActors,
  expectAccessMatrix,
  type Actors,
} from '../../../test/helpers/authorization.ts';
import { pdfText } from '../../../test/helpers/pdf-text.ts';
import {
  createTestContext,
  testPublicUrl,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { auditLog, payments, paymentMethods, sims } from '../../db/schema.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';

let context: TestContext;
let actors: Actors;
const billingCustomerOf: Record<number, string> = {};

beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, 'demo@example.com');
  await seedDemoData(context.database.db, context.clock);
  actors = await addMembers(context, actors, {
    thisIccid: demoIccid(101),
    otherIccid: demoIccid(102),
  });
  for (const row of await context.database.db.select().from(sims)) {
    const serial = Number(row.iccid.slice(12, 18));
    if (row.billingCustomerId) billingCustomerOf[serial] = row.billingCustomerId;
  }
});
afterAll(() => context.close());

const owner = () => actors.headers.owner;

async function farm(query = '', headers = owner()) {
  const response = await context.app.inject({
    method: 'GET',
    url: `/api/billing/farm${query}`,
    headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<FarmBillingResponse>();
}

async function payAll(amount: number, key: string) {
  return context.app.inject({
    method: 'POST',
    url: '/api/billing/farm/pay-all',
    headers: { ...owner(), 'idempotency-key': key },
    payload: { amount },
  });
}

describe('who may see the farm billing', () => {
  it('is the owner only: managers and viewers 403, another customer sees only their own', async () => {
    for (const request of [
      () => ({ method: 'GET' as const, url: '/api/billing/farm' }),
      () => ({ method: 'GET' as const, url: '/api/billing/farm/invoices.csv' }),
      () => ({ method: 'GET' as const, url: '/api/billing/farm/details' }),
    ]) {
      const responses = await expectAccessMatrix(context, actors, request, {
        owner: 200,
        team: 200,
        admin: 200,
        manager: 403,
        managerOfOther: 403,
        viewerOfThis: 403,
        viewerOfOther: 403,
        otherCustomer: 200,
        anonymous: 401,
      });
      expect(responses.manager!.json().message).toMatch(/owner/i);
    }
    // Another customer (no cameras yet) sees their own nothing, none of the owner's bills.
    const theirs = await farm('', actors.headers.otherCustomer);
    expect(theirs).toMatchObject({ cameras: [], invoices: [], upcoming: [], details: null });
    expect(theirs.due_now).toEqual({ amount: 0, invoices: 0 });
  });

  it("answers a camera of another customer's as one that does not exist", async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/billing/farm?camera=${demoIccid(201)}`,
      headers: owner(),
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().message).toBe('Camera not found');
  });
});

describe('every invoice of every camera', () => {
  it('names each camera, its due date and status in one word, newest first', async () => {
    const all = await farm();
    const names = new Set(all.invoices.map((invoice) => invoice.camera?.nickname));
    for (const name of ['Top gate', 'Lambing shed', 'Fuel tank', 'Bottom field']) {
      expect(names).toContain(name);
    }
    const dates = all.invoices.map((invoice) => invoice.created_date);
    expect(dates).toEqual([...dates].sort().reverse());
    const unpaid = all.invoices.filter((invoice) => invoice.status_label === 'Unpaid');
    expect(new Set(unpaid.map((invoice) => invoice.camera?.nickname))).toEqual(
      new Set(['Fuel tank', 'Bottom field']),
    );
    expect(all.due_now.amount).toBe(
      unpaid.reduce((sum, invoice) => sum + invoice.amount_remaining, 0),
    );
    expect(all.due_now.invoices).toBe(unpaid.length);
    expect(unpaid[0]!.status_detail).toMatch(/declined|expired|still to pay/);
  });

  it('filters by status, camera and date range, and refuses a range that ends before it starts', async () => {
    const paid = await farm('?status=paid');
    expect(paid.invoices.length).toBeGreaterThan(0);
    expect(paid.invoices.every((invoice) => invoice.status_label === 'Paid')).toBe(true);
    const topGate = await farm(`?camera=${demoIccid(101)}`);
    expect(topGate.invoices.length).toBeGreaterThan(0);
    expect(topGate.invoices.every((invoice) => invoice.camera?.nickname === 'Top gate')).toBe(true);
    const all = await farm();
    const day = all.invoices[Math.floor(all.invoices.length / 2)]!.due_date;
    const oneDay = await farm(`?from=${day}&to=${day}`);
    expect(oneDay.invoices.length).toBeGreaterThan(0);
    expect(oneDay.invoices.every((invoice) => invoice.due_date === day)).toBe(true);
    // What is due now is the farm's, whatever the filter.
    expect(oneDay.due_now).toEqual(all.due_now);
    const backwards = await context.app.inject({
      method: 'GET',
      url: '/api/billing/farm?from=2026-03-01&to=2026-02-01',
      headers: owner(),
    });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().message).toMatch(/"from" date must be on or before the "to" date/);
  });

  it('gives the accountant a CSV: UK dates, pounds, VAT apart, the filter applied', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/billing/farm/invoices.csv?camera=${demoIccid(107)}`,
      headers: owner(),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    expect(response.headers['content-disposition']).toMatch(
      /attachment; filename="farmcam-invoices-/,
    );
    const [header, ...rows] = response.body.trim().split('\r\n');
    expect(header).toBe(
      'Invoice number,Camera,SIM,Date,Due date,Status,Net (£),VAT (£),Total (£),Paid (£),Still to pay (£),Currency',
    );
    const json = await farm(`?camera=${demoIccid(107)}`);
    expect(rows).toHaveLength(json.invoices.length);
    const unpaid = json.invoices.find((invoice) => invoice.status_label === 'Unpaid')!;
    const row = rows.find((line) => line.startsWith(`${unpaid.number},`))!.split(',');
    const [year, month, dayOfMonth] = unpaid.due_date.split('-');
    expect(row.slice(1, 6)).toEqual([
      'Fuel tank',
      demoIccid(107),
      `${dayOfMonth}/${month}/${year}`,
      `${dayOfMonth}/${month}/${year}`,
      'Unpaid',
    ]);
    const pounds = (minor: number) => (minor / 100).toFixed(2);
    expect(row.slice(6, 12)).toEqual([
      pounds(unpaid.total - unpaid.tax),
      pounds(unpaid.tax),
      pounds(unpaid.total),
      '0.00',
      pounds(unpaid.amount_remaining),
      'GBP',
    ]);
    expect(Number(row[6]) + Number(row[7])).toBeCloseTo(Number(row[8]), 2);
  });

  it("warns of each camera's card in words and lists the next bills by date", async () => {
    const all = await farm();
    const fuelTank = all.cameras.find((camera) => camera.nickname === 'Fuel tank')!;
    expect(fuelTank.card).not.toBeNull();
    expect(all.cameras.map((camera) => camera.nickname)).not.toContain('Old dairy');
    const dates = all.upcoming.map((bill) => bill.date);
    expect(dates.length).toBeGreaterThan(0);
    expect(dates).toEqual([...dates].sort());
    expect(all.upcoming.every((bill) => bill.amount_due >= 0 && bill.camera.iccid)).toBe(true);
  });
});

describe('Pay all', () => {
  it('refuses a total that is no longer what is due, and a request without a key', async () => {
    const { due_now } = await farm();
    const stale = await payAll(due_now.amount + 1, 'stale-total');
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toMatch(
      /What is due has changed since the page was shown: it is now £/,
    );
    const keyless = await context.app.inject({
      method: 'POST',
      url: '/api/billing/farm/pay-all',
      headers: owner(),
      payload: { amount: due_now.amount },
    });
    expect(keyless.statusCode).toBe(400);
    expect(keyless.json().message).toMatch(/Idempotency-Key/);
  });

  it('pays each invoice through its own camera, reports each failure, and pays none twice', async () => {
    const db = context.database.db;
    // Fuel tank gets a card that pays; Bottom field keeps its declining one.
    await context.services.billing.engine!.addCard(
      billingCustomerOf[107]!,
      { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123' },
      true,
    );
    const before = await farm();
    const response = await payAll(before.due_now.amount, 'pay-all-1');
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json<PayAllResponse>();
    const byCamera = (name: string) =>
      result.results.filter((entry) => entry.camera?.nickname === name);
    expect(byCamera('Fuel tank').every((entry) => entry.outcome === 'paid')).toBe(true);
    expect(byCamera('Bottom field').every((entry) => entry.outcome === 'declined')).toBe(true);
    expect(byCamera('Bottom field')[0]!.message).toMatch(/^Bottom field: £\d+\.\d\d not paid\. /);
    expect(result.paid).toBe(byCamera('Fuel tank').reduce((sum, entry) => sum + entry.amount, 0));
    const after = await farm();
    expect(after.due_now.amount).toBe(before.due_now.amount - result.paid);

    // The same click again (a retry): the same answer, nothing charged a second time.
    const count = async () => (await db.select().from(payments)).length;
    const paymentsBefore = await count();
    const again = await payAll(before.due_now.amount, 'pay-all-1');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(result);
    expect(await count()).toBe(paymentsBefore);

    // The billing port's own key: an invoice paid under a key is not charged again under it.
    const provider = context.services.billing.provider;
    const paidInvoice = byCamera('Fuel tank')[0]!;
    const replay = await provider.payInvoiceNow({
      invoiceId: paidInvoice.invoice_id,
      idempotencyKey: `pay-all-${actors.ownerId}-pay-all-1-${paidInvoice.invoice_id}`,
    });
    expect(replay).toEqual({ outcome: 'paid' });
    expect(await count()).toBe(paymentsBefore);
    const fresh = await provider.payInvoiceNow({
      invoiceId: paidInvoice.invoice_id,
      idempotencyKey: 'another-click',
    });
    expect(fresh).toEqual({ outcome: 'already_paid' });
    expect(await count()).toBe(paymentsBefore);

    const [entry] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'billing.pay_all'), eq(auditLog.accountId, actors.ownerId)));
    expect(entry?.details).toMatchObject({
      amount: result.paid,
      failed: byCamera('Bottom field').length,
    });
  });
});

describe('one card for every camera', () => {
  it('makes a card typed once the default card of each camera', async () => {
    const start = await context.app.inject({
      method: 'POST',
      url: '/api/billing/farm/card-for-every-camera',
      headers: { ...owner(), 'idempotency-key': 'card-step-1' },
    });
    expect(start.statusCode, start.body).toBe(200);
    const { steps } = start.json<{
      steps: { url: string; cameras: { nickname: string | null }[] }[];
    }>();
    // The local engine takes the card once for all of them.
    expect(steps).toHaveLength(1);
    const live = (await farm()).cameras;
    expect(steps[0]!.cameras.map((camera) => camera.nickname).sort()).toEqual(
      live.map((camera) => camera.nickname).sort(),
    );
    const path = new URL(steps[0]!.url).pathname;
    const page = await context.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`Save card for ${live.length} cameras`);
    const mistyped = await context.app.inject({
      method: 'POST',
      url: `${path}/save`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'number=4242+4242+4242+4241&expiry=12+%2F+31&cvc=123',
    });
    expect(mistyped.statusCode).toBe(422);
    const saved = await context.app.inject({
      method: 'POST',
      url: `${path}/save`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'number=5555+5555+5555+4444&expiry=11+%2F+31&cvc=123',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(
      `${testPublicUrl}/billing?card=saved&cameras=${live.length}`,
    );
    const cameras = (await farm()).cameras;
    for (const camera of cameras) {
      expect(camera.card, camera.nickname ?? '').toMatchObject({
        last4: '4444',
        exp_month: 11,
        exp_year: 2031,
      });
      expect(camera.card_warning).toBeNull();
    }
    const defaults = await context.database.db
      .select()
      .from(paymentMethods)
      .where(and(eq(paymentMethods.last4, '4444'), eq(paymentMethods.isDefault, true)));
    expect(defaults.length).toBe(cameras.length);
    // The page is used up.
    expect((await context.app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
  });
});

describe('billing address and VAT number', () => {
  it('refuses what is not a UK postcode or VAT number, in a sentence', async () => {
    const base = {
      name: 'Hill Farm Ltd',
      line1: '1 Hill Road',
      town: 'Exeter',
      postcode: 'EX1 2MP',
    };
    for (const [body, message] of [
      [{ ...base, postcode: 'HELLO' }, 'Enter a UK postcode, like EX1 2MP.'],
      [{ ...base, vat_number: 'FR123' }, /Enter a UK VAT number/],
      [{ ...base, name: '' }, /Enter the name for invoices/],
    ] as const) {
      const response = await context.app.inject({
        method: 'PUT',
        url: '/api/billing/farm/details',
        headers: owner(),
        payload: body,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toMatch(message);
    }
  });

  it('keeps them, and the next invoices carry them on their PDF', async () => {
    const saved = await context.app.inject({
      method: 'PUT',
      url: '/api/billing/farm/details',
      headers: owner(),
      payload: {
        name: 'Hill Farm Ltd',
        line1: '1 Hill Road',
        line2: 'Upton',
        town: 'Exeter',
        postcode: 'ex12mp',
        vat_number: '123 4567 89',
      },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().details).toEqual({
      name: 'Hill Farm Ltd',
      line1: '1 Hill Road',
      line2: 'Upton',
      town: 'Exeter',
      postcode: 'EX1 2MP',
      vat_number: 'GB123456789',
    });
    expect((await farm()).details?.vat_number).toBe('GB123456789');
    // Managers may not change them.
    const manager = await context.app.inject({
      method: 'PUT',
      url: '/api/billing/farm/details',
      headers: actors.headers.manager!,
      payload: { name: 'X', line1: 'Y', town: 'Z', postcode: 'EX1 2MP' },
    });
    expect(manager.statusCode).toBe(403);

    const before = new Set((await farm(`?camera=${demoIccid(101)}`)).invoices.map((row) => row.id));
    const advance = await context.app.inject({
      method: 'POST',
      url: '/billing-engine/test-clock/advance',
      payload: { months: 1 },
    });
    expect(advance.statusCode).toBe(200);
    const renewed = (await farm(`?camera=${demoIccid(101)}`)).invoices.find(
      (row) => !before.has(row.id),
    );
    expect(renewed).toBeDefined();
    const pdf = await context.app.inject({
      method: 'GET',
      url: renewed!.invoice_pdf!.replace(testPublicUrl, ''),
    });
    expect(pdf.statusCode).toBe(200);
    const text = pdfText(pdf.rawPayload);
    for (const line of [
      'Hill Farm Ltd',
      '1 Hill Road',
      'Upton',
      'Exeter',
      'EX1 2MP',
      'VAT number GB123456789',
    ]) {
      expect(text).toContain(line);
    }
  });
});
