/**
 * The billing fence a restore leaves (docs/decisions/109), through the real engine and cycle on
 * the test clock: a period that starts before the fence rolls on without an invoice, an invoice
 * issued before it is not retried (the customer can still pay it), and what falls due after it
 * is invoiced and charged as usual.
 */
import { and, eq, gte, isNotNull, lt } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../apps/server/test/helpers/test-app.ts';
import { appSettings, invoices, payments, subscriptions } from '@farmcam/db/schema';
import { demoIccid, seedDemoData } from '../../../apps/server/src/seed/demo.ts';
import { restoreFenceKey, type RestoreFence } from './restore-fence.ts';

let context: TestContext;
// The demo is seeded on 10 March 2026: monthly plans renew on 1 April, 1 May, 1 June...
const fence = new Date('2026-05-01T12:00:00Z');
let openBefore: { id: string; attemptCount: number }[];
let paymentsBefore: number;

async function advance(body: { days?: number; months?: number }) {
  const response = await context.app.inject({
    method: 'POST',
    url: '/billing-engine/test-clock/advance',
    payload: body,
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** The demo's Top gate camera: Light Streaming, monthly, active. */
async function topGate() {
  const [row] = await context.database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.simIccid, demoIccid(101)));
  return row!.id;
}

const renewalsFrom = (from: Date, to: Date) =>
  context.database.db
    .select()
    .from(invoices)
    .where(
      and(
        isNotNull(invoices.subscriptionId),
        gte(invoices.periodStart, from),
        lt(invoices.periodStart, to),
      ),
    );

beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
  const value: RestoreFence = {
    until: fence.toISOString(),
    backupCreatedAt: '2026-03-01T00:00:00.000Z',
    backupBillingTime: '2026-03-01T00:00:00.000Z',
    restoredAt: context.clock.now().toISOString(),
  };
  await context.database.db.insert(appSettings).values({ key: restoreFenceKey, value });
  openBefore = await context.database.db
    .select({ id: invoices.id, attemptCount: invoices.attemptCount })
    .from(invoices)
    .where(eq(invoices.status, 'open'));
  paymentsBefore = (await context.database.db.select().from(payments)).length;
}, 60_000);
afterAll(() => context.close());

describe('the billing fence of a restore', () => {
  it('rolls periods that start before it on unbilled and retries no invoice issued before it', async () => {
    expect(openBefore.length).toBeGreaterThan(0);
    // The renewal of 1 April is before the fence: no upcoming invoice is shown for it.
    const engine = context.services.billing.engine!;
    expect(await engine.previewUpcomingInvoice({ subscriptionId: await topGate() })).toBeNull();
    await advance({ days: 60 }); // 9 May: the renewals of 1 April and 1 May are behind it
    expect(await renewalsFrom(new Date('2026-03-11T00:00:00Z'), fence)).toEqual([]);
    // The demo's unpaid renewals: none retried, none booked for a retry.
    for (const { id, attemptCount } of openBefore) {
      const [row] = await context.database.db.select().from(invoices).where(eq(invoices.id, id));
      expect(row!.attemptCount, id).toBe(attemptCount);
      expect(row!.nextPaymentAttempt, id).toBeNull();
    }
    expect((await context.database.db.select().from(payments)).length).toBe(paymentsBefore);
  });

  it('invoices and charges what falls due after it as usual', async () => {
    // The renewal of 1 June is after it: shown, then charged.
    expect(
      await context.services.billing.engine!.previewUpcomingInvoice({
        subscriptionId: await topGate(),
      }),
    ).toMatchObject({ raisedAt: new Date('2026-06-01T00:00:00Z'), amountDue: 1200 });
    await advance({ months: 1 }); // 9 June: the renewals of 1 June
    const june = await renewalsFrom(fence, new Date('2026-06-02T00:00:00Z'));
    expect(june.length).toBeGreaterThan(0);
    expect(
      june.every((invoice) => invoice.periodStart!.toISOString().startsWith('2026-06-01')),
    ).toBe(true);
    expect(june.filter((invoice) => invoice.status === 'paid').length).toBeGreaterThan(0);
    expect((await context.database.db.select().from(payments)).length).toBeGreaterThan(
      paymentsBefore,
    );
  });
});
