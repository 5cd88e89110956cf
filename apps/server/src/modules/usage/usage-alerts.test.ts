import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  billingCustomers,
  cameraWatchSettings,
  dailyUsage,
  sims,
  subscriptions,
} from '../../db/schema.ts';
import { seedCatalogue } from '../../seed/demo.ts';
import type { Mailer } from '../../providers/mail/mail.ts';
import {
  createTestContext,
  insertCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { testNotifier } from '../../../test/helpers/notifications.ts';
import { sendUsageAlerts } from './usage-alerts.service.ts';

let context: TestContext;
const email = 'alerts@example.com';
const iccid = '8944660000000000018';
const pausedIccid = '8944660000000000026';

beforeAll(async () => {
  context = await createTestContext();
  const { db } = context.database;
  await seedCatalogue(db);
  const customerId = await insertCustomer(context, email);
  for (const [sim, status] of [
    [iccid, 'active'],
    [pausedIccid, 'paused'],
  ] as const) {
    await db.insert(billingCustomers).values({
      id: `cus_${sim}`,
      customerId,
      provider: 'local',
      email,
    });
    await db.insert(sims).values({
      iccid: sim,
      state: status,
      customerId,
      billingCustomerId: `cus_${sim}`,
      nickname: status === 'active' ? 'Top gate' : 'Shed',
      activatedAt: new Date('2025-06-01T00:00:00Z'),
    });
    await db.insert(subscriptions).values({
      id: `sub_${sim}`,
      billingCustomerId: `cus_${sim}`,
      simIccid: sim,
      priceId: 'price_light_month_uk',
      status,
      currentPeriodStart: new Date('2026-03-01T00:00:00Z'),
      billingCycleAnchor: new Date('2026-03-01T00:00:00Z'),
      currentPeriodEnd: new Date('2026-04-01T00:00:00Z'),
    });
  }
});
afterAll(() => context.close());

/** Sets the SIM's use on a day (Light plan: 5 GB a month). */
const use = (sim: string, day: string, gigabytes: number) =>
  context.database.db
    .insert(dailyUsage)
    .values({ simIccid: sim, day, bytes: Math.round(gigabytes * 1e9) })
    .onConflictDoUpdate({
      target: [dailyUsage.simIccid, dailyUsage.day],
      set: { bytes: Math.round(gigabytes * 1e9) },
    });

const send = (mailer: Mailer = context.mailer) =>
  sendUsageAlerts({
    db: context.database.db,
    notifier: testNotifier(context, mailer),
    clock: context.clock,
    publicUrl: 'http://portal.test',
  });
const inbox = () => context.mailer.list({ to: email });

describe('usage alert e-mails', () => {
  it('sends nothing below 80%', async () => {
    await use(iccid, '2026-03-01', 3.95);
    // Last month's use does not count towards this month.
    await use(iccid, '2026-02-28', 4);
    // A paused plan is not alerted, whatever it used before the pause.
    await use(pausedIccid, '2026-03-01', 6);
    expect(await send()).toEqual({ sent: 0 });
    expect(await inbox()).toEqual([]);
  });

  it('e-mails once when a camera passes 80% of its plan', async () => {
    await use(iccid, '2026-03-02', 0.1);
    expect(await send()).toEqual({ sent: 1 });
    expect(await send()).toEqual({ sent: 0 });
    const [message] = await inbox();
    expect(message!.subject).toBe('Top gate has used 80% of its data this month');
    expect(message!.text).toContain(
      `Your camera Top gate (SIM ${iccid}) has used 4.1 GB of the 5 GB in its Light Streaming plan this month (81%).`,
    );
    expect(message!.text).toContain('by the end of the month');
    expect(message!.text).toContain('Plans reset on the 1st of each month.');
    expect(message!.text).toContain(`http://portal.test/camera/${iccid}`);
  });

  it('e-mails again at 100%, then not again that month', async () => {
    await use(iccid, '2026-03-03', 1);
    expect(await send()).toEqual({ sent: 1 });
    await use(iccid, '2026-03-04', 2);
    expect(await send()).toEqual({ sent: 0 });
    const subjects = (await inbox()).map((message) => message.subject);
    expect(subjects).toEqual([
      'Top gate has used all of its data this month',
      'Top gate has used 80% of its data this month',
    ]);
  });

  it('starts afresh next month, with one e-mail when both thresholds pass at once', async () => {
    context.clock.set('2026-04-02T12:00:00Z');
    try {
      await use(iccid, '2026-04-01', 5.5);
      expect(await send()).toEqual({ sent: 1 });
      expect(await send()).toEqual({ sent: 0 });
      const [newest] = await inbox();
      expect(newest!.subject).toBe('Top gate has used all of its data this month');
      expect(await inbox()).toHaveLength(3);
    } finally {
      context.clock.set('2026-03-10T12:00:00Z');
    }
  });

  it('withdraws the claim when the e-mail cannot be sent, so the next run sends it', async () => {
    context.clock.set('2026-05-03T12:00:00Z');
    try {
      await use(iccid, '2026-05-01', 4.2);
      const brokenMailer: Mailer = {
        mode: 'smtp',
        send: () => Promise.reject(new Error('SMTP down')),
        close: async () => undefined,
      };
      await expect(send(brokenMailer)).rejects.toThrow('1 usage alert e-mails could not be sent');
      expect(await send()).toEqual({ sent: 1 });
      expect((await inbox())[0]!.subject).toBe('Top gate has used 80% of its data this month');
    } finally {
      context.clock.set('2026-03-10T12:00:00Z');
    }
  });

  it("alerts at the camera's chosen share instead of 80%, once", async () => {
    context.clock.set('2026-06-03T12:00:00Z');
    try {
      await context.database.db
        .insert(cameraWatchSettings)
        .values({ simIccid: iccid, dataAlertPercent: 60 })
        .onConflictDoUpdate({
          target: cameraWatchSettings.simIccid,
          set: { dataAlertPercent: 60 },
        });
      await use(iccid, '2026-06-01', 2.9);
      expect(await send()).toEqual({ sent: 0 });
      await use(iccid, '2026-06-02', 0.2);
      expect(await send()).toEqual({ sent: 1 });
      await use(iccid, '2026-06-03', 1);
      expect(await send()).toEqual({ sent: 0 });
      const [message] = await inbox();
      expect(message!.subject).toBe('Top gate has used 60% of its data this month');
      expect(message!.text).toContain('You chose to be told at 60% of its data');
    } finally {
      context.clock.set('2026-03-10T12:00:00Z');
    }
  });

  it('with no early alert chosen, e-mails only at 100%', async () => {
    context.clock.set('2026-07-03T12:00:00Z');
    try {
      await context.database.db.update(cameraWatchSettings).set({ dataAlertPercent: null });
      await use(iccid, '2026-07-01', 4.9);
      expect(await send()).toEqual({ sent: 0 });
      await use(iccid, '2026-07-02', 0.2);
      expect(await send()).toEqual({ sent: 1 });
      expect((await inbox())[0]!.subject).toBe('Top gate has used all of its data this month');
    } finally {
      context.clock.set('2026-03-10T12:00:00Z');
    }
  });
});
