/**
 * Each person's notifications (decision 122): their own settings only, the kinds their role may
 * receive, the cameras they reach; the notifier's channels and quiet hours; the phone checked by
 * a code (decision 124) with the local text messages and /dev/sms.
 */
import type { NotificationSettingsResponse } from '@farmcam/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignedInMember } from '../../../test/helpers/members.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { customers, localSmsMessages, notificationDeliveries } from '../../db/schema.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { renderEmail } from '../../providers/mail/mail.ts';
import type { Alert } from './notifier.ts';
import { parseUkMobile } from './phone-number.ts';
import { isQuiet, quietEndsAt } from './quiet-hours.ts';

let context: TestContext;
let ownerId: string;
let owner: Record<string, string>;
let viewer: { memberId: string; headers: Record<string, string> };
const topGate = demoIccid(101);
const lambingShed = demoIccid(102);

beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
  const [row] = await context.database.db
    .select()
    .from(customers)
    .where(eq(customers.email, 'demo@example.com'));
  ownerId = row!.id;
  owner = bearer(await signInCustomer(context, 'demo@example.com'));
  viewer = await createSignedInMember(context, ownerId, {
    email: 'herdsman@example.com',
    role: 'viewer',
    allCameras: false,
    iccids: [topGate],
  });
});
afterAll(() => context.close());

const call = async (
  headers: Record<string, string>,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  url: string,
  payload?: object,
) => context.app.inject({ method, url: `/api/notifications${url}`, headers, payload });
const settingsOf = async (headers: Record<string, string>) =>
  (await call(headers, 'GET', '/settings')).json<NotificationSettingsResponse>();
const choice = (settings: NotificationSettingsResponse, kind: string) =>
  settings.choices.find((item) => item.kind === kind);

const alert = (kind: Alert['kind'], iccid: string | null): Alert => ({
  kind,
  customerId: ownerId,
  iccid,
  email: (to) =>
    renderEmail({ to, subject: `Test ${kind}`, heading: `Test ${kind}`, paragraphs: ['Hello'] }),
  short: { title: `Test ${kind}`, body: 'Hello', path: iccid ? `/camera/${iccid}` : '/dashboard' },
});
const subjectsTo = async (to: string) =>
  (await context.mailer.list({ to }))
    .map((message) => message.subject)
    .filter((subject) => subject.startsWith('Test '));

