/**
 * A property test of the local engine's ledger (issue 12, docs/decisions/025): fast-check plays
 * random sequences of plan changes, pauses, card changes (a good card, or 4000 0000 0000 0341,
 * which saves but is declined on every charge; with or without consent to pay the open invoice
 * with it), payments of the open invoice and test clock jumps against the whole app, and after
 * each step checks that
 * - the money charged minus refunds to cards equals the amounts paid on paid invoices less what
 *   their credit notes refunded to the card;
 * - a credit note gives back at most what its invoice took: to the card what the card paid, to the
 *   credit balance what the balance paid (docs/decisions/108);
 * - a subscription has at most one open invoice (so one open renewal per period);
 * - no invoice is raised for a period in a pause, nor after a subscription was canceled;
 * - every subscription is in a state of docs/requirements.md#states, consistent with its invoices and dunning dates;
 * - the balance is never more in credit than the credit ever given;
 * - the current period ends on the subscription's billing cycle anchor (docs/decisions/108).
 * On failure fast-check prints the seed. The runs share one billing clock, which only moves on, so
 * a run's dates depend on the runs before it: replay with the seed alone (the whole sequence),
 * `LEDGER_SEED=<seed> npx vitest run <this file>`; `LEDGER_RUNS=<n>` runs more sequences.
 * A sequence that failed once is kept below as a plain regression case, on fixed dates.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createTestContext,
  insertCustomer,
  signInCustomer,
  type TestContext,
} from '../../../apps/server/test/helpers/test-app.ts';
import {
  billingCustomers,
  creditNotes,
  invoiceLines,
  invoices,
  payments,
  sims,
  subscriptions,
} from '@farmcam/db/schema';
import { priceId } from '../../../apps/server/src/seed/catalogue.ts';
import { seedCatalogue } from '../../../apps/server/src/seed/demo.ts';
import { isoDay } from '@farmcam/billing/money';
import { periodEndOnAnchor } from '@farmcam/billing/billing-cycle-anchor';
import { dunningPolicy } from '@farmcam/billing/dunning-policy';
import { paidFromBalance } from './ledger.ts';
import type { LocalBillingEngine } from './local-billing-engine.ts';

let context: TestContext;
let engine: LocalBillingEngine;
let runNumber = 0;

const goodCard = '4242424242424242';
const decliningCard = '4000000000000341';
const plans = [
  priceId('light', 'month'),
  priceId('standard', 'month'),
  priceId('heavy', 'month'),
  priceId('standard', 'year'),
];

type Action =
  | { kind: 'change-plan'; plan: number }
  | { kind: 'pause'; choice: number }
  | { kind: 'cancel-pause' }
  | { kind: 'card'; isDeclining: boolean; isPayingNow: boolean }
  | { kind: 'pay' }
  | { kind: 'refund' }
  | { kind: 'jump'; days: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('change-plan' as const), plan: fc.nat(plans.length - 1) }),
  fc.record({ kind: fc.constant('pause' as const), choice: fc.nat(6) }),
  fc.record({ kind: fc.constant('cancel-pause' as const) }),
  fc.record({
    kind: fc.constant('card' as const),
    isDeclining: fc.boolean(),
    isPayingNow: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('pay' as const) }),
  // Rare: it ends the subscription (a checkout that could not be fulfilled, refunded).
  { arbitrary: fc.record({ kind: fc.constant('refund' as const) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('jump' as const),
      days: fc.integer({ min: 1, max: 45 }),
    }),
    weight: 3,
  },
);

interface Run {
  billingCustomerId: string;
  iccid: string;
  headers: Record<string, string>;
  /** Pauses that took effect or may still: start day → restart day. */
  pauses: Map<string, string>;
  cardCounter: number;
}

