/**
 * Invoices a bookkeeper accepts (docs/decisions/026): one gapless number sequence, a downgrade's
 * credit shown as a negative line on the renewal that uses it, VAT and the supplier on the PDF,
 * and a credit note where money is given back. Runs on PostgreSQL too (npm run test:pg), where
 * concurrent finalisations really race for the counter row.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestContext,
  insertCustomer as insertPortalCustomer,
  testPublicUrl,
  type TestContext,
} from '../../../apps/server/test/helpers/test-app.ts';
import { createPaidHeavySubscriber } from '../../../apps/server/test/helpers/billing-subscriber.ts';
import { ownerAccess } from '../../../apps/server/src/modules/auth/access.ts';
import { pdfText } from '../../../apps/server/test/helpers/pdf-text.ts';
import { billingCustomers, creditNotes, customers, invoices, payments } from '@farmcam/db/schema';
import { seedCatalogue } from '../../../apps/server/src/seed/demo.ts';
import { issueInvoice } from './ledger.ts';

const periodStart = new Date('2026-03-01T00:00:00Z');
const periodEnd = new Date('2026-04-01T00:00:00Z');

let context: TestContext;
let portalCustomerId: string;
beforeAll(async () => {
  context = await createTestContext();
  context.clock.set(new Date('2026-03-01T00:00:00Z'));
  await seedCatalogue(context.database.db);
  portalCustomerId = await insertPortalCustomer(context, 'meg@hill-farm.example');
  await context.database.db
    .update(customers)
    .set({ name: 'Meg Hill' })
    .where(eq(customers.id, portalCustomerId));
});
afterAll(() => context.close());

const service = () => context.services.billing.account;
/** The account's owner, who reaches every camera's billing account. */
const owner = () => ({ customerId: portalCustomerId, access: ownerAccess('owner@example.com') });
const engine = () => context.services.billing.engine!;

/** A camera on Heavy monthly (1 March - 1 April), its first invoice paid. */
function createSubscriber(serial: number) {
  return createPaidHeavySubscriber(context.database.db, {
    portalCustomerId,
    serial,
    nickname: `North gate ${serial}`,
    periodStart,
    periodEnd,
  });
}

async function download(url: string) {
  const response = await context.app.inject({
    method: 'GET',
    url: url.replace(testPublicUrl, ''),
  });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toBe('application/pdf');
  return pdfText(response.rawPayload);
}

async function hostedPage(url: string) {
  const response = await context.app.inject({ method: 'GET', url: url.replace(testPublicUrl, '') });
  expect(response.statusCode).toBe(200);
  return response.body;
}

const numberOf = (number: string) => Number(number.replace(/^FC-/, ''));

async function balanceOf(billingCustomerId: string) {
  const [row] = await context.database.db
    .select({ balance: billingCustomers.balance })
    .from(billingCustomers)
    .where(eq(billingCustomers.id, billingCustomerId));
  return row!.balance;
}

