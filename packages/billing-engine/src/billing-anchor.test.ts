/**
 * Renewals on the billing cycle anchor over years of test-clock time (docs/decisions/108): a
 * monthly plan started on 31 January renews on 28 February (29 in a leap year) and on 31 March
 * again, an annual plan started on 29 February 2028 on 28 February 2029 and 29 February 2032; a
 * pause and a plan change on the same interval keep the anchor, a change to another interval
 * moves it to the change, as Stripe does. Then a property: random starts, clock jumps, pauses,
 * plan changes and declined cards, and every renewal still lands on its anchor.
 *
 * The tests share one billing clock that only moves forward: they run in date order.
 */
import { and, asc, eq, like } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestContext,
  insertCustomer,
  type TestContext,
} from '../../../apps/server/test/helpers/test-app.ts';
import { invoices, payments, sims, subscriptions } from '@farmcam/db/schema';
import { businessDay, businessDayStart } from '../../../apps/server/src/lib/business-calendar.ts';
import { priceId } from '../../../apps/server/src/seed/catalogue.ts';
import { seedCatalogue } from '../../../apps/server/src/seed/demo.ts';
import { anchorDate, periodEndOnAnchor } from '@farmcam/billing/billing-cycle-anchor';
import { isoDay } from '@farmcam/billing/money';
import type { LocalBillingEngine } from './local-billing-engine.ts';

let context: TestContext;
let engine: LocalBillingEngine;
let subscriberNumber = 0;

beforeAll(async () => {
  context = await createTestContext();
  await seedCatalogue(context.database.db);
  engine = context.services.billing.engine!;
}, 60_000);
afterAll(() => context.close());

/** Moves billing time to `instant` (never back), replaying the days on the way (decision 025). */
async function moveTo(instant: string | Date) {
  const target = new Date(instant).getTime();
  await context.services.billing.cycle.runCycle();
  const step = 700 * 86_400_000;
  while (engine.now().getTime() < target) {
    await engine.clock.advance(Math.min(target - engine.now().getTime(), step));
    await context.services.billing.cycle.runCycle();
  }
}

/** A camera subscribed now through the engine's checkout with a good card. */
async function subscribe(plan: string, card = '4242424242424242') {
  subscriberNumber += 1;
  const email = `anchor-${subscriberNumber}@example.com`;
  const portalCustomerId = await insertCustomer(context, email);
  const customer = await engine.createCustomer({
    portalCustomerId,
    email,
    currency: 'gbp',
    idempotencyKey: `anchor-customer-${subscriberNumber}`,
  });
  const iccid = `8944880000${String(subscriberNumber).padStart(9, '0')}`;
  await context.database.db.insert(sims).values({
    iccid,
    state: 'active',
    customerId: portalCustomerId,
    billingCustomerId: customer.id,
    nickname: `Anchor ${subscriberNumber}`,
    activatedAt: engine.now(),
  });
  const session = await engine.createCheckoutSession({
    billingCustomerId: customer.id,
    portalCustomerId,
    email,
    priceId: plan,
    clientReferenceId: iccid,
    successUrl: 'http://portal.test/dashboard',
    cancelUrl: 'http://portal.test/dashboard',
    metadata: { purpose: 'renewal', iccid },
    idempotencyKey: `anchor-checkout-${subscriberNumber}`,
  });
  await engine.completeCheckout(session.id, {
    number: card,
    expMonth: 12,
    expYear: engine.now().getUTCFullYear() + 8,
    cvc: '123',
  });
  const [subscription] = await context.database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.simIccid, iccid));
  return subscription!;
}

async function subscription(id: string) {
  const [row] = await context.database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.id, id));
  return row!;
}

/** The days the subscription's plan invoices (first invoice and renewals) cover, in order. */
async function invoicedPeriodStarts(subscriptionId: string) {
  const rows = await context.database.db
    .select()
    .from(invoices)
    .where(and(eq(invoices.subscriptionId, subscriptionId), like(invoices.description, '1 × %')))
    .orderBy(asc(invoices.periodStart));
  return rows.map((row) => isoDay(row.periodStart!));
}

/** Ends a subscription so later billing cycles leave it alone. */
async function end(subscriptionId: string) {
  await context.database.db
    .update(subscriptions)
    .set({ status: 'canceled', canceledAt: engine.now() })
    .where(eq(subscriptions.id, subscriptionId));
}