async function startRun(): Promise<Run> {
  runNumber += 1;
  const email = `ledger-${runNumber}@example.com`;
  const portalCustomerId = await insertCustomer(context, email);
  const customer = await engine.createCustomer({
    portalCustomerId,
    email,
    currency: 'gbp',
    idempotencyKey: `ledger-customer-${runNumber}`,
  });
  const iccid = `8944990000${String(runNumber).padStart(9, '0')}`;
  await context.database.db.insert(sims).values({
    iccid,
    state: 'active',
    customerId: portalCustomerId,
    billingCustomerId: customer.id,
    nickname: `Ledger ${runNumber}`,
    activatedAt: engine.now(),
  });
  const session = await engine.createCheckoutSession({
    billingCustomerId: customer.id,
    portalCustomerId,
    email,
    priceId: priceId('standard', 'month'),
    clientReferenceId: iccid,
    successUrl: 'http://portal.test/dashboard',
    cancelUrl: 'http://portal.test/dashboard',
    metadata: { purpose: 'renewal', iccid },
    idempotencyKey: `ledger-checkout-${runNumber}`,
  });
  await engine.completeCheckout(session.id, cardInput(goodCard, 0));
  return {
    billingCustomerId: customer.id,
    iccid,
    headers: bearer(await signInCustomer(context, email)),
    pauses: new Map(),
    cardCounter: 0,
  };
}

function cardInput(number: string, counter: number) {
  // A different expiry makes a different card (the engine refuses a card saved twice).
  return {
    number,
    expMonth: 1 + (counter % 12),
    expYear: engine.now().getUTCFullYear() + 3 + Math.floor(counter / 12),
    cvc: '123',
  };
}

async function subscriptionOf(run: Run) {
  const [row] = await context.database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.simIccid, run.iccid));
  return row!;
}

async function recordPause(run: Run) {
  const subscription = await subscriptionOf(run);
  if (subscription.pauseStartsOn && subscription.pauseResumesOn) {
    run.pauses.set(subscription.pauseStartsOn, subscription.pauseResumesOn);
  }
}

async function jump(days: number) {
  const response = await context.app.inject({
    method: 'POST',
    url: '/billing-engine/test-clock/advance',
    payload: { days },
  });
  expect(response.statusCode).toBe(200);
}

async function perform(run: Run, step: Action): Promise<void> {
  const inject = (method: 'GET' | 'POST', url: string, payload?: object) =>
    context.app.inject({ method, url, headers: run.headers, ...(payload && { payload }) });
  switch (step.kind) {
    case 'change-plan': {
      const response = await inject('POST', '/api/subscriptions/change-plan', {
        customerId: run.billingCustomerId,
        newPlanId: plans[step.plan],
      });
      expect([200, 409, 422]).toContain(response.statusCode);
      return;
    }
    case 'pause': {
      const options = await inject('GET', `/api/pause/pause-dates/${run.billingCustomerId}`);
      const dates: string[] = options.json().pause_options.resume_dates;
      if (dates.length === 0) return;
      const response = await inject('POST', '/api/pause/pause-subscription', {
        customer_id: run.billingCustomerId,
        resume_date: dates[step.choice % dates.length],
      });
      expect([200, 409]).toContain(response.statusCode);
      await recordPause(run);
      return;
    }
    case 'cancel-pause': {
      const before = await subscriptionOf(run);
      const response = await inject('POST', '/api/pause/cancel-pause-subscription', {
        customer_id: run.billingCustomerId,
      });
      expect([200, 409]).toContain(response.statusCode);
      const after = await subscriptionOf(run);
      // A scheduled pause canceled before it began never happened.
      if (before.pauseStartsOn && !after.pauseStartsOn) run.pauses.delete(before.pauseStartsOn);
      await recordPause(run);
      return;
    }
    case 'card': {
      run.cardCounter += 1;
      // Paying open invoices with the new card needs the customer's consent to the amount.
      const open = await context.database.db
        .select()
        .from(invoices)
        .where(
          and(eq(invoices.billingCustomerId, run.billingCustomerId), eq(invoices.status, 'open')),
        );
      const due = open.reduce((sum, invoice) => sum + invoice.amountDue - invoice.amountPaid, 0);
      await engine
        .addCard(
          run.billingCustomerId,
          cardInput(step.isDeclining ? decliningCard : goodCard, run.cardCounter),
          true,
          step.isPayingNow && open.length > 0 ? { payAmountDue: due } : undefined,
        )
        .catch(() => undefined);
      return;
    }
    case 'pay': {
      const [open] = await context.database.db
        .select()
        .from(invoices)
        .where(
          and(eq(invoices.billingCustomerId, run.billingCustomerId), eq(invoices.status, 'open')),
        );
      if (open) await engine.payInvoice(open.id).catch(() => undefined);
      return;
    }
    case 'refund': {
      // As the app refunds a checkout it could not fulfil: right away, with nothing unpaid.
      const [open] = await context.database.db
        .select()
        .from(invoices)
        .where(
          and(eq(invoices.billingCustomerId, run.billingCustomerId), eq(invoices.status, 'open')),
        );
      if (open) return;
      const subscription = await subscriptionOf(run);
      await engine.refundCheckout({ subscriptionId: subscription.id, reason: 'Refunded.' });
      return;
    }
    case 'jump':
      return jump(step.days);
  }
}