describe('invoice numbers', () => {
  it('are one gapless sequence, even when finalisations race and some roll back', async () => {
    const subscribers = await Promise.all([201, 202, 203, 204, 205, 206].map(createSubscriber));
    const db = context.database.db;
    // Six invoices finalised at once; every other transaction then fails and rolls back.
    const outcomes = await Promise.allSettled(
      subscribers.map((subscriber, index) =>
        db.transaction(async (transaction) => {
          const invoice = await issueInvoice(transaction, {
            billingCustomerId: subscriber.billingCustomerId,
            subscriptionId: subscriber.subscriptionId,
            description: 'Race',
            total: 100,
            currency: 'gbp',
            periodStart,
            periodEnd,
            now: periodStart,
          });
          if (index % 2 === 1) throw new Error('rolled back');
          return invoice.number;
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    // Then several renewals (upgrades invoiced at once) finalised together.
    context.clock.set(new Date('2026-03-16T12:00:00Z'));
    await Promise.all(
      subscribers.slice(0, 3).map((subscriber, index) =>
        engine().changePlan({
          subscriptionId: subscriber.subscriptionId,
          newPriceId: 'price_heavy_year_uk',
          idempotencyKey: `race-upgrade-${index}`,
        }),
      ),
    );
    const numbers = (await db.select({ number: invoices.number }).from(invoices))
      .map((row) => numberOf(row.number))
      .sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, index) => index + 1));
    for (const row of await db.select({ number: invoices.number }).from(invoices)) {
      expect(row.number).toMatch(/^FC-\d{6}$/);
    }
  });
});

describe('a downgrade and the renewal after it', () => {
  it('shows the unused time as a negative line on the renewal, in the answer and the PDF', async () => {
    context.clock.set(new Date('2026-03-16T12:00:00Z'));
    const subscriber = await createSubscriber(301);
    const result = await engine().changePlan({
      subscriptionId: subscriber.subscriptionId,
      newPriceId: 'price_light_month_uk',
      idempotencyKey: 'downgrade-301',
    });
    expect(result.invoice).toBeNull();
    // Half of March unused on Heavy (£17.50) less the same on Light (£6.00).
    let listed = await service().invoices(owner(), subscriber.billingCustomerId);
    expect(listed.credit_balance).toBe(1150);

    context.clock.set(new Date('2026-04-01T01:00:00Z'));
    await context.services.billing.cycle.runCycle();
    listed = await service().invoices(owner(), subscriber.billingCustomerId);
    const [renewal] = listed.invoices;
    expect(renewal!.lines).toEqual([
      { description: 'Unused time on Heavy Streaming from 16 Mar to 1 Apr 2026', amount: -1750 },
      { description: 'Remaining time on Light Streaming from 16 Mar to 1 Apr 2026', amount: 600 },
      { description: '1 × Light Streaming (at £12.00 / month)', amount: 1200 },
    ]);
    expect(renewal).toMatchObject({ total: 50, tax: 8, amount_due: 50, status: 'paid' });
    expect(renewal!.number).toMatch(/^FC-\d{6}$/);
    expect(listed.credit_balance).toBe(0);

    const page = await hostedPage(renewal!.hosted_invoice_url!);
    expect(page).toContain('Unused time on Heavy Streaming from 16 Mar to 1 Apr 2026');
    expect(page).toContain('-£17.50');
    expect(page).toContain('VAT (20% included)');

    const text = await download(renewal!.invoice_pdf!);
    for (const expected of [
      'Farmcam Demo Ltd',
      '1 Demo Farm Lane',
      'VAT number GB 000 0000 00 (demo)',
      renewal!.number,
      'Meg Hill',
      'meg@hill-farm.example',
      `North gate 301 (ICCID ${subscriber.iccid})`,
      '1 Apr 2026 – 1 May 2026',
      'Unused time on Heavy Streaming from 16 Mar to 1 Apr 2026',
      '-£17.50',
      'Remaining time on Light Streaming from 16 Mar to 1 Apr 2026',
      '£6.00',
      'Total excluding VAT',
      '£0.42',
      'VAT (20% included)',
      '£0.08',
      'Amount due',
      'Amount paid',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('carries a credit larger than the renewal as a balance, taken off the invoice after', async () => {
    context.clock.set(new Date('2026-03-01T00:00:00Z'));
    const subscriber = await createSubscriber(302);
    // Straight after paying Heavy for March, down to Light: almost all of £35 comes back.
    context.clock.set(new Date('2026-03-01T00:01:00Z'));
    await engine().changePlan({
      subscriptionId: subscriber.subscriptionId,
      newPriceId: 'price_light_month_uk',
      idempotencyKey: 'downgrade-302',
    });
    context.clock.set(new Date('2026-04-01T01:00:00Z'));
    await context.services.billing.cycle.runCycle();
    let listed = await service().invoices(owner(), subscriber.billingCustomerId);
    const [april] = listed.invoices;
    expect(april).toMatchObject({ amount_due: 0, status: 'paid' });
    expect(april!.total).toBeLessThan(0);
    expect(listed.credit_balance).toBe(-april!.total);
    const text = await download(april!.invoice_pdf!);
    expect(text).toContain('Credit carried to your balance');
    expect(text).toContain('will be taken off your next invoice');
    expect(await hostedPage(april!.hosted_invoice_url!)).toContain(
      `Credit on your account: £${(-april!.total / 100).toFixed(2)}, taken off your next invoice.`,
    );

    context.clock.set(new Date('2026-05-01T01:00:00Z'));
    await context.services.billing.cycle.runCycle();
    listed = await service().invoices(owner(), subscriber.billingCustomerId);
    const [may] = listed.invoices;
    expect(may!.lines).toEqual([
      { description: '1 × Light Streaming (at £12.00 / month)', amount: 1200 },
    ]);
    expect(may!.amount_due).toBe(Math.max(1200 + april!.total, 0));
    expect(await download(may!.invoice_pdf!)).toContain('Credit applied from your balance');
  });
});

describe('money given back', () => {
  it('issues a credit note numbered from the invoice, with its own PDF', async () => {
    context.clock.set(new Date('2026-03-01T00:00:00Z'));
    const subscriber = await createSubscriber(401);
    await engine().refundCheckout({
      subscriptionId: subscriber.subscriptionId,
      reason: 'The SIM went to another buyer first.',
    });
    const [note] = await context.database.db
      .select()
      .from(creditNotes)
      .where(eq(creditNotes.invoiceId, subscriber.invoice.id));
    expect(note).toMatchObject({
      number: `${subscriber.invoice.number}-CN-01`,
      total: 3500,
      tax: 583,
      refundAmount: 3500,
    });
    // Refunding again gives nothing more back and makes no second note.
    await engine().refundCheckout({ subscriptionId: subscriber.subscriptionId, reason: 'again' });
    const listed = await service().invoices(owner(), subscriber.billingCustomerId);
    const [invoice] = listed.invoices;
    expect(invoice!.credit_notes).toEqual([
      expect.objectContaining({ number: note!.number, total: 3500 }),
    ]);
    const text = await download(invoice!.credit_notes[0]!.pdf!);
    for (const expected of [
      'Credit note',
      note!.number,
      subscriber.invoice.number,
      'The SIM went to another buyer first.',
      '1 × Heavy Streaming (at £35.00 / month)',
      'Total credited',
      '£35.00',
      'VAT (20% included)',
      '£5.83',
      'VAT number',
    ]) {
      expect(text).toContain(expected);
    }
    expect(await download(invoice!.invoice_pdf!)).toContain(`Credit note ${note!.number}`);
  });

  it('gives the part the credit balance paid back to the balance, the card part to the card', async () => {
    context.clock.set(new Date('2026-03-01T00:00:00Z'));
    // £5.00 of credit on the account: the £35.00 invoice took it off and charged £30.00.
    const subscriber = await createPaidHeavySubscriber(context.database.db, {
      portalCustomerId,
      serial: 402,
      nickname: 'North gate 402',
      periodStart,
      periodEnd,
      balance: -500,
    });
    expect(subscriber.invoice).toMatchObject({
      total: 3500,
      startingBalance: -500,
      endingBalance: 0,
      amountDue: 3000,
    });
    await engine().refundCheckout({
      subscriptionId: subscriber.subscriptionId,
      reason: 'The SIM went to another buyer first.',
    });
    const [note] = await context.database.db
      .select()
      .from(creditNotes)
      .where(eq(creditNotes.invoiceId, subscriber.invoice.id));
    expect(note).toMatchObject({ total: 3500, refundAmount: 3000, creditAmount: 500 });
    const paid = await context.database.db
      .select()
      .from(payments)
      .where(eq(payments.invoiceId, subscriber.invoice.id));
    expect(paid.map((payment) => [payment.status, payment.amount])).toEqual([['refunded', 3000]]);
    expect(await balanceOf(subscriber.billingCustomerId)).toBe(-500);
    // Again: nothing more to the card, nothing more to the balance, no second note.
    await engine().refundCheckout({ subscriptionId: subscriber.subscriptionId, reason: 'again' });
    expect(await balanceOf(subscriber.billingCustomerId)).toBe(-500);

    const listed = await service().invoices(owner(), subscriber.billingCustomerId);
    expect(listed.credit_balance).toBe(500);
    expect(listed.invoices[0]!.credit_notes).toEqual([
      expect.objectContaining({
        total: 3500,
        refund_amount: 3000,
        credit_amount: 500,
        given_back: '£30.00 refunded to your card and £5.00 credited to your balance',
      }),
    ]);
    const text = await download(listed.invoices[0]!.credit_notes[0]!.pdf!);
    for (const expected of [
      'Refunded to your card',
      '£30.00',
      'Credited to your balance',
      '£5.00',
      'The £5.00 credited to your balance is taken off your next invoice.',
    ]) {
      expect(text).toContain(expected);
    }
    // (The PDF wraps the sentence after "your".)
    expect(await download(listed.invoices[0]!.invoice_pdf!)).toContain(
      '£30.00 refunded to your card and £5.00 credited to your',
    );
    // The next invoice takes the credit off again.
    const next = await issueInvoice(context.database.db, {
      billingCustomerId: subscriber.billingCustomerId,
      subscriptionId: null,
      description: 'Next',
      total: 1200,
      currency: 'gbp',
      periodStart: null,
      periodEnd: null,
      now: new Date('2026-03-02T00:00:00Z'),
    });
    expect(next).toMatchObject({ startingBalance: -500, amountDue: 700 });
  });

  it('credits back an invoice the balance paid in full, with nothing to refund to a card', async () => {
    const subscriber = await createPaidHeavySubscriber(context.database.db, {
      portalCustomerId,
      serial: 403,
      nickname: 'North gate 403',
      periodStart,
      periodEnd,
      balance: -5000,
    });
    expect(subscriber.invoice).toMatchObject({
      status: 'paid',
      amountDue: 0,
      endingBalance: -1500,
    });
    await engine().refundCheckout({
      subscriptionId: subscriber.subscriptionId,
      reason: 'Refunded.',
    });
    const [note] = await context.database.db
      .select()
      .from(creditNotes)
      .where(eq(creditNotes.invoiceId, subscriber.invoice.id));
    expect(note).toMatchObject({ total: 3500, refundAmount: 0, creditAmount: 3500 });
    expect(await balanceOf(subscriber.billingCustomerId)).toBe(-5000);
  });

  it('refuses a credit note link with a wrong token', async () => {
    const [note] = await context.database.db.select().from(creditNotes).limit(1);
    const response = await context.app.inject({
      method: 'GET',
      url: `/billing-engine/credit-notes/${note!.id}/wrong-token/pdf`,
    });
    expect(response.statusCode).toBe(404);
  });
});
