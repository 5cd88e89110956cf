/**
 * Delivering push and SMS alerts (decisions 123, 124): the workers claim due rows of
 * `notification_deliveries` (several workers split them, FOR UPDATE SKIP LOCKED), hand each to
 * the push service or the SMS provider, and record the answer. A provider that fails is tried
 * again after 30 s, 2, 10 and 30 minutes, then the alert is marked failed (shown on the person's
 * Notifications page); a device the push service no longer knows (404/410) is forgotten. A row
 * is claimed before it is sent and settled after, so it goes once; a worker that dies between
 * the send and the record leaves a claim that is taken again after 5 minutes (sent twice rather
 * than never, as decisions 077 and 104 choose).
 *
 * SMS: at most SMS_DAILY_LIMIT_PER_PERSON a UK day per person; the rest are summarised in one
 * e-mail (at most one an hour). Twilio's status callbacks and STOP/START replies arrive here.
 */
import { dayMs } from '@farmcam/contract/rules';
import type { Logger } from 'pino';
import type { Database } from '../../db/client.ts';
import { businessDay, businessDayStart } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { formatUkTime } from '@farmcam/contract/rules';
import { renderEmail, type Mailer } from '../../providers/mail/mail.ts';
import { SmsRefusedError, type Messaging } from '../../providers/messaging/messaging.ts';
import type { PushSender } from '../../providers/push/push.ts';
import { notificationKindDefinitions } from './notification-kinds.ts';
import {
  notificationsRepository as repository,
  type DeliveryRow,
  type DeliveryUpdate,
} from './notifications.repository.ts';
import { pushEndpointRefusal } from './push-endpoint.rules.ts';

/** Where Twilio reports each text's fate, and where replies to our number arrive. */
export const twilioStatusPath = '/api/webhooks/twilio/sms-status';
export const twilioInboundPath = '/api/webhooks/twilio/sms-inbound';

/** Waits before each retry; after the last, the alert has failed. */
export const deliveryRetryDelaysMs = [30_000, 120_000, 600_000, 1_800_000] as const;
/** A claim older than this belongs to a worker that died: taken again. */
const claimTimeoutMs = 5 * 60_000;
const claimBatch = 50;
/** A push not shown within this long is worth nothing (the phone was off all day). */
const pushTtlSeconds = 12 * 3600;
const summaryIntervalMs = 3_600_000;

export interface DeliveryDependencies {
  db: Database;
  clock: Clock;
  push: PushSender;
  messaging: Messaging;
  mailer: Mailer;
  publicUrl: string;
  smsDailyLimit: number;
  /** Push endpoints on this machine or a private network (development and tests only). */
  allowPrivatePushEndpoints: boolean;
  log: Pick<Logger, 'warn' | 'error'>;
  /** Counted per channel and outcome (farmcam_notification_deliveries_total). */
  onSettled?: (channel: 'push' | 'sms', outcome: DeliveryOutcome) => void;
}

export type DeliveryOutcome = 'sent' | 'failed' | 'retry' | 'gone' | 'over-limit' | 'skipped';

/** Twilio's delivery error codes, said for a farmer. */
const smsErrorSentences: Record<string, string> = {
  '30003': 'The phone was switched off or out of signal for too long.',
  '30004': 'The phone blocks messages from us.',
  '30005': 'The mobile network does not know this number.',
  '30006': 'This number is a landline or cannot receive texts.',
  '30007': 'The mobile network filtered the message.',
  '30008': 'The mobile network could not deliver the message.',
  '21610': 'This phone replied STOP, so texts are not sent to it.',
};

/** Words people reply with to stop and restart texts (Twilio's defaults). */
const stopWords = new Set([
  'STOP',
  'STOPALL',
  'UNSUBSCRIBE',
  'CANCEL',
  'END',
  'QUIT',
  'REVOKE',
  'OPTOUT',
]);
const startWords = new Set(['START', 'YES', 'UNSTOP']);

/** The SMS text of an alert: short enough for one message, with the address of its page. */
export const smsText = (publicUrl: string, row: { title: string; path: string }) =>
  `Farmcam: ${row.title}. ${publicUrl}${row.path}`;