describe('each person’s own settings', () => {
  it('gives the owner every e-mail, as before, and nothing else until chosen', async () => {
    const settings = await settingsOf(owner);
    expect(settings.choices.map((item) => item.kind)).toEqual([
      'camera-silence',
      'livestream-clips',
      'data-share',
      'data-paused',
      'spend',
      'payment',
      'team',
    ]);
    for (const item of settings.choices) {
      expect(item).toMatchObject({ email: true, push: false, sms: false });
    }
    expect(choice(settings, 'camera-silence')?.overridesQuietHours).toBe(true);
    expect(choice(settings, 'spend')?.overridesQuietHours).toBe(false);
    expect(settings.quietHours).toBeNull();
    expect(settings.canReceiveBillingAlerts).toBe(true);
    expect(settings.cameras.length).toBeGreaterThan(1);
  });

  it('shows a viewer only their own choices, the camera kinds and the cameras they reach', async () => {
    const settings = await settingsOf(viewer.headers);
    expect(settings.choices.map((item) => item.kind)).toEqual([
      'camera-silence',
      'livestream-clips',
      'data-share',
      'data-paused',
    ]);
    expect(settings.choices.every((item) => !item.email && !item.push && !item.sms)).toBe(true);
    expect(settings.cameras.map((camera) => camera.iccid)).toEqual([topGate]);
    expect(settings.canReceiveBillingAlerts).toBe(false);

    const spend = await call(viewer.headers, 'PUT', '/settings', {
      choices: [
        { kind: 'spend', email: true, push: false, sms: false, overridesQuietHours: false },
      ],
      quietHours: null,
    });
    expect(spend.statusCode).toBe(403);
    expect(spend.json().message).toBe('Only the account owner receives “Monthly spend” alerts.');

    const saved = await call(viewer.headers, 'PUT', '/settings', {
      choices: [
        { kind: 'camera-silence', email: true, push: false, sms: false, overridesQuietHours: true },
      ],
      quietHours: { start: '21:30', end: '06:00' },
    });
    expect(saved.statusCode).toBe(200);
    expect(choice(saved.json(), 'camera-silence')?.email).toBe(true);
    expect(saved.json().quietHours).toEqual({ start: '21:30', end: '06:00' });
    // The owner's are untouched.
    expect((await settingsOf(owner)).quietHours).toBeNull();
  });

  it('refuses quiet hours that start when they end, and a kind given twice, in sentences', async () => {
    const same = await call(owner, 'PUT', '/settings', {
      choices: [{ kind: 'team', email: true, push: false, sms: false, overridesQuietHours: false }],
      quietHours: { start: '07:00', end: '07:00' },
    });
    expect(same.statusCode).toBe(400);
    expect(same.json().message).toBe(
      'Quiet hours need a different start and end, for example 22:00 to 07:00.',
    );
    const twice = await call(owner, 'PUT', '/settings', {
      choices: [
        { kind: 'team', email: true, push: false, sms: false, overridesQuietHours: false },
        { kind: 'team', email: false, push: false, sms: false, overridesQuietHours: false },
      ],
      quietHours: null,
    });
    expect(twice.statusCode).toBe(400);
  });

  it('removes only the person’s own push devices', async () => {
    const added = await call(owner, 'POST', '/push-devices', {
      endpoint: 'https://push.example/owner-phone',
      keys: { p256dh: 'B'.repeat(87), auth: 'a'.repeat(22) },
    });
    expect(added.statusCode).toBe(200);
    const [device] = added.json<NotificationSettingsResponse>().push.devices;
    expect(device?.label).toBe('Browser on this device');
    const byViewer = await call(viewer.headers, 'DELETE', `/push-devices/${device!.id}`);
    expect(byViewer.statusCode).toBe(404);
    expect((await settingsOf(owner)).push.devices).toHaveLength(1);
    // One subscription per device: the same endpoint subscribed by another person moves to them.
    await call(viewer.headers, 'POST', '/push-devices', {
      endpoint: 'https://push.example/owner-phone',
      keys: { p256dh: 'C'.repeat(87), auth: 'b'.repeat(22) },
    });
    expect((await settingsOf(owner)).push.devices).toHaveLength(0);
    expect((await settingsOf(viewer.headers)).push.devices).toHaveLength(1);
  });

  it('refuses a push address the server must not post to, with a sentence, and keeps nothing', async () => {
    const before = (await settingsOf(owner)).push.devices.length;
    const refused = await call(owner, 'POST', '/push-devices', {
      endpoint: 'http://169.254.169.254/latest/meta-data',
      keys: { p256dh: 'D'.repeat(87), auth: 'c'.repeat(22) },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'This browser gave a push address we cannot send to. Please try another browser.',
    });
    expect((await settingsOf(owner)).push.devices).toHaveLength(before);
  });
});

