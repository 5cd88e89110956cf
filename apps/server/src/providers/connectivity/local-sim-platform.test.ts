import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type DatabaseHandle } from '../../db/client.ts';
import { customers, dailyUsage, sims, subscriptions, billingCustomers } from '../../db/schema.ts';
import { seedCatalogue } from '../../seed/demo.ts';
import { ManualClock } from '../../lib/clock.ts';
import { openTestDatabase } from '../../../test/helpers/test-database.ts';
import { describeConnectivityPlatform } from '../../../test/contracts/connectivity.contract-cases.ts';
import {
  createLocalSimPlatform,
  simulatedHourlyBytes,
  simulatedRouterStatus,
  type LocalSimPlatform,
} from './local-sim-platform.ts';

let database: DatabaseHandle;
let platform: LocalSimPlatform;
const clock = new ManualClock('2026-03-10T12:00:00Z');
beforeAll(async () => {
  database = await openTestDatabase();
  await seedCatalogue(database.db);
  // The camera stands in for the RTSP server (its own tests run the real one).
  platform = createLocalSimPlatform({
    db: database.db,
    clock,
    camera: {
      ensureRunning: async () => ({ host: '127.0.0.1', port: 18554 }),
      stop: async () => {},
    },
  });
});
afterAll(() => database.close());

describeConnectivityPlatform('local SIM platform', () => ({
  platform,
  addSim: async (sim) => {
    await database.db.insert(sims).values({
      iccid: sim.iccid,
      state: sim.state,
      isBarred: sim.isBarred ?? false,
      activatedAt: sim.state === 'stock' ? null : new Date('2025-09-01T00:00:00Z'),
    });
  },
  setUsage: async (iccid, day, bytes) => {
    await database.db.insert(dailyUsage).values({ simIccid: iccid, day, bytes });
  },
}));

describe('local SIM platform: usage metering', () => {
  let customerId: string;
  const meteredIccid = '8944880000000000011';
  const heavyIccid = '8944880000000000029';

  /** A customer's SIM on a plan of the given product. */
  async function addCustomerSim(
    iccid: string,
    state: 'active' | 'paused' | 'terminated',
    priceId: string,
    isBarred = false,
  ) {
    await database.db.insert(billingCustomers).values({
      id: `cus_${iccid}`,
      customerId,
      provider: 'local',
      email: 'meter@example.com',
    });
    await database.db.insert(sims).values({
      iccid,
      state,
      isBarred,
      customerId,
      billingCustomerId: `cus_${iccid}`,
      activatedAt: new Date('2025-09-01T00:00:00Z'),
    });
    await database.db.insert(subscriptions).values({
      id: `sub_${iccid}`,
      billingCustomerId: `cus_${iccid}`,
      simIccid: iccid,
      priceId,
      status: state === 'active' ? 'active' : state === 'paused' ? 'paused' : 'canceled',
      currentPeriodStart: new Date('2026-03-01T00:00:00Z'),
      billingCycleAnchor: new Date('2026-03-01T00:00:00Z'),
      currentPeriodEnd: new Date('2026-04-01T00:00:00Z'),
    });
  }

  const usageOf = async (iccid: string) =>
    queryRows<{ day: string; bytes: number }>(
      database.db,
      sql`select day::text as day, bytes::float8 as bytes from daily_usage
          where sim_iccid = ${iccid} order by day`,
    );

  beforeAll(async () => {
    const [customer] = await database.db
      .insert(customers)
      .values({ email: 'meter@example.com' })
      .returning();
    customerId = customer!.id;
    await addCustomerSim(meteredIccid, 'active', 'price_light_month_uk');
    await addCustomerSim(heavyIccid, 'active', 'price_heavy_month_uk');
    await addCustomerSim('8944880000000000037', 'paused', 'price_light_month_uk');
    await addCustomerSim('8944880000000000045', 'terminated', 'price_light_month_uk');
    await addCustomerSim('8944880000000000052', 'active', 'price_light_month_uk', true);
    await addCustomerSim('8944880000000000094', 'active', 'price_light_month_uk');
    // The customer's own data stop (decision 095): active, unbarred, but nothing metered.
    await platform.setDataStopped('8944880000000000094', true);
  });

  it('starts metering from the first run on, and meters each whole hour once', async () => {
    clock.set('2026-03-10T12:20:00Z');
    expect(await platform.recordUsage()).toEqual({ hoursRecorded: 0, simsMetered: 0 });
    expect(await usageOf(meteredIccid)).toEqual([]);

    clock.set('2026-03-10T15:05:00Z');
    const first = await platform.recordUsage();
    expect(first.hoursRecorded).toBe(3);
    const expected = [12, 13, 14].reduce(
      (sum, hour) =>
        sum + simulatedHourlyBytes(meteredIccid, 5, new Date(`2026-03-10T${hour}:00:00Z`)),
      0,
    );
    expect(await usageOf(meteredIccid)).toEqual([{ day: '2026-03-10', bytes: expected }]);

    // Run again within the same hour, or twice at once: nothing counted twice.
    const [again, concurrent] = await Promise.all([platform.recordUsage(), platform.recordUsage()]);
    expect(again.hoursRecorded + concurrent.hoursRecorded).toBe(0);
    expect(await usageOf(meteredIccid)).toEqual([{ day: '2026-03-10', bytes: expected }]);
  });

  it('meters nothing for paused, terminated and barred SIMs, nor one whose data the customer stopped', async () => {
    for (const iccid of [
      '8944880000000000037',
      '8944880000000000045',
      '8944880000000000052',
      '8944880000000000094',
    ]) {
      expect(await usageOf(iccid)).toEqual([]);
    }
  });

  it('splits usage across midnight and follows the plan size', async () => {
    clock.set('2026-03-11T02:00:00Z');
    expect((await platform.recordUsage()).hoursRecorded).toBe(11);
    const days = await usageOf(meteredIccid);
    expect(days.map((row) => row.day)).toEqual(['2026-03-10', '2026-03-11']);
    const heavy = await usageOf(heavyIccid);
    const total = (rows: { bytes: number }[]) => rows.reduce((sum, row) => sum + row.bytes, 0);
    // Heavy (50 GB) uses far more than Light (5 GB) over the same hours.
    expect(total(heavy)).toBeGreaterThan(total(days) * 3);
  });

  it('catches up at most a week after a long gap', async () => {
    clock.set('2026-03-30T02:00:00Z');
    expect((await platform.recordUsage()).hoursRecorded).toBe(7 * 24);
    const days = await usageOf(meteredIccid);
    expect(days.map((row) => row.day)).toContain('2026-03-23');
    expect(days.map((row) => row.day)).not.toContain('2026-03-15');
  });

  it('meters a month in line with the plan, more by day than by night', () => {
    const iccids = Array.from(
      { length: 40 },
      (_, index) => `89448800000001${String(index).padStart(5, '0')}`,
    );
    let dayBytes = 0;
    let nightBytes = 0;
    for (const iccid of iccids) {
      let month = 0;
      for (let hour = 0; hour < 31 * 24; hour += 1) {
        const start = new Date(Date.UTC(2026, 2, 1) + hour * 3_600_000);
        const bytes = simulatedHourlyBytes(iccid, 5, start);
        month += bytes;
        if (start.getUTCHours() === 13) dayBytes += bytes;
        if (start.getUTCHours() === 2) nightBytes += bytes;
      }
      // 40% to 115% of the allowance, give or take the noise.
      expect(month / 5e9).toBeGreaterThan(0.35);
      expect(month / 5e9).toBeLessThan(1.25);
    }
    expect(dayBytes).toBeGreaterThan(nightBytes * 2);
  });
});

