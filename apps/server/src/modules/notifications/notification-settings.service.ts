/**
 * Each person's Notifications page (decision 122): their channels per kind of alert, quiet
 * hours, the devices that take push (decision 123) and the phone that takes SMS, verified by a
 * six-digit code (decision 124). A person sees and changes only their own settings in the account
 * they signed in to; the owner's are the owner's, each member's their own.
 */
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import {
  notificationKinds,
  type NotificationSettingsBody,
  type NotificationSettingsResponse,
  type PushSubscriptionBody,
} from '@farmcam/contract';
import { cameraNameOf, dayMs } from '@farmcam/contract/rules';
import type { Database } from '../../db/client.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import { businessDay, businessDayStart } from '../../lib/business-calendar.ts';
import { SmsRefusedError, type Messaging } from '../../providers/messaging/messaging.ts';
import type { PushSender } from '../../providers/push/push.ts';
import { withinCameras, type Access } from '../auth/access.ts';
import { defaultChoice, mayReceive, notificationKindDefinitions } from './notification-kinds.ts';
import { notificationsRepository as repository } from './notifications.repository.ts';
import { deliverNotificationsJobName } from './notifier.ts';
import { displayUkMobile, parseUkMobile } from './phone-number.ts';
import { minuteToTime, timeToMinute } from './quiet-hours.ts';
import { pushEndpointRefusal } from './push-endpoint.rules.ts';

/** The numbers of phone verification (decision 124). */
export const phoneVerificationPolicy = {
  codeMinutes: 10,
  attemptsPerCode: 5,
  sendsPerPersonPerHour: 3,
  sendsPerPersonPerDay: 6,
  sendsPerNumberPerDay: 6,
} as const;

export interface NotificationSettingsDependencies {
  db: Database;
  clock: Clock;
  push: PushSender;
  messaging: Messaging;
  rateLimiter: RateLimiter;
  jobQueue: JobQueue;
  smsDailyLimit: number;
  /** Push endpoints on this machine or a private network (development and tests only). */
  allowPrivatePushEndpoints: boolean;
}

/** As the alerts name a camera (its nickname, else the end of its SIM number). */

/** The kinds the Alerts card's "camera alert e-mails" switch stands for. */
const cameraAlertKinds = ['camera-silence', 'livestream-clips'] as const;

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

/** "Chrome on Android", from the subscribing browser's User-Agent, when it gave no label. */
export function deviceLabel(userAgent: string | undefined): string {
  const agent = userAgent ?? '';
  const browser = /Edg\//.test(agent)
    ? 'Edge'
    : /Firefox\//.test(agent)
      ? 'Firefox'
      : /Chrome\/|Chromium\//.test(agent)
        ? 'Chrome'
        : /Safari\//.test(agent)
          ? 'Safari'
          : 'Browser';
  const system = /Android/.test(agent)
    ? 'Android'
    : /iPhone|iPad/.test(agent)
      ? 'iPhone'
      : /Windows/.test(agent)
        ? 'Windows'
        : /Mac OS X/.test(agent)
          ? 'Mac'
          : /Linux/.test(agent)
            ? 'Linux'
            : 'this device';
  return `${browser} on ${system}`;
}