describe('the notifier', () => {
  it('e-mails the owner and the members who chose it and reach the camera; billing to the owner only', async () => {
    const manager = await createSignedInMember(context, ownerId, {
      email: 'manager@example.com',
      role: 'manager',
    });
    await call(manager.headers, 'PUT', '/settings', {
      choices: ['camera-silence', 'data-share'].map((kind) => ({
        kind,
        email: true,
        push: false,
        sms: false,
        overridesQuietHours: false,
      })),
      quietHours: null,
    });
    const silence = await context.services.notifier.notify(alert('camera-silence', lambingShed));
    // The viewer chose silence e-mails but does not reach Lambing shed.
    expect(silence).toMatchObject({ recipients: 2, reached: 2, emailsSent: 2 });
    expect(await subjectsTo('manager@example.com')).toEqual(['Test camera-silence']);
    expect(await subjectsTo('herdsman@example.com')).toEqual([]);
    await context.services.notifier.notify(alert('camera-silence', topGate));
    expect(await subjectsTo('herdsman@example.com')).toEqual(['Test camera-silence']);

    const payment = await context.services.notifier.notify(alert('payment', topGate));
    expect(payment.recipients).toBe(1);
    expect(await subjectsTo('manager@example.com')).not.toContain('Test payment');
  });

  it('holds a non-urgent push and text until quiet hours end, and sends an urgent one at once', async () => {
    // The owner: a verified phone, quiet from 22:00 to 07:00, texts for silence (urgent) and spend.
    await call(owner, 'POST', '/phone', { phone: '07700 900123' });
    const [text] = await context.database.db.select().from(localSmsMessages);
    const code = text!.body.match(/\d{6}/)![0];
    expect((await call(owner, 'POST', '/phone/verify', { code })).statusCode).toBe(200);
    await call(owner, 'PUT', '/settings', {
      choices: [
        { kind: 'camera-silence', email: true, push: false, sms: true, overridesQuietHours: true },
        { kind: 'spend', email: false, push: false, sms: true, overridesQuietHours: false },
      ],
      quietHours: { start: '22:00', end: '07:00' },
    });
    // 23:30 UK (winter: UTC).
    context.clock.set('2026-03-10T23:30:00Z');
    await context.services.notifier.notify(alert('camera-silence', topGate));
    await context.services.notifier.notify(alert('spend', null));
    const rows = await context.database.db
      .select()
      .from(notificationDeliveries)
      .where(eq(notificationDeliveries.channel, 'sms'));
    const byKind = Object.fromEntries(rows.map((row) => [row.kind, row.dueAt.toISOString()]));
    expect(byKind).toEqual({
      'camera-silence': '2026-03-10T23:30:00.000Z',
      spend: '2026-03-11T07:00:00.000Z',
    });
    // No e-mail for spend (the owner turned it off), and none held: e-mail is never held.
    expect(await subjectsTo('demo@example.com')).not.toContain('Test spend');

    await context.services.notificationDelivery.deliverDue();
    const texts = async () =>
      (await context.database.db.select().from(localSmsMessages))
        .filter((message) => message.direction === 'outbound')
        .map((message) => message.body);
    expect(await texts()).toContain(
      'Farmcam: Test camera-silence. http://portal.test/camera/' + topGate,
    );
    expect(await texts()).not.toContain('Farmcam: Test spend. http://portal.test/dashboard');
    context.clock.set('2026-03-11T07:00:00Z');
    await context.services.notificationDelivery.deliverDue();
    expect(await texts()).toContain('Farmcam: Test spend. http://portal.test/dashboard');
    expect((await settingsOf(owner)).sms.sentToday).toBe(1);
  });

  it('respects STOP replied to our number until START, and says so on the page', async () => {
    const reply = (body: string) =>
      context.app.inject({
        method: 'POST',
        url: '/dev/sms/reply',
        payload: { from: '+447700900123', body },
      });
    expect((await reply('Stop')).statusCode).toBe(204);
    const stopped = await settingsOf(owner);
    expect(stopped.phone).toMatchObject({ display: '07700 900123', isStopped: true });
    const before = (await context.database.db.select().from(localSmsMessages)).length;
    await context.services.notifier.notify(alert('camera-silence', topGate));
    await context.services.notificationDelivery.deliverDue();
    // The inbound reply is kept; no new outbound text.
    expect((await context.database.db.select().from(localSmsMessages)).length).toBe(before);
    await reply('START');
    expect((await settingsOf(owner)).phone?.isStopped).toBe(false);
    await context.services.notifier.notify(alert('camera-silence', topGate));
    await context.services.notificationDelivery.deliverDue();
    expect((await context.database.db.select().from(localSmsMessages)).length).toBe(before + 2);
  });

  it('texts at most the daily limit and summarises the rest in one e-mail', async () => {
    context.clock.set('2026-03-12T10:00:00Z');
    const limit = context.config.smsDailyLimitPerPerson;
    for (let index = 0; index < limit + 2; index += 1) {
      await context.services.notifier.notify(alert('camera-silence', topGate));
    }
    await context.services.notificationDelivery.deliverDue();
    expect((await settingsOf(owner)).sms.sentToday).toBe(limit);
    const summaries = (await context.mailer.list({ to: 'demo@example.com' })).filter((message) =>
      message.subject.includes('we did not text you'),
    );
    expect(summaries.map((message) => message.subject)).toEqual([
      '2 alerts we did not text you today',
    ]);
    expect(summaries[0]!.text).toContain(`You get at most ${limit} text messages a day`);
  });
});

