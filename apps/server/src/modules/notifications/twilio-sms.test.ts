/**
 * Text messages through Twilio's official SDK against a fake of its Messages API
 * (test/fakes/fake-twilio-server.ts), the app listening for the fake's signed callbacks as it
 * would behind PUBLIC_URL (decision 124): the code and the alerts sent with HTTP Basic auth, each
 * text's fate from the status callback, STOP and START from the inbound webhook, forged callbacks
 * refused, Twilio being down retried.
 */
import type { NotificationSettingsResponse } from '@farmcam/contract';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTwilio } from '../../../test/fakes/fake-twilio-server.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { customers, notificationDeliveries } from '../../db/schema.ts';
import { renderEmail } from '../../providers/mail/mail.ts';
import { createTwilioMessaging } from '../../providers/messaging/twilio-messaging.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { twilioInboundPath, twilioStatusPath } from './notification-delivery.service.ts';

const accountSid = `AC${'1'.repeat(32)}`;
const authToken = 'twilio-auth-token-for-tests';
const publicUrl = 'https://portal.farmcam.test';
let context: TestContext;
let twilio: Awaited<ReturnType<typeof startFakeTwilio>>;
let listening = '';
let owner: Record<string, string>;
let ownerId: string;

beforeAll(async () => {
  twilio = await startFakeTwilio({ accountSid, authToken, deliverTo: () => listening });
  const sms = {
    mode: 'twilio' as const,
    accountSid,
    authToken,
    from: '+447700900000',
    messagingServiceSid: undefined,
    apiUrl: twilio.apiUrl,
  };
  context = await createTestContext({ sms, publicUrl }, undefined, () => ({
    messaging: createTwilioMessaging(sms),
  }));
  await context.app.listen({ port: 0, host: '127.0.0.1' });
  listening = `http://127.0.0.1:${(context.app.server.address() as AddressInfo).port}`;
  await seedDemoData(context.database.db, context.clock);
  const [row] = await context.database.db
    .select()
    .from(customers)
    .where(eq(customers.email, 'demo@example.com'));
  ownerId = row!.id;
  owner = bearer(await signInCustomer(context, 'demo@example.com'));
});
afterAll(async () => {
  await context.close();
  await twilio.close();
});

const settings = async () =>
  (
    await context.app.inject({ method: 'GET', url: '/api/notifications/settings', headers: owner })
  ).json<NotificationSettingsResponse>();

const alert = (title: string) =>
  context.services.notifier.notify({
    kind: 'camera-silence',
    customerId: ownerId,
    iccid: demoIccid(101),
    email: (to) => renderEmail({ to, subject: title, heading: title, paragraphs: [] }),
    short: { title, body: '', path: `/camera/${demoIccid(101)}` },
  });

const deliveryOf = async (title: string) =>
  (
    await context.database.db
      .select()
      .from(notificationDeliveries)
      .where(eq(notificationDeliveries.title, title))
  )[0];