async function checkInvariants(run: Run) {
  const db = context.database.db;
  const now = engine.now();
  const subscription = await subscriptionOf(run);
  const ownInvoices = await db
    .select()
    .from(invoices)
    .where(eq(invoices.billingCustomerId, run.billingCustomerId));
  const ownPayments = ownInvoices.length
    ? await db
        .select()
        .from(payments)
        .where(
          inArray(
            payments.invoiceId,
            ownInvoices.map((invoice) => invoice.id),
          ),
        )
    : [];

  // Money: what was charged, less what was given back, is what paid invoices were paid.
  const notes = ownInvoices.length
    ? await db
        .select()
        .from(creditNotes)
        .where(
          inArray(
            creditNotes.invoiceId,
            ownInvoices.map((invoice) => invoice.id),
          ),
        )
    : [];
  const charged = ownPayments
    .filter((payment) => payment.status !== 'failed')
    .reduce((sum, payment) => sum + payment.amount, 0);
  const refunded = ownPayments
    .filter((payment) => payment.status === 'refunded')
    .reduce((sum, payment) => sum + payment.amount, 0);
  const paid = ownInvoices
    .filter((invoice) => invoice.status === 'paid')
    .reduce((sum, invoice) => sum + invoice.amountPaid, 0);
  const refundedByNotes = notes.reduce((sum, note) => sum + note.refundAmount, 0);
  expect(charged - refunded, 'charged minus refunds = paid invoices').toBe(paid - refundedByNotes);

  // A credit note gives back what its invoice took, each part where it came from.
  for (const invoice of ownInvoices) {
    const own = notes.filter((note) => note.invoiceId === invoice.id);
    if (own.length === 0) continue;
    for (const note of own) expect(note.total).toBe(note.refundAmount + note.creditAmount);
    const back = (part: 'refundAmount' | 'creditAmount') =>
      own.reduce((sum, note) => sum + note[part], 0);
    expect(back('refundAmount'), 'refunded beyond what the card paid').toBeLessThanOrEqual(
      invoice.amountPaid,
    );
    expect(back('creditAmount'), 'credited beyond what the balance paid').toBeLessThanOrEqual(
      paidFromBalance(invoice),
    );
  }

  // At most one open invoice: one open renewal per period, and no new period while unpaid.
  const open = ownInvoices.filter((invoice) => invoice.status === 'open');
  expect(open.length, 'open invoices').toBeLessThanOrEqual(1);

  // No invoice for a paused period, none after cancellation.
  for (const invoice of ownInvoices) {
    const day = invoice.periodStart ? isoDay(invoice.periodStart) : null;
    for (const [start, end] of run.pauses) {
      if (day && start <= day && day < end && start <= isoDay(now)) {
        throw new Error(`Invoice ${invoice.number} for ${day}, inside the pause ${start}–${end}`);
      }
    }
    if (subscription.canceledAt) {
      expect(invoice.createdAt.getTime(), 'invoice after cancellation').toBeLessThanOrEqual(
        subscription.canceledAt.getTime(),
      );
    }
  }

  // A state of docs/requirements.md#states, consistent with the invoices and the dunning dates.
  expect(['active', 'paused', 'past_due', 'overdue', 'canceled']).toContain(subscription.status);
  const dayMs = 86_400_000;
  switch (subscription.status) {
    case 'active':
    case 'paused':
      expect(open, `${subscription.status} with an open invoice`).toHaveLength(0);
      expect(subscription.pastDueSince).toBeNull();
      expect(subscription.currentPeriodEnd.getTime()).toBeGreaterThan(now.getTime());
      break;
    case 'past_due':
    case 'overdue': {
      expect(open, `${subscription.status} without its open invoice`).toHaveLength(1);
      const late = now.getTime() - subscription.pastDueSince!.getTime();
      expect(late).toBeLessThan(dunningPolicy.cancelAfterDays * dayMs);
      expect(late >= dunningPolicy.overdueAfterDays * dayMs).toBe(
        subscription.status === 'overdue',
      );
      break;
    }
    case 'canceled':
      expect(open).toHaveLength(0);
      break;
  }
  if (subscription.status === 'paused') {
    expect(subscription.pauseStartsOn! <= isoDay(now)).toBe(true);
  }

  // Periods follow the anchor: the day a 29th, 30th or 31st start comes back after a short month.
  expect(subscription.currentPeriodEnd, 'period end on the anchor').toEqual(
    periodEndOnAnchor(
      subscription.billingCycleAnchor,
      subscription.currentPeriodStart,
      subscription.priceId.includes('_year_') ? 'year' : 'month',
    ),
  );

  // The balance is never more in credit than the credit ever given (negative lines).
  const [customer] = await db
    .select()
    .from(billingCustomers)
    .where(eq(billingCustomers.id, run.billingCustomerId));
  const [credit] = await db
    .select({ given: sql<number>`coalesce(sum(least(${invoiceLines.amount}, 0)), 0)` })
    .from(invoiceLines)
    .where(eq(invoiceLines.billingCustomerId, run.billingCustomerId));
  const creditedByNotes = notes.reduce((sum, note) => sum + note.creditAmount, 0);
  expect(customer!.balance, 'balance beyond the credit given').toBeGreaterThanOrEqual(
    Number(credit?.given ?? 0) - creditedByNotes,
  );
}

