import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cameraHeartbeats, dailyUsage, sims } from '../../db/schema.ts';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import {
  createLocalSimPlatform,
  simulatedRouterStatus,
} from '../../providers/connectivity/local-sim-platform.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { syncFromPlatform } from './connectivity-sync.service.ts';

/** When each SIM was last heard (decision 094): its usage grew, its router reported. */
let context: TestContext;
const topGate = demoIccid(101);
const hourMs = 3_600_000;

beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
});
afterAll(() => context.close());

const heartbeat = async (iccid: string) =>
  (
    await context.database.db
      .select()
      .from(cameraHeartbeats)
      .where(eq(cameraHeartbeats.simIccid, iccid))
  )[0];

describe('heartbeats from the connectivity sync', () => {
  it('records data when a day total grew since our copy, and nothing when it did not', async () => {
    const { db } = context.database;
    const local = createLocalSimPlatform({ db, clock: context.clock });
    const today = context.clock.now().toISOString().slice(0, 10);
    const [ours] = await db
      .select()
      .from(dailyUsage)
      .where(eq(dailyUsage.simIccid, topGate))
      .orderBy(dailyUsage.day);
    const oursToday =
      (await db.select().from(dailyUsage).where(eq(dailyUsage.simIccid, topGate))).find(
        (row) => row.day === today,
      )?.bytes ?? 0;
    expect(ours).toBeDefined();
    let extra = 0;
    // A platform of its own (as an HTTP one is): today's total is ours plus `extra`, no reports.
    const platform: ConnectivityPlatform = {
      ...local,
      kind: 'http',
      getRouterStatuses: async () => [],
      getDailyUsage: async ({ iccids }) =>
        iccids.includes(topGate) ? [{ iccid: topGate, day: today, bytes: oursToday + extra }] : [],
    };
    await db.delete(cameraHeartbeats);
    await syncFromPlatform({ db, platform, clock: context.clock });
    expect(await heartbeat(topGate)).toBeUndefined();

    extra = 1_000_000;
    await syncFromPlatform({ db, platform, clock: context.clock });
    const heard = context.clock.now();
    expect((await heartbeat(topGate))?.lastDataAt).toEqual(heard);

    // The same total an hour later: still heard at the earlier time.
    context.clock.advance(hourMs);
    await syncFromPlatform({ db, platform, clock: context.clock });
    expect((await heartbeat(topGate))?.lastDataAt).toEqual(heard);
  });

  it('takes the router report time, and a silent local SIM reports nothing after its silence', async () => {
    const { db } = context.database;
    const platform = createLocalSimPlatform({ db, clock: context.clock });
    await syncFromPlatform({ db, platform, clock: context.clock });
    const now = context.clock.now();
    expect((await heartbeat(topGate))?.lastReportAt).toEqual(
      simulatedRouterStatus(topGate, now).reportedAt,
    );

    await platform.setSilentSince(topGate, now);
    context.clock.advance(5 * hourMs);
    const [report] = await platform.getRouterStatuses([topGate]);
    expect(report!.reportedAt.getTime()).toBeLessThan(now.getTime());
    await syncFromPlatform({ db, platform, clock: context.clock });
    // Never earlier than what was heard, never later than the silence.
    expect((await heartbeat(topGate))?.lastReportAt?.getTime()).toBeLessThanOrEqual(now.getTime());
  });

  it('meters no data for a silent local SIM from the hour it went silent', async () => {
    const { db } = context.database;
    const platform = createLocalSimPlatform({ db, clock: context.clock });
    await platform.recordUsage();
    const before = await db.select().from(dailyUsage).where(eq(dailyUsage.simIccid, topGate));
    const other = demoIccid(103);
    const otherBefore = await db.select().from(dailyUsage).where(eq(dailyUsage.simIccid, other));
    context.clock.advance(3 * hourMs);
    await platform.recordUsage();
    const after = await db.select().from(dailyUsage).where(eq(dailyUsage.simIccid, topGate));
    const otherAfter = await db.select().from(dailyUsage).where(eq(dailyUsage.simIccid, other));
    const total = (rows: typeof before) => rows.reduce((sum, row) => sum + Number(row.bytes), 0);
    expect(total(after)).toBe(total(before));
    expect(total(otherAfter)).toBeGreaterThan(total(otherBefore));
    await db.update(sims).set({ localSilentSince: null }).where(eq(sims.iccid, topGate));
  });
});