describe('renewals on the billing cycle anchor', () => {
  let monthly: string;

  it('renews a monthly plan started on 31 January on 28 February and on 31 March again', async () => {
    await moveTo('2027-01-31T10:00:00Z');
    const started = await subscribe(priceId('light', 'month'));
    monthly = started.id;
    expect(started.billingCycleAnchor).toEqual(new Date('2027-01-31T10:00:00Z'));
    await moveTo('2027-04-15T12:00:00Z');
    expect(await invoicedPeriodStarts(monthly)).toEqual(['2027-01-31', '2027-02-28', '2027-03-31']);
    const now = await subscription(monthly);
    expect(now.currentPeriodEnd).toEqual(new Date('2027-04-30T10:00:00Z'));
    expect(now.billingCycleAnchor).toEqual(new Date('2027-01-31T10:00:00Z'));
  });

  it('keeps the anchor through a pause: the periods in it are not invoiced, the next is on the 31st', async () => {
    await engine.schedulePause({
      subscriptionId: monthly,
      startsOn: '2027-05-01',
      resumesOn: '2027-08-01',
      idempotencyKey: 'anchor-pause-1',
    });
    await moveTo('2027-09-05T12:00:00Z');
    expect(await invoicedPeriodStarts(monthly)).toEqual([
      '2027-01-31',
      '2027-02-28',
      '2027-03-31',
      '2027-04-30',
      // 31 May, 30 June and 31 July fell in the pause.
      '2027-08-31',
    ]);
    expect((await subscription(monthly)).currentPeriodEnd).toEqual(
      new Date('2027-09-30T10:00:00Z'),
    );
  });

  it('keeps the anchor through a change on the same interval and moves it with a change of interval', async () => {
    await moveTo('2027-09-10T12:00:00Z');
    const upgraded = await engine.changePlan({
      subscriptionId: monthly,
      newPriceId: priceId('heavy', 'month'),
      idempotencyKey: 'anchor-change-1',
    });
    expect(upgraded.subscription.billingCycleAnchor).toEqual(new Date('2027-01-31T10:00:00Z'));
    expect(upgraded.subscription.currentPeriodEnd).toEqual(new Date('2027-09-30T10:00:00Z'));
    await moveTo('2027-10-15T12:00:00Z');
    expect((await invoicedPeriodStarts(monthly)).at(-1)).toBe('2027-09-30');

    const annual = await engine.changePlan({
      subscriptionId: monthly,
      newPriceId: priceId('standard', 'year'),
      idempotencyKey: 'anchor-change-2',
    });
    const changedAt = new Date('2027-10-15T12:00:00Z');
    expect(annual.subscription.billingCycleAnchor).toEqual(changedAt);
    expect(annual.subscription).toMatchObject({
      currentPeriodStart: changedAt,
      currentPeriodEnd: new Date('2028-10-15T12:00:00Z'),
    });
  });

  it('renews on 29 February in leap years: monthly from 31 January 2028, annual from 29 February 2028', async () => {
    await moveTo('2028-01-31T08:00:00Z');
    const leapMonthly = await subscribe(priceId('standard', 'month'));
    await moveTo('2028-02-29T08:00:00Z');
    const leapAnnual = await subscribe(priceId('standard', 'year'));
    await moveTo('2028-04-02T12:00:00Z');
    expect(await invoicedPeriodStarts(leapMonthly.id)).toEqual([
      '2028-01-31',
      '2028-02-29',
      '2028-03-31',
    ]);

    await moveTo('2032-03-01T12:00:00Z');
    expect(await invoicedPeriodStarts(leapAnnual.id)).toEqual([
      '2028-02-29',
      '2029-02-28',
      '2030-02-28',
      '2031-02-28',
      '2032-02-29',
    ]);
    // Four years of monthly renewals, each on the 31st or its month's last day.
    const monthlyStarts = await invoicedPeriodStarts(leapMonthly.id);
    expect(monthlyStarts).toHaveLength(50);
    expect(monthlyStarts).toEqual(
      Array.from({ length: 50 }, (_, index) =>
        isoDay(anchorDate(new Date('2028-01-31T08:00:00Z'), 'month', index)),
      ),
    );
    // The annual plan of the change in October 2027 renewed on its new anchor.
    expect((await invoicedPeriodStarts(monthly)).slice(-4)).toEqual([
      '2028-10-15',
      '2029-10-15',
      '2030-10-15',
      '2031-10-15',
    ]);
    await Promise.all([leapMonthly.id, leapAnnual.id, monthly].map(end));
  });
});