/** Leaves nothing of a run for the next runs' billing cycles to work on. */
async function endRun(run: Run) {
  const db = context.database.db;
  await db
    .update(subscriptions)
    .set({ status: 'canceled', canceledAt: engine.now() })
    .where(eq(subscriptions.simIccid, run.iccid));
  await db
    .update(invoices)
    .set({ status: 'void', nextPaymentAttempt: null })
    .where(and(eq(invoices.billingCustomerId, run.billingCustomerId), eq(invoices.status, 'open')));
  await db.update(sims).set({ state: 'terminated' }).where(eq(sims.iccid, run.iccid));
}

beforeAll(async () => {
  context = await createTestContext();
  await seedCatalogue(context.database.db);
  engine = context.services.billing.engine!;
}, 60_000);
afterAll(() => context.close());

/** Moves the billing clock on to the next `day` of a month (the 1st to the 28th). */
async function advanceToDayOfMonth(day: number) {
  const now = engine.now();
  let target = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), day, 12));
  if (target <= now)
    target = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, day, 12));
  const days = Math.round((target.getTime() - now.getTime()) / 86_400_000);
  if (days > 0) await jump(days);
}

async function playAndCheck(steps: Action[]) {
  const run = await startRun();
  try {
    await checkInvariants(run);
    for (const step of steps) {
      await perform(run, step);
      await checkInvariants(run);
    }
    return run;
  } finally {
    await endRun(run);
  }
}

describe('sequences that once broke the ledger', () => {
  it('keeps the start of a scheduled pause moved from the 25th on (seed 1251544671)', async () => {
    // Subscribed on the 14th, a pause asked for on the 14th starts on the 1st of next month.
    // Changing its restart on the 27th used to move its start a month later too, so the
    // renewal of the 14th inside the promised pause was invoiced and charged (decision 021).
    await advanceToDayOfMonth(14);
    const run = await playAndCheck([
      { kind: 'pause', choice: 0 },
      { kind: 'jump', days: 13 },
      { kind: 'pause', choice: 0 },
      { kind: 'jump', days: 23 },
      { kind: 'pause', choice: 0 },
      { kind: 'cancel-pause' },
    ]);
    expect([...run.pauses]).toHaveLength(1);
  });
});

describe('the ledger under random use', () => {
  // 80 sequences take 29 s on PGlite; on PostgreSQL, beside three other files in CI's pass, 75 s
  // and, on a machine half as fast (2026-11-29), more than 120 s. The bound only ends a failure.
  it('keeps its invariants after every step', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 12 }), async (steps) => {
        await playAndCheck(steps);
      }),
      {
        numRuns: process.env.LEDGER_RUNS ? Number(process.env.LEDGER_RUNS) : 80,
        ...(process.env.LEDGER_SEED && { seed: Number(process.env.LEDGER_SEED) }),
      },
    );
  });
});