export function createNotificationSettingsService(deps: NotificationSettingsDependencies) {
  const { db, clock } = deps;

  /** Only a salted hash of a code is kept ("salt:hmac"); it lives minutes and allows 5 tries. */
  const codeHash = (salt: string, personId: string, phone: string, code: string) =>
    createHmac('sha256', salt).update(`${personId}:${phone}:${code}`).digest('hex');

  const personOf = (customerId: string, access: Access) =>
    repository.ensurePerson(db, customerId, access.memberId);

  async function camerasOf(customerId: string, access: Access) {
    const rows = await repository.accountCameras(db, customerId);
    return withinCameras(access, rows, (row) => row.iccid).map((row) => ({
      iccid: row.iccid,
      name: cameraNameOf(row.nickname, row.iccid),
    }));
  }

  return {
    async getSettings(customerId: string, access: Access): Promise<NotificationSettingsResponse> {
      const person = await repository.findPerson(db, customerId, access.memberId);
      const isOwner = access.memberId === null;
      const preferences = person ? await repository.preferencesOf(db, person.id) : [];
      const byKind = new Map(preferences.map((row) => [row.kind, row]));
      const devices = person ? await repository.pushDevicesOf(db, person.id) : [];
      const now = clock.now();
      const pending = person ? await repository.pendingPhoneOf(db, person.id) : undefined;
      const failures = person
        ? await repository.failuresSince(db, person.id, new Date(now.getTime() - 7 * dayMs), 20)
        : [];
      const sentToday = person
        ? await repository.smsSentSince(db, person.id, businessDayStart(businessDay(now)))
        : 0;
      return {
        choices: notificationKinds
          .filter((kind) => mayReceive(access.role, kind))
          .map((kind) => {
            const saved = byKind.get(kind);
            const definition = notificationKindDefinitions[kind];
            return {
              kind,
              ...(saved
                ? {
                    email: saved.email,
                    push: saved.push,
                    sms: saved.sms,
                    overridesQuietHours: saved.overridesQuietHours,
                  }
                : defaultChoice(isOwner, kind)),
              title: definition.title,
              description: definition.description,
              isUrgentByDefault: definition.isUrgentByDefault,
            };
          }),
        quietHours:
          person && person.quietStartMinute !== null && person.quietEndMinute !== null
            ? {
                start: minuteToTime(person.quietStartMinute),
                end: minuteToTime(person.quietEndMinute),
              }
            : null,
        phone:
          person?.phone && person.phoneVerifiedAt
            ? {
                number: person.phone,
                display: displayUkMobile(person.phone),
                isStopped: person.smsStoppedAt !== null,
                stoppedAt: iso(person.smsStoppedAt),
              }
            : null,
        pendingPhone:
          pending && pending.expiresAt > now
            ? {
                display: displayUkMobile(pending.phone),
                expiresAt: pending.expiresAt.toISOString(),
              }
            : null,
        push: {
          isAvailable: deps.push.isAvailable,
          publicKey: deps.push.publicKey,
          devices: devices.map((device) => ({
            id: device.id,
            label: device.label,
            createdAt: device.createdAt.toISOString(),
            lastSuccessAt: iso(device.lastSuccessAt),
            endpoint: device.endpoint,
          })),
        },
        sms: {
          isAvailable: deps.messaging.isAvailable,
          dailyLimit: deps.smsDailyLimit,
          sentToday,
        },
        recentFailures: failures.map((row) => ({
          at: row.createdAt.toISOString(),
          channel: row.channel,
          title: row.title,
          reason: row.error ?? 'It could not be delivered.',
        })),
        cameras: await camerasOf(customerId, access),
        canReceiveBillingAlerts: mayReceive(access.role, 'payment'),
      };
    },

    async saveSettings(customerId: string, access: Access, body: NotificationSettingsBody) {
      const kinds = body.choices.map((choice) => choice.kind);
      if (new Set(kinds).size !== kinds.length) {
        throw new AppError('VALIDATION_FAILED', 'Each kind of alert may be given once.');
      }
      const notMine = body.choices.find((choice) => !mayReceive(access.role, choice.kind));
      if (notMine) {
        throw new AppError(
          'FORBIDDEN',
          `Only the account owner receives “${notificationKindDefinitions[notMine.kind].title}” alerts.`,
        );
      }
      if (body.quietHours && body.quietHours.start === body.quietHours.end) {
        throw new AppError(
          'VALIDATION_FAILED',
          'Quiet hours need a different start and end, for example 22:00 to 07:00.',
        );
      }
      await db.transaction(async (transaction) => {
        const person = await repository.ensurePerson(transaction, customerId, access.memberId);
        const now = clock.now();
        await repository.saveQuietHours(
          transaction,
          person.id,
          body.quietHours
            ? {
                startMinute: timeToMinute(body.quietHours.start),
                endMinute: timeToMinute(body.quietHours.end),
              }
            : null,
          now,
        );
        for (const choice of body.choices) {
          await repository.savePreference(transaction, {
            personId: person.id,
            kind: choice.kind,
            choice: {
              email: choice.email,
              push: choice.push,
              sms: choice.sms,
              overridesQuietHours: choice.overridesQuietHours,
            },
            now,
          });
        }
      });
      return this.getSettings(customerId, access);
    },

    /** One subscription per device: an endpoint seen before moves to this person. */
    async addPushDevice(
      customerId: string,
      access: Access,
      body: PushSubscriptionBody,
      userAgent: string | undefined,
    ) {
      if (!deps.push.isAvailable) {
        throw new AppError(
          'UNPROCESSABLE',
          'Push notifications are not switched on for this portal yet.',
        );
      }
      const refusal = pushEndpointRefusal(body.endpoint, {
        allowPrivateHosts: deps.allowPrivatePushEndpoints,
      });
      if (refusal) throw new AppError('VALIDATION_FAILED', refusal);
      const person = await personOf(customerId, access);
      await repository.savePushDevice(db, {
        endpoint: body.endpoint,
        personId: person.id,
        p256dh: body.keys.p256dh,
        auth: body.keys.auth,
        label: body.label ?? deviceLabel(userAgent),
      });
      return this.getSettings(customerId, access);
    },

    async removePushDevice(customerId: string, access: Access, deviceId: string) {
      const person = await repository.findPerson(db, customerId, access.memberId);
      const isRemoved =
        person !== undefined && (await repository.removePersonsPushDevice(db, person.id, deviceId));
      if (!isRemoved) throw notFound('That device is not one of yours.');
      return this.getSettings(customerId, access);
    },

    /** Sends a six-digit code to the number; the number is used once the code comes back. */
    async startPhoneVerification(customerId: string, access: Access, phoneText: string) {
      if (!deps.messaging.isAvailable) {
        throw new AppError(
          'UNPROCESSABLE',
          'Text messages are not switched on for this portal yet.',
        );
      }
      const parsed = parseUkMobile(phoneText);
      if (!parsed.isValid) throw new AppError('VALIDATION_FAILED', parsed.message);
      const person = await personOf(customerId, access);
      const policy = phoneVerificationPolicy;
      const tooMany = 'We have sent several codes already. Please wait before asking for another.';
      await deps.rateLimiter.consumeAll([
        {
          key: `phone-code:person:${person.id}`,
          limit: policy.sendsPerPersonPerHour,
          windowSeconds: 3600,
          message: tooMany,
        },
        {
          key: `phone-code:person-day:${person.id}`,
          limit: policy.sendsPerPersonPerDay,
          windowSeconds: 86_400,
          message: tooMany,
        },
        {
          key: `phone-code:number:${parsed.e164}`,
          limit: policy.sendsPerNumberPerDay,
          windowSeconds: 86_400,
          message:
            'This number has been sent several codes today already. Please try again tomorrow.',
        },
      ]);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const salt = randomBytes(16).toString('hex');
      const now = clock.now();
      await repository.savePendingPhone(db, person.id, {
        phone: parsed.e164,
        codeHash: `${salt}:${codeHash(salt, person.id, parsed.e164, code)}`,
        expiresAt: new Date(now.getTime() + policy.codeMinutes * 60_000),
        attempts: 0,
        createdAt: now,
      });
      try {
        await deps.messaging.send({
          to: parsed.e164,
          body: `Your Farmcam code is ${code}. It works for ${policy.codeMinutes} minutes. If you did not ask for it, ignore this message.`,
        });
      } catch (error) {
        await repository.forgetPendingPhone(db, person.id);
        if (error instanceof SmsRefusedError) throw new AppError('UNPROCESSABLE', error.reason);
        throw new AppError(
          'PROVIDER_UNAVAILABLE',
          'We could not send the text message just now. Please try again in a few minutes.',
        );
      }
      return this.getSettings(customerId, access);
    },

    async confirmPhone(customerId: string, access: Access, codeText: string) {
      const person = await personOf(customerId, access);
      const pending = await repository.pendingPhoneOf(db, person.id);
      const now = clock.now();
      if (!pending || pending.expiresAt <= now) {
        throw new AppError('UNPROCESSABLE', 'That code has expired. Please ask for a new one.');
      }
      if (pending.attempts >= phoneVerificationPolicy.attemptsPerCode) {
        throw new AppError('UNPROCESSABLE', 'Too many wrong codes. Please ask for a new one.');
      }
      const code = codeText.replace(/\s/g, '');
      if (!/^\d{6}$/.test(code)) {
        throw new AppError('VALIDATION_FAILED', 'The code is the six digits in the text message.');
      }
      // Counted before comparing, so parallel guesses cannot exceed the attempts.
      const triesUsed = await repository.countPhoneCodeTry(
        db,
        person.id,
        phoneVerificationPolicy.attemptsPerCode,
      );
      if (triesUsed === undefined)
        throw new AppError('UNPROCESSABLE', 'Too many wrong codes. Please ask for a new one.');
      const [salt = '', stored = ''] = pending.codeHash.split(':');
      const expected = Buffer.from(stored, 'hex');
      const actual = Buffer.from(codeHash(salt, person.id, pending.phone, code), 'hex');
      if (!timingSafeEqual(expected, actual)) {
        const left = phoneVerificationPolicy.attemptsPerCode - triesUsed;
        throw new AppError(
          'UNPROCESSABLE',
          left > 0
            ? `That is not the code we sent. ${left === 1 ? 'One try' : `${left} tries`} left.`
            : 'Too many wrong codes. Please ask for a new one.',
        );
      }
      await db.transaction(async (transaction) => {
        await repository.setPhone(transaction, person.id, pending.phone, now);
        await repository.forgetPendingPhone(transaction, person.id);
      });
      return this.getSettings(customerId, access);
    },

    async removePhone(customerId: string, access: Access) {
      const person = await repository.findPerson(db, customerId, access.memberId);
      if (person) {
        await db.transaction(async (transaction) => {
          await repository.setPhone(transaction, person.id, null, clock.now());
          await repository.forgetPendingPhone(transaction, person.id);
        });
      }
      return this.getSettings(customerId, access);
    },

    /** The Alerts card's switch: e-mail for the camera alerts (silence, livestream clips). */
    cameraAlertEmails: {
      async get(customerId: string, access: Access): Promise<boolean> {
        const person = await repository.findPerson(db, customerId, access.memberId);
        const saved = person
          ? await repository.preferenceOf(db, person.id, 'camera-silence')
          : undefined;
        return saved?.email ?? defaultChoice(access.memberId === null, 'camera-silence').email;
      },
      async set(customerId: string, access: Access, isOn: boolean): Promise<void> {
        const person = await personOf(customerId, access);
        const now = clock.now();
        for (const kind of cameraAlertKinds) {
          await repository.saveEmailChoice(db, {
            personId: person.id,
            kind,
            isOn,
            otherwise: defaultChoice(access.memberId === null, kind),
            now,
          });
        }
      },
    },

    /** A test message to the person's own devices or phone, now (quiet hours do not apply). */
    async sendTest(customerId: string, access: Access, channel: 'push' | 'sms') {
      const person = await personOf(customerId, access);
      await deps.rateLimiter.consume({
        key: `notification-test:${person.id}`,
        limit: 10,
        windowSeconds: 3600,
        message: 'We have sent several test messages already. Please wait a while.',
      });
      const common = {
        personId: person.id,
        kind: 'test',
        title: 'Test from Farmcam',
        body: 'Alerts will arrive like this.',
        path: '/notifications',
        dueAt: clock.now(),
      };
      if (channel === 'push') {
        const devices = await repository.pushDevicesOf(db, person.id);
        if (devices.length === 0) {
          throw new AppError('UNPROCESSABLE', 'Turn on push on this device first.');
        }
        await repository.queueDeliveries(
          db,
          devices.map((device) => ({
            ...common,
            channel: 'push' as const,
            pushSubscriptionId: device.id,
          })),
        );
      } else {
        if (!person.phone || !person.phoneVerifiedAt) {
          throw new AppError('UNPROCESSABLE', 'Add and verify your mobile number first.');
        }
        if (person.smsStoppedAt) {
          throw new AppError(
            'UNPROCESSABLE',
            'Your phone replied STOP. Reply START to our number to get texts again.',
          );
        }
        await repository.queueDeliveries(db, [{ ...common, channel: 'sms', phone: person.phone }]);
      }
      await deps.jobQueue.send(deliverNotificationsJobName, {});
      return { queued: true };
    },
  };
}

export type NotificationSettingsService = ReturnType<typeof createNotificationSettingsService>;
