import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../db/client.ts';
import { routerStatus, sims } from '../../db/schema.ts';
import { demoCustomers, demoIccid, seedDemoData } from '../../seed/demo.ts';
import { AppError } from '../../errors.ts';
import {
  startFakeSimPlatform,
  type FakeSimPlatform,
} from '../../../test/fakes/fake-sim-platform-server.ts';
import { createHttpSimPlatform } from '../../providers/connectivity/http-sim-platform.ts';
import { createLocalSimPlatform } from '../../providers/connectivity/local-sim-platform.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { syncFromPlatform } from './connectivity-sync.service.ts';

let context: TestContext;
let fake: FakeSimPlatform;
beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
  fake = await startFakeSimPlatform({ apiKey: 'sync-key' });
});
afterAll(async () => {
  await fake.close();
  await context.close();
});

const simRow = async (serial: number) =>
  (
    await context.database.db
      .select()
      .from(sims)
      .where(eq(sims.iccid, demoIccid(serial)))
  )[0]!;
const usageBytes = async (serial: number, day: string) =>
  Number(
    (
      await queryRows<{ bytes: number }>(
        context.database.db,
        sql`select bytes::float8 as bytes from daily_usage
            where sim_iccid = ${demoIccid(serial)} and day = ${day}::date`,
      )
    )[0]?.bytes ?? 0,
  );

describe('sync from the local platform', () => {
  it('changes no state or usage (they are the same rows) and writes router reports', async () => {
    await context.database.db.delete(routerStatus);
    const platform = createLocalSimPlatform({ db: context.database.db, clock: context.clock });
    const summary = await syncFromPlatform({
      db: context.database.db,
      platform,
      clock: context.clock,
      batchSize: 4,
    });
    // The customers' SIMs that are live or paused (the terminated one ended months ago); routers
    // for the active ones.
    expect(summary).toEqual({
      simsChecked: 10,
      simsChanged: 0,
      usageRowsWritten: 0,
      routersWritten: 9,
    });
    const routers = await context.database.db.select().from(routerStatus);
    expect(routers.map((router) => router.simIccid).sort()).toEqual(
      [101, 102, 103, 104, 106, 107, 108, 110, 201].map(demoIccid).sort(),
    );
    expect(routers.every((router) => router.networkName.startsWith('Farmcam-'))).toBe(true);
  });
});

describe('sync from a platform over HTTP', () => {
  const platform = () =>
    createHttpSimPlatform({ url: fake.url, apiKey: 'sync-key', timeoutMs: 500, retryDelayMs: 5 });

  beforeAll(async () => {
    // The platform knows every customer SIM, mostly as we do.
    for (const customer of demoCustomers) {
      for (const camera of customer.cameras) {
        const row = await simRow(camera.serial);
        fake.addSim({
          iccid: row.iccid,
          state: row.state,
          barred: row.isBarred,
          activatedAt: row.activatedAt?.toISOString() ?? null,
          terminatedAt: row.terminatedAt?.toISOString() ?? null,
        });
      }
    }
  });

  it('mirrors state, barring, usage and routers into our tables', async () => {
    fake.sims.get(demoIccid(101))!.barred = true;
    fake.sims.get(demoIccid(102))!.state = 'paused';
    fake.setUsage(demoIccid(103), '2026-03-10', 123_456_789);
    fake.setUsage(demoIccid(103), '2026-03-09', 987_654_321);
    fake.setRouter(demoIccid(104), { signalDbm: -101, networkProvider: 'Three UK' });

    const summary = await syncFromPlatform({
      db: context.database.db,
      platform: platform(),
      clock: context.clock,
    });
    expect(summary.simsChanged).toBe(2);
    expect(summary.usageRowsWritten).toBe(2);
    expect((await simRow(101)).isBarred).toBe(true);
    expect((await simRow(102)).state).toBe('paused');
    expect(await usageBytes(103, '2026-03-10')).toBe(123_456_789);
    expect(await usageBytes(103, '2026-03-09')).toBe(987_654_321);
    const [router] = await context.database.db
      .select()
      .from(routerStatus)
      .where(eq(routerStatus.simIccid, demoIccid(104)));
    expect(router).toMatchObject({ networkProvider: 'Three UK', signalDbm: -101 });
    // Barred and paused SIMs have no router report to sync.
    const asked = fake.requests.filter((request) => request.path.startsWith('/v1/router-status'));
    expect(asked.some((request) => request.path.includes(demoIccid(101)))).toBe(false);
  });

  it('writes nothing on a second run with nothing new', async () => {
    const summary = await syncFromPlatform({
      db: context.database.db,
      platform: platform(),
      clock: context.clock,
    });
    expect(summary).toMatchObject({ simsChanged: 0, usageRowsWritten: 0 });
  });

  it('leaves our tables as they were when the platform fails mid-way', async () => {
    fake.sims.get(demoIccid(104))!.state = 'paused';
    fake.failNext(3, { status: 502, pathPrefix: '/v1/usage' });
    let error: unknown;
    try {
      await syncFromPlatform({
        db: context.database.db,
        platform: platform(),
        clock: context.clock,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('PROVIDER_UNAVAILABLE');
    expect((await simRow(104)).state).toBe('active');

    // The next run picks it up.
    await syncFromPlatform({ db: context.database.db, platform: platform(), clock: context.clock });
    expect((await simRow(104)).state).toBe('paused');
  });
});
