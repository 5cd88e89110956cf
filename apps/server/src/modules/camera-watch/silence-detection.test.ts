import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountMemberCameras,
  accountMembers,
  auditLog,
  billingCustomers,
  cameraHeartbeats,
  cameraSilences,
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
import { chooseCameraAlertEmails } from '../../../test/helpers/notifications.ts';
import { signInMember } from '../../../test/helpers/members.ts';

let context: TestContext;
let token: string;
let notOptedId: string;
const owner = 'watch@example.com';
const topGate = '8944660000000000018';
const shed = '8944660000000000026';
const quiet = '8944660000000000034';
const hourMs = 3_600_000;

beforeAll(async () => {
  context = await createTestContext();
  const { db } = context.database;
  await seedCatalogue(db);
  const customerId = await insertCustomer(context, owner);
  for (const [iccid, nickname, state] of [
    [topGate, 'Top gate', 'active'],
    [shed, 'Shed', 'paused'],
    [quiet, 'Quiet corner', 'active'],
  ] as const) {
    await db
      .insert(billingCustomers)
      .values({ id: `cus_${iccid}`, customerId, provider: 'local', email: owner });
    await db.insert(sims).values({
      iccid,
      state,
      customerId,
      billingCustomerId: `cus_${iccid}`,
      nickname,
      activatedAt: new Date('2025-06-01T00:00:00Z'),
    });
    await db.insert(subscriptions).values({
      id: `sub_${iccid}`,
      billingCustomerId: `cus_${iccid}`,
      simIccid: iccid,
      priceId: 'price_light_month_uk',
      status: state,
      currentPeriodStart: new Date('2026-03-01T00:00:00Z'),
      billingCycleAnchor: new Date('2026-03-01T00:00:00Z'),
      currentPeriodEnd: new Date('2026-04-01T00:00:00Z'),
    });
  }
  const accepted = new Date('2026-01-01T00:00:00Z');
  const member = async (
    email: string,
    {
      cameraAlerts,
      ...values
    }: Partial<typeof accountMembers.$inferInsert> & { cameraAlerts: boolean },
  ) => {
    const rows = await db
      .insert(accountMembers)
      .values({ customerId, email, role: 'viewer', acceptedAt: accepted, ...values })
      .returning({ id: accountMembers.id });
    // Their camera alert e-mails, as the migration carried the old opt-in over (decision 122).
    if (cameraAlerts) await chooseCameraAlertEmails(db, customerId, rows[0]!.id);
    return rows;
  };
  await member('opted-in@example.com', { cameraAlerts: true });
  const [notOpted] = await member('not-opted@example.com', { cameraAlerts: false });
  notOptedId = notOpted!.id;
  await member('removed@example.com', { cameraAlerts: true, removedAt: accepted });
  await member('ended@example.com', { cameraAlerts: true, accessUntil: accepted });
  const [other] = await member('other-camera@example.com', {
    cameraAlerts: true,
    allCameras: false,
  });
  await db.insert(accountMemberCameras).values({ memberId: other!.id, iccid: quiet });
  token = await signInCustomer(context, owner);
});
afterAll(() => context.close());

const inject = context_inject;
function context_inject(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) {
  return context.app.inject({ method, url, payload, headers: bearer(token) });
}
const runWatch = () => inject('POST', '/dev/camera-watch/run');
const silenceMails = async () =>
  (await context.mailer.list({ limit: 200 })).filter((mail) => /silent|is back/.test(mail.subject));

