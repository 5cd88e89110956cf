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
import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { queryRows, type Database } from '../../db/client.ts';
import { notificationDeliveries, notificationPeople, pushSubscriptions } from '../../db/schema.ts';
import { businessDay, businessDayStart } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { formatUkTime } from '@farmcam/contract/rules';
import { renderEmail, type Mailer } from '../../providers/mail/mail.ts';
import { SmsRefusedError, type Messaging } from '../../providers/messaging/messaging.ts';
import type { PushSender } from '../../providers/push/push.ts';
import { notificationKindDefinitions } from './notification-kinds.ts';

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

type DeliveryRow = typeof notificationDeliveries.$inferSelect;

export interface DeliveryDependencies {
  db: Database;
  clock: Clock;
  push: PushSender;
  messaging: Messaging;
  mailer: Mailer;
  publicUrl: string;
  smsDailyLimit: number;
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

  async function claimDue(): Promise<DeliveryRow[]> {
    const now = clock.now();
    const staleBefore = new Date(now.getTime() - claimTimeoutMs);
    const claimed = await queryRows<{ id: string }>(
      db,
      sql`update notification_deliveries set claimed_at = ${now.toISOString()}, attempts = attempts + 1
          where id in (
            select id from notification_deliveries
            where status = 'queued' and due_at <= ${now.toISOString()}
              and (claimed_at is null or claimed_at < ${staleBefore.toISOString()})
            order by due_at limit ${claimBatch}
            for update skip locked)
          returning id`,
    );
    if (claimed.length === 0) return [];
    return db
      .select()
      .from(notificationDeliveries)
      .where(
        inArray(
          notificationDeliveries.id,
          claimed.map((row) => row.id),
        ),
      );
  }

  async function settle(
    row: DeliveryRow,
    outcome: DeliveryOutcome,
    fields: Partial<typeof notificationDeliveries.$inferInsert> = {},
  ) {
    const now = clock.now();
    let update: Partial<typeof notificationDeliveries.$inferInsert>;
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
    // Only the claim's holder settles the row (a worker that overran its claim does not).
    await db
      .update(notificationDeliveries)
      .set({ ...update, claimedAt: null })
      .where(
        and(
          eq(notificationDeliveries.id, row.id),
          eq(notificationDeliveries.claimedAt, row.claimedAt!),
        ),
      );
    deps.onSettled?.(row.channel, outcome);
  }

  async function deliverPush(row: DeliveryRow) {
    if (!deps.push.isAvailable)
      return settle(row, 'skipped', { error: 'Push is switched off on this server.' });
    const [target] = row.pushSubscriptionId
      ? await db
          .select()
          .from(pushSubscriptions)
          .where(eq(pushSubscriptions.id, row.pushSubscriptionId))
      : [];
    if (!target) return settle(row, 'skipped', { error: 'The device was removed.' });
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
        await db
          .update(pushSubscriptions)
          .set({ lastSuccessAt: clock.now() })
          .where(eq(pushSubscriptions.id, target.id));
        return settle(row, 'sent', { sentAt: clock.now(), error: null });
      }
      if (answer.kind === 'gone') {
        await db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, target.id));
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

  async function smsSentToday(personId: string): Promise<number> {
    const dayStart = businessDayStart(businessDay(clock.now()));
    const [row] = await queryRows<{ count: number | string }>(
      db,
      sql`select count(*) as count from notification_deliveries
          where person_id = ${personId} and channel = 'sms' and sent_at >= ${dayStart.toISOString()}`,
    );
    return Number(row?.count ?? 0);
  }

  async function deliverSms(row: DeliveryRow) {
    if (!deps.messaging.isAvailable)
      return settle(row, 'skipped', { error: 'Text messages are switched off on this server.' });
    const [person] = await db
      .select()
      .from(notificationPeople)
      .where(eq(notificationPeople.id, row.personId));
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
        if (error.isOptedOut) {
          await db
            .update(notificationPeople)
            .set({ smsStoppedAt: clock.now() })
            .where(eq(notificationPeople.id, person.id));
        }
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
    const people = await queryRows<{ person_id: string; email: string }>(
      db,
      sql`select distinct d.person_id, coalesce(m.email, c.email) as email
          from notification_deliveries d
          join notification_people p on p.id = d.person_id
          join customers c on c.id = p.customer_id
          left join account_members m on m.id = p.member_id
          where d.status = 'over-limit' and d.summarised_at is null
            and (p.sms_summary_sent_at is null
              or p.sms_summary_sent_at < ${new Date(now.getTime() - summaryIntervalMs).toISOString()})`,
    );
    let sent = 0;
    for (const person of people) {
      const rows = await db
        .select()
        .from(notificationDeliveries)
        .where(
          and(
            eq(notificationDeliveries.personId, person.person_id),
            eq(notificationDeliveries.status, 'over-limit'),
            isNull(notificationDeliveries.summarisedAt),
          ),
        )
        .orderBy(notificationDeliveries.createdAt);
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
      await db
        .update(notificationDeliveries)
        .set({ summarisedAt: now })
        .where(
          inArray(
            notificationDeliveries.id,
            rows.map((row) => row.id),
          ),
        );
      await db
        .update(notificationPeople)
        .set({ smsSummarySentAt: now })
        .where(eq(notificationPeople.id, person.person_id));
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
      await db
        .update(notificationDeliveries)
        .set(
          failed
            ? {
                status: 'failed',
                error:
                  (input.errorCode && smsErrorSentences[input.errorCode]) ??
                  `The mobile network could not deliver the message${input.errorCode ? ` (error ${input.errorCode})` : ''}.`,
              }
            : { status: 'delivered' },
        )
        .where(
          and(
            eq(notificationDeliveries.providerMessageId, input.messageId),
            // A late "delivered" never hides a failure, nor a failure a delivery.
            eq(notificationDeliveries.status, 'sent'),
          ),
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
      const people = await db
        .update(notificationPeople)
        .set({ smsStoppedAt: isStop ? now : null, updatedAt: now })
        .where(
          and(
            eq(notificationPeople.phone, input.from),
            isNotNull(notificationPeople.phoneVerifiedAt),
          ),
        )
        .returning({ id: notificationPeople.id });
      if (isStop && people.length > 0) {
        await db
          .update(notificationDeliveries)
          .set({ status: 'skipped', error: 'This phone replied STOP.' })
          .where(
            and(
              inArray(
                notificationDeliveries.personId,
                people.map((person) => person.id),
              ),
              eq(notificationDeliveries.channel, 'sms'),
              eq(notificationDeliveries.status, 'queued'),
            ),
          );
      }
      return isStop ? 'stopped' : 'started';
    },

    /** Settled rows are kept 30 days (the page shows a week of failures). */
    async purgeOld(): Promise<number> {
      const before = new Date(clock.now().getTime() - 30 * dayMs);
      const rows = await queryRows<{ id: string }>(
        db,
        sql`delete from notification_deliveries where status <> 'queued' and created_at < ${before.toISOString()} returning id`,
      );
      return rows.length;
    },
  };
}

export type NotificationDelivery = ReturnType<typeof createNotificationDelivery>;