describe('a phone number, checked by a code', () => {
  it('reads UK mobiles as people write them and refuses others with a sentence', () => {
    for (const written of [
      '07700 900123',
      '+44 7700 900123',
      '0044 7700-900123',
      '(07700) 900 123',
      '447700900123',
    ]) {
      expect(parseUkMobile(written)).toEqual({ isValid: true, e164: '+447700900123' });
    }
    expect(parseUkMobile('+33 6 12 34 56 78')).toEqual({
      isValid: false,
      message:
        'We can send text messages to UK mobile numbers only. Please enter a UK mobile number starting 07.',
    });
    expect(parseUkMobile('01632 960123').isValid).toBe(false);
  });

  it('takes five tries at a code, then asks for a new one; an expired code is refused', async () => {
    const person = viewer.headers;
    const refused = await call(person, 'POST', '/phone', { phone: '+33 6 12 34 56 78' });
    expect(refused.statusCode).toBe(400);
    const started = await call(person, 'POST', '/phone', { phone: '07700 900456' });
    expect(started.json().pendingPhone.display).toBe('07700 900456');
    const [text] = (await context.database.db.select().from(localSmsMessages)).filter(
      (message) => message.to === '+447700900456',
    );
    expect(text!.body).toMatch(/^Your Farmcam code is \d{6}\. It works for 10 minutes\./);
    const code = text!.body.match(/\d{6}/)![0];
    const wrong = code === '000000' ? '111111' : '000000';
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const answer = await call(person, 'POST', '/phone/verify', { code: wrong });
      expect(answer.statusCode).toBe(422);
    }
    const last = await call(person, 'POST', '/phone/verify', { code: wrong });
    expect(last.json().message).toBe('Too many wrong codes. Please ask for a new one.');
    const right = await call(person, 'POST', '/phone/verify', { code });
    expect(right.json().message).toBe('Too many wrong codes. Please ask for a new one.');
    expect((await settingsOf(person)).phone).toBeNull();

    await call(person, 'POST', '/phone', { phone: '07700 900456' });
    context.clock.set(new Date(context.clock.now().getTime() + 11 * 60_000).toISOString());
    const late = await call(person, 'POST', '/phone/verify', { code: '123456' });
    expect(late.json().message).toBe('That code has expired. Please ask for a new one.');
  });

  it('shows the local texts at /dev/sms', async () => {
    const page = await context.app.inject({ method: 'GET', url: '/dev/sms' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Your Farmcam code is');
  });
});

describe('quiet hours in UK time', () => {
  const window = { startMinute: 22 * 60, endMinute: 7 * 60 };
  it('span midnight and follow British Summer Time', () => {
    expect(isQuiet(new Date('2026-07-01T21:30:00Z'), window)).toBe(true); // 22:30 BST
    expect(isQuiet(new Date('2026-07-01T06:30:00Z'), window)).toBe(false); // 07:30 BST
    expect(quietEndsAt(new Date('2026-07-01T21:30:00Z'), window).toISOString()).toBe(
      '2026-07-02T06:00:00.000Z',
    );
    // The night the clocks go back (25 October 2026): 07:00 GMT.
    expect(quietEndsAt(new Date('2026-10-24T23:00:00Z'), window).toISOString()).toBe(
      '2026-10-25T07:00:00.000Z',
    );
  });
});
