/**
 * The local engine's events are durable (docs/decisions/077): written with the change that
 * raised them, delivered after the commit, and delivered by the job when the raising process
 * died first or a handler threw; never twice at once, and the dunning e-mail sent once per failed
 * attempt. Stable yard's card declines: its renewal on 1 April fails, and so do the retries on
 * 4 and 6 April (dunning-policy.ts), each raising `invoice.payment_failed`.
 */
import { and, asc, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../apps/server/test/helpers/test-app.ts';
import { deliverBillingEventsJob } from '../../../apps/server/src/jobs/deliver-billing-events.job.ts';
import { billingEngineEvents, paymentMethods, sims } from '@farmcam/db/schema';
import { demoIccid, seedDemoData } from '../../../apps/server/src/seed/demo.ts';
import type { Mailer } from '../../../apps/server/src/providers/mail/mail.ts';
import type { BillingEvent } from '@farmcam/billing';
import { billingEventDeliveryPolicy, nextAttemptAfterFailure } from './engine-events.ts';
import { createLocalBillingEngine, type LocalBillingEngine } from './local-billing-engine.ts';
import { createTestClock } from './test-clock.ts';

const dayMs = 86_400_000;
const pastFirstMinute = billingEventDeliveryPolicy.unclaimedAfterMs + 1_000;

let context: TestContext;
/** Stable yard's mails to refuse before the mail server takes them again (a failing handler). */
let refusedSends = 0;

beforeAll(async () => {
  context = await createTestContext({}, undefined, ({ mailer }) => {
    const flaky: Mailer = {
      ...mailer,
      async send(message) {
        if (refusedSends > 0 && message.subject.includes('Stable yard')) {
          refusedSends -= 1;
          throw new Error('The mail server is not answering');
        }
        await mailer.send(message);
      },
    };
    return { mailer: flaky };
  });
  await seedDemoData(context.database.db, context.clock);
  const [sim] = await context.database.db
    .select()
    .from(sims)
    .where(eq(sims.iccid, demoIccid(201)));
  await context.database.db
    .update(paymentMethods)
    .set({ last4: '0341' })
    .where(eq(paymentMethods.billingCustomerId, sim!.billingCustomerId!));
}, 60_000);
afterAll(() => context.close());

async function dunningMails() {
  const all = await context.mailer.list({ limit: 500 });
  return all.filter((message) => message.subject.includes('for Stable yard failed'));
}

async function undeliveredEvents() {
  return context.database.db
    .select()
    .from(billingEngineEvents)
    .where(isNull(billingEngineEvents.deliveredAt))
    .orderBy(asc(billingEngineEvents.id));
}

const runDeliveryJob = () =>
  deliverBillingEventsJob({ engine: context.services.billing.engine }).handle({});

/**
 * Another process on the same database. `deliversAfterCommit: false` stands in for one that
 * dies between the commit and the delivery.
 */
function otherProcess(options: {
  deliversAfterCommit: boolean;
  onEvent?: (event: BillingEvent) => void;
}) {
  const engine: LocalBillingEngine = createLocalBillingEngine({
    db: context.database.db,
    clock: createTestClock(context.database.db, context.clock),
    publicUrl: context.config.publicUrl,
    deliversAfterCommit: options.deliversAfterCommit,
  });
  engine.onEvent(async (event) => {
    options.onEvent?.(event);
    await context.services.billing.simLifecycle.handleEvent(event);
  });
  return engine;
}

describe('durable billing events', () => {
  it('delivers, through the job, an event whose process died after the commit, once', async () => {
    const dying = otherProcess({ deliversAfterCommit: false });
    await dying.clock.advance(22 * dayMs); // 1 April, 12:00: the renewals are due
    const { events } = await dying.runBillingCycle();
    expect(events.map((event) => event.type)).toContain('invoice.payment_failed');

    // Every event of the cycle is stored, none handed over (Farmyard's retry also recovers it).
    const waiting = await undeliveredEvents();
    expect(waiting).toHaveLength(events.length);
    const stored = waiting.find((row) => row.type === 'invoice.payment_failed');
    expect(stored).toMatchObject({ attempts: 0 });
    expect(await dunningMails()).toHaveLength(0);

    // Within its first minute the event is still the raising process's to deliver.
    await runDeliveryJob();
    expect(await dunningMails()).toHaveLength(0);

    context.clock.advance(pastFirstMinute);
    await runDeliveryJob();
    await runDeliveryJob();
    const mails = await dunningMails();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('We will try your card again on 4 April 2026.');
    expect(await undeliveredEvents()).toHaveLength(0);
    const [delivered] = await context.database.db
      .select()
      .from(billingEngineEvents)
      .where(eq(billingEngineEvents.id, stored!.id));
    expect(delivered).toMatchObject({ attempts: 1, lastError: null, nextAttemptAt: null });
  });

  it('retries a handler that threw, with back-off, and the e-mail arrives once', async () => {
    refusedSends = 1;
    // The test clock's own cycle (the app's engine) makes the retry of 4 April, which fails.
    const response = await context.app.inject({
      method: 'POST',
      url: '/billing-engine/test-clock/advance',
      payload: { days: 3 },
    });
    expect(response.statusCode).toBe(200);
    expect(refusedSends).toBe(0);
    expect(await dunningMails()).toHaveLength(1);

    const failed = (await undeliveredEvents()).filter(
      (row) => row.type === 'invoice.payment_failed',
    );
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      attempts: 1,
      lastError: 'The mail server is not answering',
      nextAttemptAt: new Date(context.clock.now().getTime() + 60_000),
    });

    await runDeliveryJob(); // not due yet
    expect(await dunningMails()).toHaveLength(1);
    context.clock.advance(pastFirstMinute);
    await runDeliveryJob();
    await runDeliveryJob();
    const mails = await dunningMails();
    expect(mails).toHaveLength(2);
    expect(mails[0]!.text).toContain('We will try your card again on 6 April 2026.');
    expect(await undeliveredEvents()).toHaveLength(0);
  });

  it('hands an event over once when two delivery runs race for it', async () => {
    const dying = otherProcess({ deliversAfterCommit: false });
    await dying.clock.advance(2 * dayMs); // 6 April: the next retry fails
    const { events } = await dying.runBillingCycle();
    expect(events.map((event) => event.type)).toContain('invoice.payment_failed');
    expect(await undeliveredEvents()).toHaveLength(events.length);
    context.clock.advance(pastFirstMinute);

    const handedOver: BillingEvent[] = [];
    const workers = [0, 1].map(() =>
      otherProcess({ deliversAfterCommit: true, onEvent: (event) => handedOver.push(event) }),
    );
    const results = await Promise.all(workers.map((worker) => worker.deliverDueEvents()));
    expect(results.reduce((sum, result) => sum + result.delivered, 0)).toBe(events.length);
    expect(handedOver).toEqual(events);
    expect(await dunningMails()).toHaveLength(3);
    expect(await undeliveredEvents()).toHaveLength(0);
  });

  it('sends the dunning e-mail once per invoice and attempt when an event comes twice', async () => {
    const [last] = await context.database.db
      .select()
      .from(billingEngineEvents)
      .where(and(eq(billingEngineEvents.type, 'invoice.payment_failed')))
      .orderBy(asc(billingEngineEvents.id));
    const event = last!.payload as Extract<BillingEvent, { type: 'invoice.payment_failed' }>;
    const revived = {
      ...event,
      at: new Date(event.at),
      cancelAt: new Date(event.cancelAt),
      nextPaymentAttempt: event.nextPaymentAttempt ? new Date(event.nextPaymentAttempt) : null,
    };
    await context.services.billing.simLifecycle.handleEvent(revived);
    expect(await dunningMails()).toHaveLength(3);
  });
});

describe('the delivery back-off', () => {
  it('waits longer after each failure and gives up three days after the event', () => {
    const raisedAt = new Date('2026-04-01T00:00:00Z');
    const after = (attempts: number, at: Date) =>
      nextAttemptAfterFailure(raisedAt, attempts, at)!.getTime() - at.getTime();
    expect(after(1, raisedAt)).toBe(60_000);
    expect(after(2, raisedAt)).toBe(5 * 60_000);
    expect(after(9, raisedAt)).toBe(6 * 3_600_000);
    expect(nextAttemptAfterFailure(raisedAt, 12, new Date(raisedAt.getTime() + 3 * dayMs))).toBe(
      null,
    );
  });
});