type Step =
  | { kind: 'jump'; days: number }
  | { kind: 'pause'; months: number; length: number }
  | { kind: 'cancel-pause' }
  | { kind: 'change-plan'; plan: number }
  | { kind: 'decline' }
  | { kind: 'pay' };

const monthlyPlans = [
  priceId('light', 'month'),
  priceId('standard', 'month'),
  priceId('heavy', 'month'),
];

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('jump' as const),
      days: fc.integer({ min: 1, max: 75 }),
    }),
    weight: 4,
  },
  fc.record({
    kind: fc.constant('pause' as const),
    months: fc.integer({ min: 1, max: 3 }),
    length: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ kind: fc.constant('cancel-pause' as const) }),
  fc.record({ kind: fc.constant('change-plan' as const), plan: fc.nat(monthlyPlans.length - 1) }),
  fc.record({ kind: fc.constant('decline' as const) }),
  fc.record({ kind: fc.constant('pay' as const) }),
);

/** The first day of the month `months` after the one `instant` is in (YYYY-MM-DD). */
const firstOfMonth = (instant: Date, months: number) =>
  isoDay(new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth() + months, 1)));

describe('renewals on the anchor under random use', () => {
  it(
    'land on the anchor day of their month, period after period',
    { timeout: 180_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 28, max: 31 }),
          fc.integer({ min: 0, max: 23 }),
          fc.constantFrom(...monthlyPlans, priceId('standard', 'year')),
          fc.array(step, { minLength: 3, maxLength: 10 }),
          async (anchorDay, hour, plan, steps) => {
            // The next date with that day of the month (the 31st, 30th or 29th where it exists).
            let start = new Date(engine.now().getTime() + 86_400_000);
            while (start.getUTCDate() !== anchorDay) start = new Date(start.getTime() + 86_400_000);
            start.setUTCHours(hour, 0, 0, 0);
            await moveTo(start);
            const started = await subscribe(plan);
            const anchor = started.billingCycleAnchor;
            const interval = plan.includes('_year_') ? 'year' : 'month';
            try {
              for (const action of steps) {
                await perform(started.id, action, interval);
                await checkOnAnchor(started.id, anchor, interval);
              }
            } finally {
              await end(started.id);
            }
          },
        ),
        {
          numRuns: process.env.ANCHOR_RUNS ? Number(process.env.ANCHOR_RUNS) : 15,
          ...(process.env.ANCHOR_SEED && { seed: Number(process.env.ANCHOR_SEED) }),
        },
      );
    },
  );
});

describe('a pause on any anchor (Stripe: a paused subscription is not charged for the pause)', () => {
  it(
    'never invoices or charges a period that starts in the pause, and every other period once',
    { timeout: 180_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 31 }),
          fc.integer({ min: 0, max: 23 }),
          fc.integer({ min: 0, max: 59 }),
          fc.integer({ min: 1, max: 3 }),
          fc.integer({ min: 1, max: 3 }),
          fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 4 }),
          async (anchorDay, hour, minute, startsIn, months, jumps) => {
            let start = new Date(engine.now().getTime() + 86_400_000);
            while (start.getUTCDate() !== anchorDay) start = new Date(start.getTime() + 86_400_000);
            start.setUTCHours(hour, minute, 0, 0);
            await moveTo(start);
            const started = await subscribe(priceId('light', 'month'));
            const anchor = started.billingCycleAnchor;
            // Pauses run from a 1st to a later 1st (decision 021), UK days.
            const startsOn = firstOfMonth(anchor, startsIn);
            const resumesOn = firstOfMonth(anchor, startsIn + months);
            await engine.schedulePause({
              subscriptionId: started.id,
              startsOn,
              resumesOn,
              idempotencyKey: `paused-anchor-${started.id}`,
            });
            try {
              for (const days of jumps) {
                await moveTo(new Date(engine.now().getTime() + days * 86_400_000));
              }
              await moveTo(new Date(businessDayStart(resumesOn).getTime() + 40 * 86_400_000));
              const row = await subscription(started.id);
              // Every period on the anchor so far, less those whose UK start day is in the pause.
              const expected: string[] = [];
              for (let index = 0; anchorDate(anchor, 'month', index) < row.currentPeriodEnd;) {
                const periodStart = anchorDate(anchor, 'month', index);
                const day = businessDay(periodStart);
                if (day < startsOn || day >= resumesOn) expected.push(isoDay(periodStart));
                index += 1;
              }
              expect(await invoicedPeriodStarts(started.id)).toEqual(expected);
              // Each of them paid by one charge, and nothing charged for the pause.
              const charged = await context.database.db
                .select({ periodStart: invoices.periodStart, status: payments.status })
                .from(payments)
                .innerJoin(invoices, eq(invoices.id, payments.invoiceId))
                .where(eq(invoices.subscriptionId, started.id))
                .orderBy(asc(invoices.periodStart));
              expect(charged.map((charge) => isoDay(charge.periodStart!))).toEqual(expected);
              expect(charged.every((charge) => charge.status === 'succeeded')).toBe(true);
            } finally {
              await end(started.id);
            }
          },
        ),
        {
          numRuns: process.env.PAUSE_RUNS ? Number(process.env.PAUSE_RUNS) : 8,
          ...(process.env.PAUSE_SEED && { seed: Number(process.env.PAUSE_SEED) }),
        },
      );
    },
  );
});

