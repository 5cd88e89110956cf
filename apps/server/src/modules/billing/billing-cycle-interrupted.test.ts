/**
 * A worker killed part-way through the billing cycle (docs/decisions/073): what it committed
 * stays, what it was writing rolls back with its transaction, and the next run renews the rest,
 * each subscription once per period. The "kill" is a database trigger that aborts the renewal
 * after the second one, the way a dead connection aborts its open transaction; the cycle's
 * advisory lock goes with the connection (PostgreSQL) or the process (PGlite). Runs on
 * PostgreSQL too (npm run test:pg).
 */
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaidHeavySubscriber } from '../../../test/helpers/billing-subscriber.ts';
import {
  createTestContext,
  insertCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { invoices, subscriptions } from '../../db/schema.ts';
import { seedCatalogue } from '../../seed/demo.ts';

const periodStart = new Date('2026-03-01T00:00:00Z');
const periodEnd = new Date('2026-04-01T00:00:00Z');
const renewedEnd = new Date('2026-05-01T00:00:00Z');

describe('a billing cycle interrupted part-way', () => {
  let context: TestContext;
  const subscriptionIds: string[] = [];

  beforeAll(async () => {
    context = await createTestContext();
    context.clock.set(periodStart);
    await seedCatalogue(context.database.db);
    const portalCustomerId = await insertCustomer(context, 'meg@hill-farm.example');
    for (const serial of [501, 502, 503, 504, 505, 506]) {
      const subscriber = await createPaidHeavySubscriber(context.database.db, {
        portalCustomerId,
        serial,
        nickname: `Barn ${serial}`,
        periodStart,
        periodEnd,
      });
      subscriptionIds.push(subscriber.subscriptionId);
    }
  });

  afterAll(async () => {
    await context?.close();
  });

  const renewalsBySubscription = async () => {
    const rows = await context.database.db
      .select({ subscriptionId: invoices.subscriptionId })
      .from(invoices)
      .where(eq(invoices.periodStart, periodEnd));
    const counts = new Map<string, number>();
    for (const row of rows) {
      counts.set(row.subscriptionId!, (counts.get(row.subscriptionId!) ?? 0) + 1);
    }
    return counts;
  };

  it('keeps what was committed, and the next run renews the rest once', async () => {
    const db = context.database.db;
    // The worker "dies" when it writes the third renewal invoice: that transaction never commits.
    await db.execute(sql`
      create function interrupt_billing_cycle() returns trigger language plpgsql as $$
      begin
        if (select count(*) from invoices where period_start = '2026-04-01T00:00:00Z') >= 2 then
          raise exception 'worker killed mid-cycle';
        end if;
        return new;
      end $$`);
    await db.execute(sql`
      create trigger interrupt_billing_cycle before insert on invoices
      for each row execute function interrupt_billing_cycle()`);

    context.clock.set('2026-04-01T06:00:00Z');
    await expect(context.services.billing.cycle.runCycle()).rejects.toThrow();
    // Two renewals are complete (invoice, payment, period moved on); nothing half-done.
    const afterCrash = await renewalsBySubscription();
    expect([...afterCrash.values()]).toEqual([1, 1]);
    const moved = await db
      .select({ id: subscriptions.id, end: subscriptions.currentPeriodEnd })
      .from(subscriptions);
    for (const row of moved) {
      expect(row.end).toEqual(afterCrash.has(row.id) ? renewedEnd : periodEnd);
    }

    // The worker is back (or another took over): the next run does the rest.
    await db.execute(sql`drop trigger interrupt_billing_cycle on invoices`);
    await db.execute(sql`drop function interrupt_billing_cycle()`);
    const rerun = await context.services.billing.cycle.runCycle();
    expect(rerun.renewed).toBe(4);
    const afterRerun = await renewalsBySubscription();
    expect(new Map([...afterRerun].sort())).toEqual(
      new Map(subscriptionIds.map((id) => [id, 1] as const).sort()),
    );
    for (const row of await db.select().from(subscriptions)) {
      expect(row.currentPeriodEnd).toEqual(renewedEnd);
    }

    // Once only: another run (another worker's minute) renews nothing.
    expect((await context.services.billing.cycle.runCycle()).renewed).toBe(0);
    expect([...(await renewalsBySubscription()).values()].every((count) => count === 1)).toBe(true);
    // The aborted attempt used no invoice number: the sequence has no gap.
    const numbers = (
      await db.select({ number: invoices.number }).from(invoices).orderBy(asc(invoices.number))
    ).map((row) => Number(row.number.replace(/^\D+-/, '')));
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, index) => index + 1));
  });
});
