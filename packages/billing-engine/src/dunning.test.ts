/**
 * Dunning over months of test-clock time (docs/decisions/025): a declining card's renewal is
 * retried on the policy's days even when the clock jumps, each failure e-mails the customer once
 * with the hosted invoice page, the subscription is overdue from day 7 and canceled at day 30
 * with no renewal raised after; paying on day 10 brings the subscription and the SIM back, and
 * a period that began while unpaid is renewed the moment the invoice is paid.
 */
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../apps/server/test/helpers/test-app.ts';
import { createActors, type Actors } from '../../../apps/server/test/helpers/authorization.ts';
import { invoices, paymentMethods, payments, sims, subscriptions } from '@farmcam/db/schema';
import { demoIccid, seedDemoData } from '../../../apps/server/src/seed/demo.ts';
import { dunningPolicy } from '@farmcam/billing/dunning-policy';

let context: TestContext;
let actors: Actors;

// The demo is seeded on 10 March 2026; monthly plans renew on the 1st, so at 1 April 00:00.
const firstFailure = new Date('2026-04-01T00:00:00Z');
const dayAfterFailure = (days: number) => new Date(firstFailure.getTime() + days * 86_400_000);
const retryTimes = [0, ...dunningPolicy.retryDays].map((days) => dayAfterFailure(days).getTime());

async function advance(body: { days?: number; months?: number }) {
  const response = await context.app.inject({
    method: 'POST',
    url: '/billing-engine/test-clock/advance',
    payload: body,
  });
  expect(response.statusCode).toBe(200);
  return response.json<{ now: string }>();
}

async function subscriptionOf(serial: number) {
  const rows = await context.database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.simIccid, demoIccid(serial)))
    .orderBy(asc(subscriptions.createdAt));
  return rows.at(-1)!;
}

async function simOf(serial: number) {
  const [row] = await context.database.db
    .select()
    .from(sims)
    .where(eq(sims.iccid, demoIccid(serial)));
  return row!;
}

async function invoicesOf(serial: number) {
  const subscription = await subscriptionOf(serial);
  return context.database.db
    .select()
    .from(invoices)
    .where(eq(invoices.subscriptionId, subscription.id))
    .orderBy(asc(invoices.createdAt));
}

async function attemptTimesOf(invoiceId: string) {
  const rows = await context.database.db
    .select()
    .from(payments)
    .where(eq(payments.invoiceId, invoiceId))
    .orderBy(asc(payments.createdAt));
  return rows.map((row) => row.createdAt.getTime());
}

async function dunningMailsAbout(cameraName: string) {
  const all = await context.mailer.list({ limit: 500 });
  return all.filter((message) => message.subject.includes(`for ${cameraName} failed`));
}

async function declineCardsOf(serial: number) {
  const sim = await simOf(serial);
  await context.database.db
    .update(paymentMethods)
    .set({ last4: '0341' })
    .where(eq(paymentMethods.billingCustomerId, sim.billingCustomerId!));
}

beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, 'demo@example.com');
  await seedDemoData(context.database.db, context.clock);
  // Stable yard (201) will never pay; Farmyard (103) pays on day 10.
  await declineCardsOf(201);
  await declineCardsOf(103);
}, 60_000);
afterAll(() => context.close());