describe('silence alerts', () => {
  it('records when each live camera was last heard', async () => {
    expect((await runWatch()).statusCode).toBe(200);
    const rows = await context.database.db.select().from(cameraHeartbeats);
    expect(rows.map((row) => row.simIccid).sort()).toEqual([topGate, quiet].sort());
    expect(rows.every((row) => row.lastReportAt !== null)).toBe(true);
  });

  it('e-mails the owner and the opted-in members once when a camera goes silent', async () => {
    expect((await inject('POST', `/dev/cameras/${topGate}/silence`, {})).statusCode).toBe(200);
    await runWatch();
    expect(await silenceMails()).toEqual([]);

    context.clock.advance(6 * hourMs + 60_000);
    await runWatch();
    // Two runners at once, and again: still one silence and one e-mail each.
    await Promise.all([
      context.services.silenceDetection.detectSilentCameras(),
      context.services.silenceDetection.detectSilentCameras(),
    ]);
    context.clock.advance(hourMs);
    await runWatch();

    const mails = await silenceMails();
    expect(mails.map((mail) => mail.to).sort()).toEqual(['opted-in@example.com', owner]);
    expect(mails.find((mail) => mail.to === owner)!.subject).toBe('Top gate has gone silent');
    expect(mails.find((mail) => mail.to === owner)!.text).toContain('Please check its power');
    const open = await context.database.db
      .select()
      .from(cameraSilences)
      .where(eq(cameraSilences.simIccid, topGate));
    expect(open).toHaveLength(1);
    expect(open[0]!.alertedAt).not.toBeNull();

    const plans = await inject('GET', '/api/cameras/plansV2');
    const camera = plans
      .json<{ cameras: { SIM_ICCID: string; silence: { hours: number } | null }[] }>()
      .cameras.find((candidate) => candidate.SIM_ICCID === topGate);
    expect(camera?.silence?.hours).toBe(7);
    const settings = await inject('GET', `/api/cameras/alert-settings/${topGate}`);
    expect(settings.json().silence).toEqual(camera?.silence);

    const audit = await context.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'camera.silent'));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actorType).toBe('system');
  });

  it('e-mails again with the outage length when the camera is heard again', async () => {
    expect((await inject('DELETE', `/dev/cameras/${topGate}/silence`)).statusCode).toBe(200);
    await runWatch();
    await runWatch();
    const backAgain = (await silenceMails()).filter((mail) => mail.subject.includes('is back'));
    expect(backAgain.map((mail) => mail.to).sort()).toEqual(['opted-in@example.com', owner]);
    // Silent from 12:00 (when it was last heard) until its router's report at 19:00.
    expect(backAgain.find((mail) => mail.to === owner)!.subject).toBe(
      'Top gate is back after 7 hours',
    );
    const [silence] = await context.database.db
      .select()
      .from(cameraSilences)
      .where(eq(cameraSilences.simIccid, topGate));
    expect(silence!.endedAt).not.toBeNull();
    const plans = await inject('GET', '/api/cameras/plansV2');
    expect(
      plans
        .json<{ cameras: { SIM_ICCID: string; silence: unknown }[] }>()
        .cameras.find((candidate) => candidate.SIM_ICCID === topGate)?.silence,
    ).toBeNull();
  });

  it('never alerts for a camera whose alert is off, nor for a paused one', async () => {
    const put = await inject('PUT', `/api/cameras/alert-settings/${quiet}`, {
      silenceHours: null,
      dataAlertPercent: 80,
      pauseDataAtAllowance: false,
      noClipHours: null,
    });
    expect(put.statusCode).toBe(200);
    await inject('POST', `/dev/cameras/${quiet}/silence`, {});
    await inject('POST', `/dev/cameras/${shed}/silence`, {});
    const before = (await silenceMails()).length;
    context.clock.advance(50 * hourMs);
    await runWatch();
    expect((await silenceMails()).length).toBe(before);
    const silences = await context.database.db.select().from(cameraSilences);
    expect(silences.map((row) => row.simIccid)).toEqual([topGate]);
  });

  it('stores and checks the alert settings', async () => {
    const defaults = await inject('GET', `/api/cameras/alert-settings/${topGate}`);
    expect(defaults.json()).toEqual({
      silenceHours: 6,
      unavailableReason: null,
      dataAlertPercent: 80,
      pauseDataAtAllowance: false,
      noClipHours: null,
      canChange: true,
      silence: null,
    });
    const settings = {
      silenceHours: 12,
      dataAlertPercent: 90,
      pauseDataAtAllowance: true,
      noClipHours: 24,
    };
    const saved = await inject('PUT', `/api/cameras/alert-settings/${topGate}`, settings);
    expect(saved.json()).toEqual({
      ...settings,
      canChange: true,
      unavailableReason: null,
      silence: null,
    });
    for (const wrong of [
      { ...settings, silenceHours: 0 },
      { ...settings, dataAlertPercent: 100 },
      { ...settings, dataAlertPercent: 49 },
      { ...settings, noClipHours: 73 },
    ]) {
      expect(
        (await inject('PUT', `/api/cameras/alert-settings/${topGate}`, wrong)).statusCode,
      ).toBe(400);
    }
    const audit = await context.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'camera.alert-settings'));
    expect(audit.length).toBeGreaterThanOrEqual(1);
  });

  it("keeps the owner's camera alerts on", async () => {
    const mine = await inject('PUT', '/api/team/me/camera-alerts', { cameraAlerts: false });
    expect(mine.json()).toEqual({ cameraAlerts: true, isOwner: true });
  });

  it('lets a member turn camera alerts on for themselves, and they are e-mailed', async () => {
    const memberToken = await signInMember(context, notOptedId);
    const asMember = (method: 'GET' | 'PUT', payload?: object) =>
      context.app.inject({
        method,
        url: '/api/team/me/camera-alerts',
        payload,
        headers: bearer(memberToken),
      });
    expect((await asMember('GET')).json()).toEqual({ cameraAlerts: false, isOwner: false });
    expect((await asMember('PUT', { cameraAlerts: true })).json()).toEqual({
      cameraAlerts: true,
      isOwner: false,
    });
    // Viewers read the settings but do not change them.
    const settings = await context.app.inject({
      method: 'PUT',
      url: `/api/cameras/alert-settings/${topGate}`,
      payload: {
        silenceHours: 1,
        dataAlertPercent: 80,
        pauseDataAtAllowance: false,
        noClipHours: null,
      },
      headers: bearer(memberToken),
    });
    expect(settings.statusCode).toBe(403);

    await inject('POST', `/dev/cameras/${topGate}/silence`, {});
    context.clock.advance(13 * hourMs);
    await runWatch();
    const mails = await context.mailer.list({ to: 'not-opted@example.com', limit: 10 });
    expect(mails.map((mail) => mail.subject)).toContain('Top gate has gone silent');
  });
});
