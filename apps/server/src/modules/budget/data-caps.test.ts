import type { PlansResponse } from '@farmcam/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appSettings,
  auditLog,
  billingCustomers,
  cameraWatchSettings,
  dailyUsage,
  dataCaps,
  sims,
  subscriptions,
} from '../../db/schema.ts';
import { seedCatalogue } from '../../seed/demo.ts';
import {
  bearer,
  createTestContext,
  insertCustomer,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';

let context: TestContext;
const email = 'caps@example.com';
const iccid = '8944660000000000117';

beforeAll(async () => {
  context = await createTestContext();
  const { db } = context.database;
  await seedCatalogue(db);
  const customerId = await insertCustomer(context, email);
  await db
    .insert(billingCustomers)
    .values({ id: `cus_${iccid}`, customerId, provider: 'local', email });
  await db.insert(sims).values({
    iccid,
    state: 'active',
    customerId,
    billingCustomerId: `cus_${iccid}`,
    nickname: 'Farmyard',
    activatedAt: new Date('2025-06-01T00:00:00Z'),
  });
  await db.insert(subscriptions).values({
    id: `sub_${iccid}`,
    billingCustomerId: `cus_${iccid}`,
    simIccid: iccid,
    priceId: 'price_light_month_uk',
    status: 'active',
    currentPeriodStart: new Date('2026-03-01T00:00:00Z'),
    billingCycleAnchor: new Date('2026-03-01T00:00:00Z'),
    currentPeriodEnd: new Date('2026-04-01T00:00:00Z'),
  });
  await db.insert(cameraWatchSettings).values({ simIccid: iccid, pauseDataAtAllowance: true });
});
afterAll(() => context.close());

/** Sets the SIM's use on a day (Light plan: 5 GB a month). */
const use = (day: string, gigabytes: number) =>
  context.database.db
    .insert(dailyUsage)
    .values({ simIccid: iccid, day, bytes: Math.round(gigabytes * 1e9) })
    .onConflictDoUpdate({
      target: [dailyUsage.simIccid, dailyUsage.day],
      set: { bytes: Math.round(gigabytes * 1e9) },
    });
const apply = () => context.services.dataCaps.applyDataCaps();
/** The local platform's own record of the customer's data stop. */
const isStoppedOnPlatform = async () =>
  (
    await context.database.db
      .select()
      .from(appSettings)
      .where(eq(appSettings.key, `local-sim-platform:data-stopped:${iccid}`))
  ).length === 1;
const cameraOnDashboard = async () => {
  const response = await context.app.inject({
    method: 'GET',
    url: '/api/cameras/plansV2',
    // Signed in afresh: the tests move the clock past a session's life.
    headers: bearer(await signInCustomer(context, email)),
  });
  return response.json<PlansResponse>().cameras.find((camera) => camera.SIM_ICCID === iccid)!;
};
const resume = async () =>
  context.app.inject({
    method: 'POST',
    url: `/api/cameras/data-cap/${iccid}/resume`,
    // Signed in afresh: the tests move the clock past a session's life.
    headers: bearer(await signInCustomer(context, email)),
  });
const actions = async () =>
  (
    await context.database.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.subjectId, iccid)))
  ).map((row) => row.action);

describe('pausing data at the allowance (decision 095)', () => {
  it('leaves a camera under its allowance alone', async () => {
    await use('2026-03-01', 4.9);
    expect(await apply()).toEqual({ stopped: 0, restored: 0 });
    expect(await isStoppedOnPlatform()).toBe(false);
    expect((await cameraOnDashboard()).dataCap).toBeNull();
  });

  it('stops the data once the allowance is used, once, and tells the owner how to resume', async () => {
    await use('2026-03-02', 0.2);
    expect(await apply()).toEqual({ stopped: 1, restored: 0 });
    expect(await apply()).toEqual({ stopped: 0, restored: 0 });
    expect(await isStoppedOnPlatform()).toBe(true);
    // The customer's stop is not the provider's bar.
    const [sim] = await context.database.db.select().from(sims).where(eq(sims.iccid, iccid));
    expect([sim!.state, sim!.isBarred]).toEqual(['active', false]);

    const camera = await cameraOnDashboard();
    expect(camera.isBarred).toBe(false);
    expect(camera.dataCap).toEqual({
      stoppedAt: '2026-03-10T12:00:00.000Z',
      canResume: true,
      costNote:
        'Resuming adds nothing to your bill: the Light Streaming plan has no charge for data used ' +
        'over its 5 GB. The camera then uses data until the 1st, when the allowance starts again.',
    });
    const mails = (await context.mailer.list({ to: email })).filter((mail) =>
      mail.subject.includes('data is paused'),
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe("Farmyard's data is paused: it used its 5 GB this month");
    expect(mails[0]!.text).toContain('Resume until the end of the month');
    expect(mails[0]!.text).toContain('Resuming adds nothing to your bill');
    expect(await actions()).toContain('camera.data-paused');
  });

  it('resumes until the end of the month with one call, repeated harmlessly, and is not stopped again', async () => {
    const first = await resume();
    expect(first.statusCode).toBe(200);
    const { resumedAt } = first.json<{ resumedAt: string }>();
    expect(resumedAt).toBe('2026-03-10T12:00:00.000Z');
    context.clock.set('2026-03-10T12:05:00Z');
    const again = await resume();
    expect(again.json()).toEqual({ resumedAt });
    expect(await isStoppedOnPlatform()).toBe(false);
    expect((await cameraOnDashboard()).dataCap).toBeNull();
    expect((await actions()).filter((action) => action === 'camera.data-resumed')).toHaveLength(1);

    await use('2026-03-03', 3);
    expect(await apply()).toEqual({ stopped: 0, restored: 0 });
    expect(await isStoppedOnPlatform()).toBe(false);
  });

  it('answers a camera that was never stopped with nothing to resume', async () => {
    context.clock.set('2026-04-01T09:00:00Z');
    const response = await resume();
    expect(response.json()).toEqual({ resumedAt: null });
  });

  it("stops again in a new month over that month's allowance, and lets it through when the month turns", async () => {
    context.clock.set('2026-04-03T10:00:00Z');
    await use('2026-04-02', 5.5);
    expect(await apply()).toEqual({ stopped: 1, restored: 0 });
    expect(await isStoppedOnPlatform()).toBe(true);

    context.clock.set('2026-05-01T00:15:00Z');
    expect(await apply()).toEqual({ stopped: 0, restored: 1 });
    expect(await isStoppedOnPlatform()).toBe(false);
    expect((await cameraOnDashboard()).dataCap).toBeNull();
    expect(await actions()).toContain('camera.data-restored');
    const [april] = await context.database.db
      .select()
      .from(dataCaps)
      .where(and(eq(dataCaps.simIccid, iccid), eq(dataCaps.month, '2026-04')));
    expect(april!.resumedAt?.toISOString()).toBe('2026-05-01T00:15:00.000Z');
  });

  it('lets the data through when pausing at the allowance is turned off', async () => {
    await use('2026-05-01', 5.2);
    expect(await apply()).toEqual({ stopped: 1, restored: 0 });
    await context.database.db
      .update(cameraWatchSettings)
      .set({ pauseDataAtAllowance: false })
      .where(eq(cameraWatchSettings.simIccid, iccid));
    expect(await apply()).toEqual({ stopped: 0, restored: 1 });
    expect(await isStoppedOnPlatform()).toBe(false);
  });
});
