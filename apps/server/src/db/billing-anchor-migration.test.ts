/**
 * Migration 0017 gives subscriptions made before anchors were kept their anchor from their start
 * (docs/decisions/108): the creation when the period still runs on its time of day, even where a
 * 31st drifted to the 28th; the current period's start when a change of interval restarted it.
 * The migration's own UPDATE is run again on rows written as they were before it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import { insertCustomer } from '@farmcam/billing-engine';
import { seedCatalogue } from '../seed/demo.ts';
import type { DatabaseHandle } from './client.ts';
import { customers, sims, subscriptions } from './schema.ts';

const migration = fs.readFileSync(
  path.join(
    path.dirname(fileURLToPath(import.meta.url)),
    'migrations',
    '0017_billing-cycle-anchor.sql',
  ),
  'utf8',
);
const backfill = migration
  .split('--> statement-breakpoint')
  .map((statement) => statement.replace(/^--.*$/gm, '').trim())
  .find((statement) => statement.startsWith('UPDATE'))!;

let database: DatabaseHandle;
beforeAll(async () => {
  database = await openTestDatabase();
  await seedCatalogue(database.db);
});
afterAll(() => database.close());

async function subscriptionMadeBefore(
  serial: number,
  createdAt: string,
  currentPeriodStart: string,
) {
  const { db } = database;
  const [customer] = await db
    .insert(customers)
    .values({ email: `anchor-migration-${serial}@example.com` })
    .returning();
  const billing = await insertCustomer(db, {
    portalCustomerId: customer!.id,
    email: customer!.email,
  });
  const iccid = `894499000000000${String(serial).padStart(4, '0')}`;
  await db.insert(sims).values({ iccid, state: 'active', customerId: customer!.id });
  const id = `sub_migration_${serial}`;
  await db.insert(subscriptions).values({
    id,
    billingCustomerId: billing!.id,
    simIccid: iccid,
    priceId: 'price_light_month_uk',
    status: 'active',
    currentPeriodStart: new Date(currentPeriodStart),
    currentPeriodEnd: new Date(new Date(currentPeriodStart).getTime() + 30 * 86_400_000),
    // What the migration replaces: no anchor was kept before it.
    billingCycleAnchor: new Date('1970-01-01T00:00:00Z'),
    createdAt: new Date(createdAt),
  });
  return id;
}

describe('the billing cycle anchor migration', () => {
  it('anchors each existing subscription at its start', async () => {
    const drifted = await subscriptionMadeBefore(
      1,
      '2026-01-31T10:15:30.123Z',
      '2026-03-28T10:15:30Z',
    );
    const onTime = await subscriptionMadeBefore(2, '2025-11-05T08:00:00Z', '2026-03-05T08:00:00Z');
    // A change to an annual plan on 16 March restarted the period at that moment.
    const restarted = await subscriptionMadeBefore(
      3,
      '2025-11-05T08:00:00Z',
      '2026-03-16T14:42:07.512Z',
    );
    await database.db.execute(sql.raw(backfill));
    const anchors = new Map(
      (await database.db.select().from(subscriptions)).map((row) => [
        row.id,
        row.billingCycleAnchor.toISOString(),
      ]),
    );
    expect(anchors.get(drifted)).toBe('2026-01-31T10:15:30.000Z');
    expect(anchors.get(onTime)).toBe('2025-11-05T08:00:00.000Z');
    expect(anchors.get(restarted)).toBe('2026-03-16T14:42:07.512Z');
  });
});