describe('SMS through Twilio', () => {
  it('texts the code, then alerts, with the account’s credentials and our status callback', async () => {
    const started = await context.app.inject({
      method: 'POST',
      url: '/api/notifications/phone',
      headers: owner,
      payload: { phone: '07700 900123' },
    });
    expect(started.statusCode).toBe(200);
    const [codeText] = twilio.messages;
    expect(codeText).toMatchObject({ to: '+447700900123', from: '+447700900000' });
    const code = codeText!.body.match(/\d{6}/)![0];
    const verified = await context.app.inject({
      method: 'POST',
      url: '/api/notifications/phone/verify',
      headers: owner,
      payload: { code },
    });
    expect(verified.json().phone).toMatchObject({ number: '+447700900123', isStopped: false });
    await context.app.inject({
      method: 'PUT',
      url: '/api/notifications/settings',
      headers: owner,
      payload: {
        choices: [
          {
            kind: 'camera-silence',
            email: false,
            push: false,
            sms: true,
            overridesQuietHours: true,
          },
        ],
        quietHours: null,
      },
    });

    await alert('Top gate has gone silent');
    await context.services.notificationDelivery.deliverDue();
    const sent = twilio.messages.at(-1)!;
    expect(sent).toMatchObject({
      to: '+447700900123',
      body: `Farmcam: Top gate has gone silent. ${publicUrl}/camera/${demoIccid(101)}`,
      statusCallback: `${publicUrl}${twilioStatusPath}`,
    });
    expect(await deliveryOf('Top gate has gone silent')).toMatchObject({
      status: 'sent',
      providerMessageId: sent.sid,
    });

    await twilio.reportStatuses();
    // sent, then delivered (the code's text asks for no callback).
    expect(twilio.callbacks.map((callback) => callback.status)).toEqual([204, 204]);
    expect((await deliveryOf('Top gate has gone silent'))!.status).toBe('delivered');
  });

  it('shows a text the network could not deliver on the Notifications page', async () => {
    twilio.failDelivery('+447700900123', '30003');
    await alert('Calving pen has gone silent');
    await context.services.notificationDelivery.deliverDue();
    await twilio.reportStatuses();
    expect((await deliveryOf('Calving pen has gone silent'))!.status).toBe('failed');
    expect((await settings()).recentFailures[0]).toMatchObject({
      channel: 'sms',
      title: 'Calving pen has gone silent',
      reason: 'The phone was switched off or out of signal for too long.',
    });
    twilio.failDelivery('+447700900123', '');
  });

  it('refuses a callback whose signature is not Twilio’s', async () => {
    const status = await twilio.postForged(`${publicUrl}${twilioStatusPath}`, {
      MessageSid: 'SMforged',
      MessageStatus: 'delivered',
    });
    expect(status).toBe(403);
  });

  it('stops texting after STOP, and starts again after START', async () => {
    expect(await twilio.reply(`${publicUrl}${twilioInboundPath}`, '+447700900123', 'STOP')).toBe(
      200,
    );
    expect((await settings()).phone?.isStopped).toBe(true);
    const before = twilio.messages.length;
    await alert('Yard has gone silent');
    await context.services.notificationDelivery.deliverDue();
    expect(twilio.messages.length).toBe(before);
    await twilio.reply(`${publicUrl}${twilioInboundPath}`, '+447700900123', 'start');
    expect((await settings()).phone?.isStopped).toBe(false);
    await alert('Yard is back');
    await context.services.notificationDelivery.deliverDue();
    expect(twilio.messages.length).toBe(before + 1);
  });

  it('marks the phone stopped when Twilio refuses an opted-out number (21610)', async () => {
    twilio.optOut('+447700900123');
    await alert('Gate has gone silent');
    await context.services.notificationDelivery.deliverDue();
    expect(await deliveryOf('Gate has gone silent')).toMatchObject({
      status: 'failed',
      error: 'This phone replied STOP, so texts are not sent to it.',
    });
    expect((await settings()).phone?.isStopped).toBe(true);
  });

  it('tries again while Twilio answers 503, and sends the text once', async () => {
    await twilio.reply(`${publicUrl}${twilioInboundPath}`, '+447700900124', 'START');
    const started = await context.app.inject({
      method: 'POST',
      url: '/api/notifications/phone',
      headers: owner,
      payload: { phone: '07700 900124' },
    });
    expect(started.statusCode).toBe(200);
    const code = twilio.messages.at(-1)!.body.match(/\d{6}/)![0];
    await context.app.inject({
      method: 'POST',
      url: '/api/notifications/phone/verify',
      headers: owner,
      payload: { code },
    });
    twilio.beUnavailable(1);
    const before = twilio.messages.length;
    await alert('Shed has gone silent');
    await context.services.notificationDelivery.deliverDue();
    expect(await deliveryOf('Shed has gone silent')).toMatchObject({
      status: 'queued',
      attempts: 1,
    });
    context.clock.set(new Date(context.clock.now().getTime() + 30_000).toISOString());
    await context.services.notificationDelivery.deliverDue();
    await context.services.notificationDelivery.deliverDue();
    expect(twilio.messages.length).toBe(before + 1);
    expect((await deliveryOf('Shed has gone silent'))!.status).toBe('sent');
  });

  it('says the code could not be sent while Twilio is down, and keeps no half-made code', async () => {
    twilio.beUnavailable(5);
    const answer = await context.app.inject({
      method: 'POST',
      url: '/api/notifications/phone',
      headers: owner,
      payload: { phone: '07700 900125' },
    });
    expect(answer.statusCode).toBe(503);
    expect(answer.json().message).toBe(
      'We could not send the text message just now. Please try again in a few minutes.',
    );
    expect((await settings()).pendingPhone).toBeNull();
    twilio.beUnavailable(0);
  });
});
