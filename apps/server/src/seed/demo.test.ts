import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasValidLuhnDigit } from '@farmcam/contract';
import { eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock.ts';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { customers, dailyUsage, sims, subscriptions } from '../db/schema.ts';
import { demoStockSims, seedDemoData } from './demo.ts';

let database: DatabaseHandle;
const clock = new ManualClock('2026-11-22T10:00:00Z');
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

describe('demo data', () => {
  it('seeds once and is idempotent', async () => {
    expect(await seedDemoData(database.db, clock)).toBe(true);
    expect(await seedDemoData(database.db, clock)).toBe(false);
    const rows = await database.db.select().from(customers);
    expect(rows.map((row) => row.email).sort()).toEqual(['demo@example.com', 'second@example.com']);
  });

  it('gives the demo customer a camera in every card state', async () => {
    const [demo] = await database.db
      .select()
      .from(customers)
      .where(eq(customers.email, 'demo@example.com'));
    const rows = await database.db
      .select({
        sim: sims.state,
        sub: subscriptions.status,
        pauseStartsOn: subscriptions.pauseStartsOn,
      })
      .from(sims)
      .innerJoin(subscriptions, eq(subscriptions.simIccid, sims.iccid))
      .where(eq(sims.customerId, demo!.id));
    expect(rows.length).toBeGreaterThanOrEqual(8);
    const states = rows.map((row) => `${row.sub}/${row.sim}`);
    expect(states).toEqual(
      expect.arrayContaining([
        'active/active',
        'paused/paused',
        'past_due/active',
        'overdue/active',
        'canceled/terminated',
        'canceled/active',
      ]),
    );
    expect(rows.some((row) => row.sub === 'active' && row.pauseStartsOn)).toBe(true);
  });

  it('has months of daily usage and stock SIMs with valid ICCIDs and codes', async () => {
    const [usage] = await database.db
      .select({ days: sql<number>`count(distinct ${dailyUsage.day})::int` })
      .from(dailyUsage);
    expect(usage!.days).toBeGreaterThan(150);
    const stock = await database.db.select().from(sims).where(isNull(sims.customerId));
    expect(stock).toHaveLength(demoStockSims.length);
    for (const sim of stock) {
      expect(hasValidLuhnDigit(sim.iccid)).toBe(true);
      expect(sim.activationCode).toMatch(/^[A-Z]{4}$/);
    }
    expect(stock.some((sim) => sim.kind === 'solar')).toBe(true);
  });

  it('gives stock SIMs numbers that do not lead from one to another', () => {
    // Numbers in sequence let one SIM's number find the rest (docs/decisions/063).
    const bodies = demoStockSims.map((sim) => BigInt(sim.iccid.slice(0, -1))).sort();
    for (let index = 1; index < bodies.length; index += 1) {
      expect(bodies[index]! - bodies[index - 1]!).toBeGreaterThan(1_000_000n);
    }
    expect(new Set(demoStockSims.map((sim) => sim.iccid.slice(0, 8))).size).toBe(
      demoStockSims.length,
    );
  });
});

describe('the demo guide (docs/demo.md)', () => {
  it('lists every stock SIM with its real code and ICCID', () => {
    const guide = fs.readFileSync(
      path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs/demo.md'),
      'utf8',
    );
    for (const sim of demoStockSims) {
      expect(guide).toMatch(
        new RegExp(`\\| ${sim.activationCode} \\| ${sim.iccid} \\| ${sim.kind} \\|`),
      );
    }
  });
});