describe('local SIM platform: routers and barring', () => {
  it('reports a signal that drifts over time but is the same for the same moment', () => {
    const iccid = '8944110000000001011';
    const readings = Array.from({ length: 96 }, (_, index) =>
      simulatedRouterStatus(iccid, new Date(Date.UTC(2026, 2, 10) + index * 15 * 60_000)),
    );
    const dbms = new Set(readings.map((reading) => reading.signalDbm));
    expect(dbms.size).toBeGreaterThan(5);
    for (const reading of readings) {
      expect(reading.signalDbm).toBeGreaterThanOrEqual(-125);
      expect(reading.signalDbm).toBeLessThanOrEqual(-55);
      expect(reading.networkName).toBe('Farmcam-1011');
    }
    expect(simulatedRouterStatus(iccid, new Date('2026-03-10T10:07:00Z'))).toEqual(
      simulatedRouterStatus(iccid, new Date('2026-03-10T10:01:00Z')),
    );
  });

  it('bars and unbars a SIM by the provider', async () => {
    const iccid = '8944880000000000060';
    await database.db.insert(sims).values({ iccid, state: 'active' });
    expect((await platform.setBarred(iccid, true)).isBarred).toBe(true);
    expect(await platform.getRouterStatuses([iccid])).toEqual([]);
    await platform.setBarred(iccid, false);
    const [row] = await database.db.select().from(sims).where(eq(sims.iccid, iccid));
    expect(row!.isBarred).toBe(false);
  });
});

describe('local SIM platform: camera ports', () => {
  it('answers PROVIDER_UNAVAILABLE without a camera, or when the camera cannot start', async () => {
    const iccid = '8944880000000000078';
    await database.db.insert(sims).values({ iccid, state: 'active' });
    const withoutCamera = createLocalSimPlatform({ db: database.db, clock });
    await expect(withoutCamera.openCameraPorts(iccid, [554])).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
    });
    const broken = createLocalSimPlatform({
      db: database.db,
      clock,
      camera: {
        ensureRunning: async () => {
          throw new Error('no GStreamer');
        },
        stop: async () => {},
      },
    });
    await expect(broken.openCameraPorts(iccid, [554])).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      message: expect.stringContaining('no GStreamer'),
    });
  });
});
