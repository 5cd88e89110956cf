/**
 * Web Push end to end against a push service of our own (test/fakes/fake-push-service.ts): the
 * VAPID signature and the RFC 8291 encryption checked with Node's crypto, the payload read back;
 * a device the push service no longer knows (404/410) forgotten; a failing push service retried
 * and the push sent once (decision 123).
 */
import type { NotificationSettingsResponse } from '@farmcam/contract';
import { eq } from 'drizzle-orm';
import webPush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakePushService,
  type FakePushService,
} from '../../../test/fakes/fake-push-service.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { customers, notificationDeliveries, pushSubscriptions } from '../../db/schema.ts';
import { lastProviderCalls } from '../../lib/provider-calls.ts';
import { renderEmail } from '../../providers/mail/mail.ts';
import { createWebPushSender } from '../../providers/push/web-push-sender.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';

let context: TestContext;
let pushService: FakePushService;
let owner: Record<string, string>;
let ownerId: string;
const keys = webPush.generateVAPIDKeys();
const topGate = demoIccid(101);

beforeAll(async () => {
  pushService = await startFakePushService();
  context = await createTestContext({}, undefined, () => ({
    push: createWebPushSender({
      ...keys,
      subject: 'mailto:support@farmcam.example',
      agent: pushService.agent,
    }),
  }));
  await seedDemoData(context.database.db, context.clock);
  const [row] = await context.database.db
    .select()
    .from(customers)
    .where(eq(customers.email, 'demo@example.com'));
  ownerId = row!.id;
  owner = bearer(await signInCustomer(context, 'demo@example.com'));
  await context.app.inject({
    method: 'PUT',
    url: '/api/notifications/settings',
    headers: owner,
    payload: {
      choices: [
        { kind: 'camera-silence', email: true, push: true, sms: false, overridesQuietHours: true },
        { kind: 'team', email: true, push: true, sms: false, overridesQuietHours: false },
      ],
      quietHours: null,
    },
  });
});
afterAll(async () => {
  await context.close();
  await pushService.close();
});

const subscribe = async () => {
  const subscription = pushService.subscribe();
  const answer = await context.app.inject({
    method: 'POST',
    url: '/api/notifications/push-devices',
    headers: { ...owner, 'user-agent': 'Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Mobile' },
    payload: subscription,
  });
  expect(answer.statusCode).toBe(200);
  return subscription;
};

const silenceAlert = () =>
  context.services.notifier.notify({
    kind: 'camera-silence',
    customerId: ownerId,
    iccid: topGate,
    email: (to) =>
      renderEmail({ to, subject: 'Top gate has gone silent', heading: 'x', paragraphs: [] }),
    short: {
      title: 'Top gate has gone silent',
      body: 'No data since 07:12.',
      path: `/camera/${topGate}`,
    },
  });

describe('push to a device', () => {
  it('offers the VAPID public key, and sends a signed, encrypted push a push service accepts', async () => {
    const settings = (
      await context.app.inject({
        method: 'GET',
        url: '/api/notifications/settings',
        headers: owner,
      })
    ).json<NotificationSettingsResponse>();
    expect(settings.push).toMatchObject({ isAvailable: true, publicKey: keys.publicKey });

    const subscription = await subscribe();
    await silenceAlert();
    await context.services.notificationDelivery.deliverDue();
    expect(pushService.refused).toEqual([]);
    expect(pushService.received).toHaveLength(1);
    const [push] = pushService.received;
    expect(push).toMatchObject({
      endpoint: subscription.endpoint,
      urgency: 'high',
      vapidPublicKey: keys.publicKey,
      claims: { aud: pushService.origin, sub: 'mailto:support@farmcam.example' },
    });
    expect(JSON.parse(push!.payload)).toEqual({
      title: 'Top gate has gone silent',
      body: 'No data since 07:12.',
      path: `/camera/${topGate}`,
      tag: `camera-silence:/camera/${topGate}`,
    });
    const [device] = await context.database.db.select().from(pushSubscriptions);
    expect(device).toMatchObject({ label: 'Chrome on Android' });
    expect(device!.lastSuccessAt).not.toBeNull();
    expect(lastProviderCalls().push.state).toBe('ok');
    // Settled once: another pass sends nothing more.
    await context.services.notificationDelivery.deliverDue();
    expect(pushService.received).toHaveLength(1);
  });

  it('forgets a device the push service says is gone (410, 404) and shows why', async () => {
    for (const status of [410, 404]) {
      const subscription = await subscribe();
      pushService.answerWith(subscription.endpoint, status);
      await silenceAlert();
      await context.services.notificationDelivery.deliverDue();
      const left = await context.database.db
        .select()
        .from(pushSubscriptions)
        .where(eq(pushSubscriptions.endpoint, subscription.endpoint));
      expect(left).toEqual([]);
    }
    const settings = (
      await context.app.inject({
        method: 'GET',
        url: '/api/notifications/settings',
        headers: owner,
      })
    ).json<NotificationSettingsResponse>();
    expect(settings.recentFailures[0]).toMatchObject({
      channel: 'push',
      title: 'Top gate has gone silent',
      reason:
        'Chrome on Android no longer accepts notifications, so it was removed. Turn push on again on that device.',
    });
  });

  it('tries a failing push service again later and sends the push once', async () => {
    await context.database.db.delete(pushSubscriptions);
    const subscription = await subscribe();
    pushService.answerWith(subscription.endpoint, 503);
    const before = pushService.received.length;
    await silenceAlert();
    await context.services.notificationDelivery.deliverDue();
    const [queued] = await context.database.db
      .select()
      .from(notificationDeliveries)
      .where(eq(notificationDeliveries.status, 'queued'));
    expect(queued).toMatchObject({ attempts: 1, error: 'The push service could not be reached.' });
    expect(queued!.dueAt.getTime() - context.clock.now().getTime()).toBe(30_000);
    expect(lastProviderCalls().push.state).toBe('failing');

    pushService.answerWith(subscription.endpoint, 0);
    await context.services.notificationDelivery.deliverDue();
    expect(pushService.received.length).toBe(before);
    context.clock.set(new Date(context.clock.now().getTime() + 30_000).toISOString());
    await context.services.notificationDelivery.deliverDue();
    await context.services.notificationDelivery.deliverDue();
    expect(pushService.received.length).toBe(before + 1);
  });
});