describe('dunning on the test clock', () => {
  it('makes a declined renewal past due, with its next retry booked and one e-mail', async () => {
    await advance({ days: 22 }); // 1 April, 12:00
    const subscription = await subscriptionOf(201);
    expect(subscription).toMatchObject({ status: 'past_due', pastDueSince: firstFailure });
    const [renewal] = (await invoicesOf(201)).filter((invoice) => invoice.status === 'open');
    expect(renewal).toMatchObject({
      createdAt: firstFailure,
      attemptCount: 1,
      nextPaymentAttempt: dayAfterFailure(3),
    });

    const mails = await dunningMailsAbout('Stable yard');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toBe('second@example.com');
    expect(mails[0]!.text).toContain('We will try your card again on 4 April 2026.');
    expect(mails[0]!.text).toContain('Please pay the invoice before 1 May 2026.');
    expect(mails[0]!.text).toContain(`http://portal.test${renewal!.hostedInvoiceUrl}`);

    const answer = await context.app.inject({
      method: 'GET',
      url: `/api/invoices/fetch-invoices/${(await simOf(103)).billingCustomerId}`,
      headers: actors.headers.owner,
    });
    const open = answer
      .json<{
        invoices: { status: string; attempt_count: number; next_payment_attempt: number }[];
      }>()
      .invoices.find((invoice) => invoice.status === 'open');
    expect(open).toMatchObject({
      attempt_count: 1,
      next_payment_attempt: dayAfterFailure(3).getTime() / 1000,
    });
  });

  it('retries on each due day even when the clock jumps, stamped with that day', async () => {
    await advance({ days: 9 }); // 10 April: retries on days 3, 5 and 7 are all due
    const [renewal] = (await invoicesOf(201)).filter((invoice) => invoice.status === 'open');
    expect(await attemptTimesOf(renewal!.id)).toEqual(retryTimes.slice(0, 4));
    expect(renewal).toMatchObject({ attemptCount: 4, nextPaymentAttempt: dayAfterFailure(14) });
    expect(await dunningMailsAbout('Stable yard')).toHaveLength(4);
    // Overdue from day 7, after that day's retry failed; stamped with day 7, not 10 April.
    expect(await subscriptionOf(201)).toMatchObject({
      status: 'overdue',
      updatedAt: dayAfterFailure(7),
    });
    expect((await subscriptionOf(103)).status).toBe('overdue');
  });

  it('brings the subscription and the SIM back when the invoice is paid on day 10', async () => {
    await advance({ days: 1 }); // 11 April, 12:00: day 10
    const [renewal] = (await invoicesOf(103)).filter((invoice) => invoice.status === 'open');
    const pay = await context.app.inject({
      method: 'POST',
      url: `${renewal!.hostedInvoiceUrl}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'number=4242+4242+4242+4242&expiry=12+%2F+30&cvc=123',
    });
    expect(pay.statusCode).toBe(303);
    expect(await subscriptionOf(103)).toMatchObject({ status: 'active', pastDueSince: null });
    expect((await simOf(103)).state).toBe('active');
    const [paid] = await context.database.db
      .select()
      .from(invoices)
      .where(eq(invoices.id, renewal!.id));
    // A customer's own payment is not a scheduled attempt: the count stays, no retry is left.
    expect(paid).toMatchObject({ status: 'paid', attemptCount: 4, nextPaymentAttempt: null });
  });

  it('goes on retrying while overdue, cancels at day 30 and raises no renewal after', async () => {
    await advance({ days: 25 }); // 6 May
    const all = await invoicesOf(201);
    const [unpaid] = all.filter(
      (invoice) => invoice.periodStart?.getTime() === firstFailure.getTime(),
    );
    expect(await attemptTimesOf(unpaid!.id)).toEqual(retryTimes);
    expect(unpaid).toMatchObject({ status: 'uncollectible', nextPaymentAttempt: null });
    expect(await dunningMailsAbout('Stable yard')).toHaveLength(retryTimes.length);
    expect(await subscriptionOf(201)).toMatchObject({
      status: 'canceled',
      canceledAt: dayAfterFailure(dunningPolicy.cancelAfterDays),
    });
    // 1 May is both day 30 and the next period's start: canceled first, never renewed.
    expect(all.filter((invoice) => invoice.createdAt > firstFailure)).toHaveLength(0);
    expect((await simOf(201)).state).toBe('active'); // renewable for a while

    // Farmyard paid: renewed on 1 May with the card it paid with, no e-mail since day 7.
    const renewed = (await invoicesOf(103)).filter(
      (invoice) => invoice.periodStart?.toISOString() === '2026-05-01T00:00:00.000Z',
    );
    expect(renewed).toMatchObject([
      { status: 'paid', createdAt: new Date('2026-05-01T00:00:00Z') },
    ]);
    expect(await dunningMailsAbout('Farmyard')).toHaveLength(4);

    const pay = await context.app.inject({
      method: 'POST',
      url: `${unpaid!.hostedInvoiceUrl}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'number=4242+4242+4242+4242&expiry=12+%2F+30&cvc=123',
    });
    expect(decodeURIComponent(pay.headers.location as string)).not.toContain('paid');
    expect((await subscriptionOf(201)).status).toBe('canceled');
  });

  it('terminates the SIM 14 days after the cancellation', async () => {
    await advance({ days: 14 }); // 20 May
    const sim = await simOf(201);
    expect(sim.state).toBe('terminated');
    expect(sim.updatedAt.toISOString()).toBe('2026-05-15T12:00:00.000Z');
    const payments201 = await context.database.db
      .select()
      .from(payments)
      .innerJoin(invoices, eq(invoices.id, payments.invoiceId))
      .where(and(eq(invoices.billingCustomerId, sim.billingCustomerId!)));
    expect(payments201.every((row) => row.payments.status === 'failed')).toBe(true);
  });

  it('raises no renewal while unpaid, and the one held back at once when the invoice is paid', async () => {
    await declineCardsOf(101);
    await advance({ days: 12 }); // 1 June, 12:00: Top gate's renewal fails
    const failedAt = new Date('2026-06-01T00:00:00Z');
    expect(await subscriptionOf(101)).toMatchObject({ status: 'past_due', pastDueSince: failedAt });
    // A short period, so that the next one begins while the invoice is unpaid.
    const nextPeriodStart = new Date('2026-06-21T00:00:00Z');
    await context.database.db
      .update(subscriptions)
      .set({ currentPeriodEnd: nextPeriodStart })
      .where(eq(subscriptions.id, (await subscriptionOf(101)).id));

    await advance({ days: 24 }); // 25 June, 12:00
    expect((await subscriptionOf(101)).status).toBe('overdue');
    const heldBack = (await invoicesOf(101)).filter(
      (invoice) => invoice.periodStart?.getTime() === nextPeriodStart.getTime(),
    );
    expect(heldBack).toHaveLength(0);

    const [unpaid] = (await invoicesOf(101)).filter((invoice) => invoice.status === 'open');
    await context.app.inject({
      method: 'POST',
      url: `${unpaid!.hostedInvoiceUrl}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'number=4242+4242+4242+4242&expiry=11+%2F+30&cvc=123',
    });
    const paidAt = new Date('2026-06-25T12:00:00Z');
    // The period held back ends on the plan's anchor day, the 1st (decision 108).
    expect(await subscriptionOf(101)).toMatchObject({
      status: 'active',
      currentPeriodStart: nextPeriodStart,
      currentPeriodEnd: new Date('2026-07-01T00:00:00Z'),
    });
    const raised = (await invoicesOf(101)).filter(
      (invoice) => invoice.periodStart?.getTime() === nextPeriodStart.getTime(),
    );
    expect(raised).toMatchObject([{ status: 'paid', createdAt: paidAt, paidAt }]);
  });
});
