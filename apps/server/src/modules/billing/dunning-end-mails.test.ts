/**
 * The end of dunning e-mails the customer (docs/decisions/108), as each failed attempt does: one
 * e-mail when the plan is canceled for its unpaid renewal, one when the SIM is switched off 14
 * days later, each sent once, also when the mail server refused it the first time. Played on the
 * demo over test-clock time: its overdue camera (Bottom field) keeps the card that declines every
 * charge, so it stays overdue as the clock moves, until day 30.
 */
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { invoices, payments, sims, subscriptions } from '../../db/schema.ts';
import type { Mailer } from '../../providers/mail/mail.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';

let context: TestContext;
let mailServerDown = false;

// Seeded on 10 March 2026 at 12:00: Bottom field's renewal first failed 12 days before.
const firstFailure = new Date('2026-02-26T12:00:00Z');
const daysAfterFailure = (days: number) => new Date(firstFailure.getTime() + days * 86_400_000);

beforeAll(async () => {
  context = await createTestContext({}, undefined, ({ mailer }) => {
    // The outbox, behind a mail server that can be switched off.
    const flaky: Mailer = {
      ...mailer,
      send: async (message) => {
        if (mailServerDown) throw new Error('SMTP 421 Service not available');
        return mailer.send(message);
      },
    };
    return { mailer: flaky };
  });
  await seedDemoData(context.database.db, context.clock);
}, 60_000);
afterAll(() => context.close());

async function advanceTo(instant: Date) {
  await context.services.billing.cycle.runCycle();
  const engine = context.services.billing.engine!;
  await engine.clock.advance(instant.getTime() - engine.now().getTime());
  await context.services.billing.cycle.runCycle();
}

async function subscriptionOf(serial: number) {
  const [row] = await context.database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.simIccid, demoIccid(serial)))
    .orderBy(asc(subscriptions.createdAt));
  return row!;
}

async function mailsAbout(subject: string) {
  const all = await context.mailer.list({ limit: 500 });
  return all.filter((message) => message.subject === subject);
}

describe("the demo's overdue camera and the end of dunning", () => {
  it('stays overdue when the test clock moves: its card declines each retry', async () => {
    await advanceTo(daysAfterFailure(14)); // the retry of day 14
    expect(await subscriptionOf(108)).toMatchObject({ status: 'overdue' });
    const [open] = await context.database.db
      .select()
      .from(invoices)
      .where(
        and(
          eq(invoices.subscriptionId, (await subscriptionOf(108)).id),
          eq(invoices.status, 'open'),
        ),
      );
    const attempts = await context.database.db
      .select()
      .from(payments)
      .where(eq(payments.invoiceId, open!.id));
    expect(attempts.map((attempt) => attempt.status)).toEqual(['failed']);
    expect(await mailsAbout('Payment of £12.00 for Bottom field failed')).toHaveLength(1);
    await advanceTo(daysAfterFailure(29));
    expect((await subscriptionOf(108)).status).toBe('overdue');
    expect(await mailsAbout('The streaming plan for Bottom field has ended')).toHaveLength(0);
  });

  it('e-mails the customer once when the plan is canceled on day 30', async () => {
    await advanceTo(daysAfterFailure(30)); // 28 March, 12:00
    expect(await subscriptionOf(108)).toMatchObject({
      status: 'canceled',
      cancellationReason: 'payment_failed',
      canceledAt: daysAfterFailure(30),
    });
    const [mail] = await mailsAbout('The streaming plan for Bottom field has ended');
    expect(mail!.to).toBe('demo@example.com');
    expect(mail!.text).toMatch(
      /We could not take the payment of £12\.00 for the streaming plan of Bottom field \(invoice FC-\d{6}\), so the plan ended on 28 March 2026\./,
    );
    expect(mail!.text).toContain("The camera's SIM stays on until 11 April 2026.");
    const { billingCustomerId } = await subscriptionOf(108);
    expect(mail!.text).toContain(
      `Renew the plan: http://portal.test/pricing/${demoIccid(108)}/${billingCustomerId}`,
    );
    // Later runs of the billing job send nothing more.
    await advanceTo(daysAfterFailure(32));
    expect(await mailsAbout('The streaming plan for Bottom field has ended')).toHaveLength(1);
  });

  it('sends the cancellation e-mail on the next run when the mail server refused it', async () => {
    // Fuel tank (107) first failed on 7 March: canceled on 6 April, while the mail server is down.
    mailServerDown = true;
    await advanceTo(new Date('2026-04-06T12:00:00Z'));
    expect((await subscriptionOf(107)).status).toBe('canceled');
    expect(await mailsAbout('The streaming plan for Fuel tank has ended')).toHaveLength(0);
    mailServerDown = false;
    await advanceTo(new Date('2026-04-06T12:10:00Z'));
    expect(await mailsAbout('The streaming plan for Fuel tank has ended')).toHaveLength(1);
  });

  it('e-mails once when the SIM is switched off 14 days after the cancellation', async () => {
    await advanceTo(new Date('2026-04-11T12:00:00Z'));
    const [sim] = await context.database.db
      .select()
      .from(sims)
      .where(eq(sims.iccid, demoIccid(108)));
    expect(sim!.state).toBe('terminated');
    const subject = 'The SIM of Bottom field has been switched off';
    const [mail] = await mailsAbout(subject);
    expect(mail!.text).toContain(
      "The streaming plan of Bottom field ended on 28 March 2026 because its payment could not be taken, and it was not renewed, so we switched the camera's SIM off on 11 April 2026.",
    );
    expect(mail!.text).toContain('A switched-off SIM cannot be renewed.');
    await advanceTo(new Date('2026-04-20T12:00:00Z'));
    expect(await mailsAbout(subject)).toHaveLength(1);
    // Fuel tank's SIM went on 20 April: its own e-mail, once.
    expect(await mailsAbout('The SIM of Fuel tank has been switched off')).toHaveLength(1);
    // The terminated demo camera and the one with no subscription were not canceled for an
    // unpaid renewal: no end-of-dunning e-mail about them.
    expect(await mailsAbout('The SIM of Old dairy has been switched off')).toHaveLength(0);
    expect(await mailsAbout('The SIM of Machinery shed has been switched off')).toHaveLength(0);
  });
});