async function perform(subscriptionId: string, action: Step, interval: 'month' | 'year') {
  const now = engine.now();
  switch (action.kind) {
    case 'jump':
      return moveTo(new Date(now.getTime() + action.days * 86_400_000));
    case 'pause': {
      const startsOn = firstOfMonth(now, action.months);
      const resumesOn = firstOfMonth(now, action.months + action.length);
      await engine
        .schedulePause({
          subscriptionId,
          startsOn,
          resumesOn,
          idempotencyKey: `anchor-pause-${subscriptionId}-${now.getTime()}`,
        })
        .catch(() => undefined);
      return;
    }
    case 'cancel-pause':
      await engine
        .cancelPause({ subscriptionId, idempotencyKey: `anchor-unpause-${now.getTime()}` })
        .catch(() => undefined);
      return;
    case 'change-plan':
      // Changes on the same interval only: a change of interval moves the anchor (tested above).
      if (interval !== 'month') return;
      await engine
        .changePlan({
          subscriptionId,
          newPriceId: monthlyPlans[action.plan]!,
          idempotencyKey: `anchor-change-${subscriptionId}-${now.getTime()}`,
        })
        .catch(() => undefined);
      return;
    case 'decline':
    case 'pay': {
      const row = await subscription(subscriptionId);
      await engine
        .addCard(
          row.billingCustomerId,
          {
            number: action.kind === 'decline' ? '4000000000000341' : '4242424242424242',
            expMonth: 1 + (now.getTime() % 12),
            expYear: now.getUTCFullYear() + 5,
            cvc: '123',
          },
          true,
        )
        .catch(() => undefined);
      if (action.kind === 'pay') {
        const [open] = await context.database.db
          .select()
          .from(invoices)
          .where(and(eq(invoices.subscriptionId, subscriptionId), eq(invoices.status, 'open')));
        if (open) await engine.payInvoice(open.id).catch(() => undefined);
      }
      return;
    }
  }
}

/** The current period and every renewal invoiced so far start and end on the anchor. */
async function checkOnAnchor(subscriptionId: string, anchor: Date, interval: 'month' | 'year') {
  const row = await subscription(subscriptionId);
  expect(row.billingCycleAnchor).toEqual(anchor);
  const onAnchor = (instant: Date) => {
    const months =
      (instant.getUTCFullYear() - anchor.getUTCFullYear()) * 12 +
      instant.getUTCMonth() -
      anchor.getUTCMonth();
    const step = interval === 'year' ? 12 : 1;
    return (
      months % step === 0 && anchorDate(anchor, 'month', months).getTime() === instant.getTime()
    );
  };
  expect(
    onAnchor(row.currentPeriodStart),
    `period start ${row.currentPeriodStart.toISOString()}`,
  ).toBe(true);
  expect(row.currentPeriodEnd).toEqual(periodEndOnAnchor(anchor, row.currentPeriodStart, interval));
  const renewals = await context.database.db
    .select()
    .from(invoices)
    .where(and(eq(invoices.subscriptionId, subscriptionId), like(invoices.description, '1 × %')));
  for (const invoice of renewals) {
    expect(
      onAnchor(invoice.periodStart!),
      `invoice for ${invoice.periodStart!.toISOString()}`,
    ).toBe(true);
    expect(invoice.periodEnd).toEqual(periodEndOnAnchor(anchor, invoice.periodStart!, interval));
  }
}
