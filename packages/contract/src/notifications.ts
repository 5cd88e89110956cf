import { z } from 'zod';

/**
 * Each kind of alert a person chooses channels for (decision 122). Camera silence covers the
 * silence and the back-again message; livestream clips the no-clip alert, clips arriving again
 * and the warning before an unused livestream is switched off; payment the failed payment and the
 * end of dunning.
 */
export const notificationKinds = [
  'camera-silence',
  'livestream-clips',
  'data-share',
  'data-paused',
  'spend',
  'payment',
  'team',
] as const;
export const notificationKind = z.enum(notificationKinds);
export type NotificationKind = z.infer<typeof notificationKind>;

/** "HH:MM", UK time. */
const ukTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Give a time as HH:MM, for example 22:00.');

export const notificationChoice = z.object({
  kind: notificationKind,
  email: z.boolean(),
  push: z.boolean(),
  sms: z.boolean(),
  overridesQuietHours: z
    .boolean()
    .describe('Push and SMS of this kind are sent during quiet hours too (urgent)'),
});
export type NotificationChoice = z.infer<typeof notificationChoice>;

export const quietHours = z
  .object({ start: ukTime, end: ukTime })
  .describe('UK time; push and SMS wait until the end unless the alert overrides them');
export type QuietHours = z.infer<typeof quietHours>;

export const notificationSettingsBody = z.object({
  choices: z.array(notificationChoice).min(1).max(20),
  quietHours: quietHours.nullable(),
});
export type NotificationSettingsBody = z.infer<typeof notificationSettingsBody>;

export const notificationSettingsResponse = z.object({
  choices: z.array(
    notificationChoice.extend({
      title: z.string(),
      description: z.string(),
      isUrgentByDefault: z.boolean(),
    }),
  ),
  quietHours: quietHours.nullable(),
  phone: z
    .object({
      number: z.string().describe('E.164, +44…'),
      display: z.string().describe('As a farmer writes it: 07700 900123'),
      isStopped: z.boolean().describe('The person replied STOP: no SMS until START'),
      stoppedAt: z.string().nullable(),
    })
    .nullable()
    .describe('The verified phone for SMS'),
  pendingPhone: z
    .object({ display: z.string(), expiresAt: z.string() })
    .nullable()
    .describe('A number waiting for its code'),
  push: z.object({
    isAvailable: z.boolean().describe('Push is configured on this server (VAPID keys)'),
    publicKey: z.string().nullable().describe('The VAPID public key the browser subscribes with'),
    devices: z.array(
      z.object({
        id: z.string(),
        label: z.string(),
        createdAt: z.string(),
        lastSuccessAt: z.string().nullable(),
        endpoint: z.string().describe('So this browser can tell its own subscription'),
      }),
    ),
  }),
  sms: z.object({
    isAvailable: z.boolean().describe('SMS is configured on this server'),
    dailyLimit: z.number().int(),
    sentToday: z.number().int(),
  }),
  recentFailures: z
    .array(
      z.object({
        at: z.string(),
        channel: z.enum(['push', 'sms']),
        title: z.string(),
        reason: z.string(),
      }),
    )
    .describe('Push and SMS alerts of the last 7 days that did not arrive, newest first'),
  cameras: z
    .array(z.object({ iccid: z.string(), name: z.string() }))
    .describe("The cameras the person reaches, each with its own thresholds on the camera's page"),
  canReceiveBillingAlerts: z.boolean(),
});
export type NotificationSettingsResponse = z.infer<typeof notificationSettingsResponse>;

export const pushSubscriptionBody = z.object({
  endpoint: z.url().max(1000),
  keys: z.object({
    p256dh: z.string().min(20).max(200),
    auth: z.string().min(8).max(100),
  }),
  label: z.string().trim().min(1).max(80).optional(),
});
export type PushSubscriptionBody = z.infer<typeof pushSubscriptionBody>;

export const pushDeviceParams = z.object({ deviceId: z.uuid() });

export const phoneBody = z.object({
  phone: z.string().max(40).describe('A UK mobile number: 07700 900123 or +44 7700 900123'),
});
export type PhoneBody = z.infer<typeof phoneBody>;

export const phoneCodeBody = z.object({
  code: z.string().trim().max(20).describe('The six digits sent by SMS'),
});
export type PhoneCodeBody = z.infer<typeof phoneCodeBody>;

export const testNotificationBody = z.object({ channel: z.enum(['push', 'sms']) });
export type TestNotificationBody = z.infer<typeof testNotificationBody>;
