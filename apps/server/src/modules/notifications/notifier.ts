/**
 * The notifier (decision 122): the one place that decides who is told of an alert and on which
 * channel. Alert senders (silence, livestream clips, data share, data paused, spend, payment,
 * team) call `notify` instead of the mailer. It finds the owner and the members who may receive
 * the kind (a camera's alert reaches the members who reach that camera; money and the team the
 * owner only), reads each one's choices (defaults: the owner's e-mail, as before), sends the
 * e-mails through the mailer (the mail queue in SMTP mode) and queues push and SMS in
 * `notification_deliveries`, held until the person's quiet hours end unless the kind overrides
 * them; the delivery job sends those.
 */
import type { NotificationKind } from '@farmcam/contract';
import type { Logger } from 'pino';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import type { MailMessage, Mailer, SendOptions } from '../../providers/mail/mail.ts';
import { defaultChoice, mayReceive } from './notification-kinds.ts';
import {
  notificationsRepository,
  type AlertRecipient,
  type NewDelivery,
} from './notifications.repository.ts';
import { isQuiet, quietEndsAt } from './quiet-hours.ts';

export const deliverNotificationsJobName = 'deliver-notifications';

export interface Alert {
  kind: NotificationKind;
  customerId: string;
  /** The camera it is about: members reach it only if they reach the camera. */
  iccid: string | null;
  /** The e-mail to one recipient (the senders' own e-mails, unchanged). */
  email: (to: string) => MailMessage;
  /** Push and SMS: a title that says it all, a line more, and the page a tap opens. */
  short: { title: string; body: string; path: string };
  /** The owner's address for this alert when not the account's (a camera's billing e-mail). */
  ownerEmail?: string;
  /** Passed to the mailer for the owner's e-mail (a member's gets its own key). */
  mailOptions?: SendOptions;
}

export interface NotifyOutcome {
  /** People the alert was for. */
  recipients: number;
  /**
   * People for whom every chosen channel was handed over (or who chose none): the alert is done
   * for them.
   */
  reached: number;
  /** Whether the owner was reached (senders that judge by the owner's e-mail). */
  isOwnerReached: boolean;
  emailsSent: number;
  queued: number;
  /** E-mails the mailer refused; the sender decides whether to try again. */
  failures: unknown[];
}

export interface NotifierDependencies {
  db: Database;
  mailer: Mailer;
  clock: Clock;
  jobQueue: JobQueue;
  log: Pick<Logger, 'warn'>;
}

const asDate = (value: Date | string | null) => (value === null ? null : new Date(value));

export function createNotifier(deps: NotifierDependencies) {
  const { db, mailer, clock } = deps;

  function choiceOf(recipient: AlertRecipient, kind: NotificationKind) {
    const fallback = defaultChoice(recipient.role === 'owner', kind);
    return {
      email: recipient.pref_email ?? fallback.email,
      push: recipient.pref_push ?? fallback.push,
      sms: recipient.pref_sms ?? fallback.sms,
      overridesQuietHours: recipient.pref_overrides ?? fallback.overridesQuietHours,
    };
  }

  async function queuePushAndSms(
    alert: Alert,
    recipient: AlertRecipient,
    choice: ReturnType<typeof choiceOf>,
  ): Promise<number> {
    if (!recipient.person_id || (!choice.push && !choice.sms)) return 0;
    const now = clock.now();
    const window =
      recipient.quiet_start_minute === null || recipient.quiet_end_minute === null
        ? null
        : { startMinute: recipient.quiet_start_minute, endMinute: recipient.quiet_end_minute };
    const dueAt =
      choice.overridesQuietHours || !isQuiet(now, window) ? now : quietEndsAt(now, window);
    const common = {
      personId: recipient.person_id,
      kind: alert.kind,
      title: alert.short.title,
      body: alert.short.body,
      path: alert.short.path,
      dueAt,
    };
    const rows: NewDelivery[] = [];
    if (choice.push) {
      for (const target of await notificationsRepository.pushDevicesOf(db, recipient.person_id)) {
        rows.push({ ...common, channel: 'push', pushSubscriptionId: target.id });
      }
    }
    const canText =
      recipient.phone !== null &&
      recipient.phone_verified_at !== null &&
      asDate(recipient.sms_stopped_at) === null;
    if (choice.sms && canText) rows.push({ ...common, channel: 'sms', phone: recipient.phone });
    await notificationsRepository.queueDeliveries(db, rows);
    return rows.length;
  }

  return {
    async notify(alert: Alert): Promise<NotifyOutcome> {
      const recipients = (
        await notificationsRepository.recipients(db, {
          customerId: alert.customerId,
          kind: alert.kind,
          iccid: alert.iccid,
          now: clock.now(),
        })
      ).filter((recipient) => mayReceive(recipient.role, alert.kind));
      const outcome: NotifyOutcome = {
        recipients: recipients.length,
        reached: 0,
        isOwnerReached: false,
        emailsSent: 0,
        queued: 0,
        failures: [],
      };
      const emailed = new Set<string>();
      for (const recipient of recipients) {
        const choice = choiceOf(recipient, alert.kind);
        const isOwner = recipient.member_id === null;
        const address = (isOwner && alert.ownerEmail) || recipient.email;
        let isReached = true;
        // One e-mail per address: a member who is also the owner's address is told once.
        if (choice.email && !emailed.has(address.toLowerCase())) {
          emailed.add(address.toLowerCase());
          try {
            const options = isOwner
              ? alert.mailOptions
              : alert.mailOptions?.dedupeKey
                ? {
                    ...alert.mailOptions,
                    dedupeKey: `${alert.mailOptions.dedupeKey}:${recipient.member_id}`,
                  }
                : alert.mailOptions;
            await mailer.send(alert.email(address), options);
            outcome.emailsSent += 1;
          } catch (error) {
            outcome.failures.push(error);
            isReached = false;
          }
        }
        outcome.queued += await queuePushAndSms(alert, recipient, choice);
        if (isReached) {
          outcome.reached += 1;
          if (isOwner) outcome.isOwnerReached = true;
        }
      }
      if (outcome.queued > 0) {
        // The delivery job also runs every minute: a lost wake-up only delays.
        await deps.jobQueue.send(deliverNotificationsJobName, {}).catch((error: unknown) => {
          deps.log.warn({ err: error }, 'Could not wake the notification delivery');
        });
      }
      return outcome;
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