export function createNotificationDelivery(deps: DeliveryDependencies) {
  const { db, clock } = deps;

  function claimDue(): Promise<DeliveryRow[]> {
    const now = clock.now();
    return repository.claimDueDeliveries(db, {
      now,
      staleBefore: new Date(now.getTime() - claimTimeoutMs),
      limit: claimBatch,
    });
  }

  async function settle(row: DeliveryRow, outcome: DeliveryOutcome, fields: DeliveryUpdate = {}) {
    const now = clock.now();
    let update: DeliveryUpdate;
    if (outcome === 'retry') {
      const delay = deliveryRetryDelaysMs[row.attempts - 1];
      update =
        delay === undefined
          ? { status: 'failed', error: fields.error ?? 'It could not be sent.' }
          : { status: 'queued', dueAt: new Date(now.getTime() + delay), ...fields };
      if (delay === undefined) outcome = 'failed';
    } else {
      update = {
        status:
          outcome === 'gone'
            ? 'failed'
            : outcome === 'over-limit'
              ? 'over-limit'
              : outcome === 'skipped'
                ? 'skipped'
                : outcome === 'failed'
                  ? 'failed'
                  : 'sent',
        ...fields,
      };
    }
    await repository.settleDelivery(db, row, update);
    deps.onSettled?.(row.channel, outcome);
  }

  async function deliverPush(row: DeliveryRow) {
    if (!deps.push.isAvailable)
      return settle(row, 'skipped', { error: 'Push is switched off on this server.' });
    const target = row.pushSubscriptionId
      ? await repository.findPushDevice(db, row.pushSubscriptionId)
      : undefined;
    if (!target) return settle(row, 'skipped', { error: 'The device was removed.' });
    // A device kept from before endpoints were checked (decision 123) is not posted to.
    if (
      pushEndpointRefusal(target.endpoint, { allowPrivateHosts: deps.allowPrivatePushEndpoints })
    ) {
      await repository.forgetPushDevice(db, target.id);
      return settle(row, 'gone', {
        error: `${target.label} gave a push address we cannot send to, so it was removed. Turn push on again on that device.`,
      });
    }
    try {
      const answer = await deps.push.send(
        target,
        { title: row.title, body: row.body, path: row.path, tag: `${row.kind}:${row.path}` },
        {
          ttlSeconds: pushTtlSeconds,
          isUrgent:
            notificationKindDefinitions[row.kind as keyof typeof notificationKindDefinitions]
              ?.isUrgentByDefault ?? false,
        },
      );
      if (answer.kind === 'sent') {
        await repository.markPushDelivered(db, target.id, clock.now());
        return settle(row, 'sent', { sentAt: clock.now(), error: null });
      }
      if (answer.kind === 'gone') {
        await repository.forgetPushDevice(db, target.id);
        return settle(row, 'gone', {
          error: `${target.label} no longer accepts notifications, so it was removed. Turn push on again on that device.`,
        });
      }
      return settle(row, 'failed', { error: answer.reason });
    } catch (error) {
      deps.log.warn({ err: error }, 'A push service could not be reached; the push is tried again');
      return settle(row, 'retry', { error: 'The push service could not be reached.' });
    }
  }

  const smsSentToday = (personId: string) =>
    repository.smsSentSince(db, personId, businessDayStart(businessDay(clock.now())));

  async function deliverSms(row: DeliveryRow) {
    if (!deps.messaging.isAvailable)
      return settle(row, 'skipped', { error: 'Text messages are switched off on this server.' });
    const person = await repository.findPersonById(db, row.personId);
    if (
      !person ||
      person.phone === null ||
      person.phoneVerifiedAt === null ||
      person.phone !== row.phone
    ) {
      return settle(row, 'skipped', { error: 'The phone number was removed or changed.' });
    }
    if (person.smsStoppedAt !== null) {
      return settle(row, 'skipped', {
        error: 'This phone replied STOP: reply START to get texts again.',
      });
    }
    if ((await smsSentToday(row.personId)) >= deps.smsDailyLimit) {
      return settle(row, 'over-limit', {
        error: `Over today's ${deps.smsDailyLimit} text messages: sent by e-mail instead.`,
      });
    }
    try {
      const sent = await deps.messaging.send({
        to: person.phone,
        body: smsText(deps.publicUrl, row),
        ...(deps.messaging.kind === 'twilio'
          ? { statusCallbackUrl: `${deps.publicUrl}${twilioStatusPath}` }
          : {}),
      });
      return settle(row, 'sent', {
        sentAt: clock.now(),
        providerMessageId: sent.id,
        error: null,
        ...(sent.status === 'delivered' ? { status: 'delivered' as const } : {}),
      });
    } catch (error) {
      if (error instanceof SmsRefusedError) {
        if (error.isOptedOut) await repository.stopPersonsSms(db, person.id, clock.now());
        return settle(row, 'failed', { error: error.reason });
      }
      deps.log.warn(
        { err: error },
        'The SMS provider could not be reached; the text is tried again',
      );
      return settle(row, 'retry', { error: 'The text message service could not be reached.' });
    }
  }

  /** One e-mail per person listing the SMS alerts over their daily limit, at most one an hour. */
  async function summariseOverLimit(): Promise<number> {
    const now = clock.now();
    const people = await repository.peopleOwedSmsSummary(
      db,
      new Date(now.getTime() - summaryIntervalMs),
    );
    let sent = 0;
    for (const person of people) {
      const rows = await repository.unsummarisedOverLimit(db, person.person_id);
      if (rows.length === 0) continue;
      const subject =
        rows.length === 1
          ? `1 alert we did not text you: ${rows[0]!.title}`
          : `${rows.length} alerts we did not text you today`;
      try {
        await deps.mailer.send(
          renderEmail({
            kind: 'other',
            to: person.email,
            subject,
            heading: 'Alerts over your daily text messages',
            paragraphs: [
              `You get at most ${deps.smsDailyLimit} text messages a day from Farmcam. These alerts came after that, so here they are by e-mail:`,
              ...rows.map(
                (row) =>
                  `${formatUkTime(row.createdAt)}: ${row.title}. ${row.body} ${deps.publicUrl}${row.path}`,
              ),
              'Texts start again tomorrow. You can choose which alerts are texted on your Notifications page.',
            ],
            action: { label: 'Open Notifications', url: `${deps.publicUrl}/notifications` },
          }),
        );
      } catch (error) {
        deps.log.warn({ err: error }, 'Could not send the summary of texts over the daily limit');
        continue;
      }
      await repository.markSummarised(
        db,
        person.person_id,
        rows.map((row) => row.id),
        now,
      );
      sent += 1;
    }
    return sent;
  }

  return {
    /** One pass: every due push and SMS (in batches of 50), then the over-limit summaries. */
    async deliverDue(): Promise<{ delivered: number; summaries: number }> {
      let delivered = 0;
      for (let batch = await claimDue(); batch.length > 0; batch = await claimDue()) {
        for (const row of batch) {
          if (row.channel === 'push') await deliverPush(row);
          else await deliverSms(row);
          delivered += 1;
        }
      }
      return { delivered, summaries: await summariseOverLimit() };
    },

    /** Twilio's status callback (or the local provider's): the SMS's fate on the network. */
    async recordSmsStatus(input: {
      messageId: string;
      status: string;
      errorCode?: string | undefined;
    }) {
      const failed = input.status === 'failed' || input.status === 'undelivered';
      if (!failed && input.status !== 'delivered') return;
      // A late "delivered" never hides a failure, nor a failure a delivery.
      await repository.recordSmsOutcome(
        db,
        input.messageId,
        failed
          ? {
              status: 'failed',
              error:
                (input.errorCode && smsErrorSentences[input.errorCode]) ??
                `The mobile network could not deliver the message${input.errorCode ? ` (error ${input.errorCode})` : ''}.`,
            }
          : { status: 'delivered' },
      );
    },

    /** A reply to our number: STOP holds every text to that phone until START. */
    async recordSmsReply(input: {
      from: string;
      body: string;
    }): Promise<'stopped' | 'started' | 'ignored'> {
      const word = input.body.trim().toUpperCase();
      const isStop = stopWords.has(word);
      if (!isStop && !startWords.has(word)) return 'ignored';
      const now = clock.now();
      const people = await repository.setSmsStoppedByPhone(
        db,
        input.from,
        isStop ? now : null,
        now,
      );
      if (isStop && people.length > 0) {
        await repository.skipQueuedSms(
          db,
          people.map((person) => person.id),
          'This phone replied STOP.',
        );
      }
      return isStop ? 'stopped' : 'started';
    },

    /** Settled rows are kept 30 days (the page shows a week of failures). */
    async purgeOld(): Promise<number> {
      return repository.purgeSettledBefore(db, new Date(clock.now().getTime() - 30 * dayMs));
    },
  };
}

export type NotificationDelivery = ReturnType<typeof createNotificationDelivery>;
