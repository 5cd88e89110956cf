/**
 * The e-mail a customer gets for each failed renewal payment of the local engine (Stripe sends
 * its own): what failed and why, when we try again, when the plan ends if it stays unpaid, and
 * the hosted invoice page to pay it on (docs/decisions/025). One e-mail per failed attempt: the
 * engine delivers its event at least once (again after a failure or a process that died,
 * decision 077), and each e-mail sent is recorded, so a second delivery sends nothing.
 *
 * And the two e-mails of the end of dunning (docs/decisions/108), with either provider (Stripe
 * sends none for these): when the plan is canceled for an unpaid renewal (with the renewal page,
 * and the day the SIM is switched off), and when the SIM is switched off. Each is sent once.
 */
import { and, desc, eq, gt, inArray, lte, ne, notExists, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/client.ts';
import {
  billingCustomers,
  dunningEndMails,
  dunningMails,
  invoices,
  sims,
  subscriptions,
} from '../../db/schema.ts';
import { dayMs } from '../../lib/business-calendar.ts';
import type { BillingEvent } from '../../providers/billing/billing.ts';
import { dunningPolicy, simTerminationAt } from '../../providers/billing/dunning-policy.ts';
import { formatDay, formatMoney } from '../../providers/billing/money.ts';
import { renderEmail, type MailMessage } from '../../providers/mail/mail.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { businessDay } from './pause-rules.ts';

type PaymentFailed = Extract<BillingEvent, { type: 'invoice.payment_failed' }>;

/** A date the way the customer reads it: their (UK) calendar day. */
const ukDay = (instant: Date) => formatDay(businessDay(instant));

export function dunningMessage(
  event: PaymentFailed,
  to: { email: string; cameraName: string; invoiceUrl: string | null },
): MailMessage {
  const amount = formatMoney(event.amountDue, event.currency);
  const nextTry = event.nextPaymentAttempt
    ? `We will try your card again on ${ukDay(event.nextPaymentAttempt)}.`
    : 'We will not try your card again automatically.';
  return renderEmail({
    kind: 'dunning',
    to: to.email,
    subject: `Payment of ${amount} for ${to.cameraName} failed`,
    heading: 'We could not take your payment',
    paragraphs: [
      `On ${ukDay(event.at)} we tried to take ${amount} for the streaming plan of ${to.cameraName}. ${event.reason}`,
      nextTry,
      `Please pay the invoice before ${ukDay(event.cancelAt)}. If it is still unpaid then, the plan ends, and the camera's SIM is switched off ${dunningPolicy.terminateSimAfterCancelDays} days later.`,
    ],
    ...(to.invoiceUrl && { action: { label: 'Pay the invoice', url: to.invoiceUrl } }),
  });
}

export function createDunningMail(deps: { db: Database; notifier: Notifier; publicUrl: string }) {
  return {
    async send(event: PaymentFailed): Promise<void> {
      const attempt = and(
        eq(dunningMails.invoiceId, event.invoiceId),
        eq(dunningMails.attemptCount, event.attemptCount),
      );
      const [sent] = await deps.db.select().from(dunningMails).where(attempt);
      if (sent) return;
      const [customer] = await deps.db
        .select({ email: billingCustomers.email, customerId: billingCustomers.customerId })
        .from(billingCustomers)
        .where(eq(billingCustomers.id, event.billingCustomerId));
      if (!customer?.email) return;
      const [sim] = await deps.db
        .select({ nickname: sims.nickname })
        .from(sims)
        .where(eq(sims.iccid, event.simIccid));
      const invoiceUrl = event.hostedInvoiceUrl?.startsWith('/')
        ? `${deps.publicUrl}${event.hostedInvoiceUrl}`
        : event.hostedInvoiceUrl;
      const cameraName = sim?.nickname || `the camera with SIM ${event.simIccid}`;
      const outcome = await deps.notifier.notify({
        kind: 'payment',
        customerId: customer.customerId,
        iccid: event.simIccid,
        // The camera's billing address, which the owner may have set apart from their sign-in.
        ownerEmail: customer.email,
        email: (to) => dunningMessage(event, { email: to, cameraName, invoiceUrl }),
        short: {
          title: `Payment of ${formatMoney(event.amountDue, event.currency)} for ${cameraName} failed`,
          body: `Please pay before ${ukDay(event.cancelAt)} to keep the camera's plan.`,
          path: '/invoices',
        },
        // In SMTP mode a second hand-over of the same attempt's e-mail is dropped by the queue.
        mailOptions: { dedupeKey: `dunning:${event.invoiceId}:${event.attemptCount}` },
      });
      if (outcome.failures.length > 0 && !outcome.isOwnerReached) throw outcome.failures[0];
      // Recorded once the mailer has it: a process that dies in between hands it over again on
      // the next delivery, never not at all (the outbox then stores it twice; the mail queue
      // keeps one, decision 104). Deliveries do not overlap (each claims its event).
      await deps.db
        .insert(dunningMails)
        .values({ invoiceId: event.invoiceId, attemptCount: event.attemptCount })
        .onConflictDoNothing();
    },
  };
}

/**
 * How long after its moment an end-of-dunning e-mail is still sent: the billing job tries again
 * every run while the mail server refuses it, for as long as Stripe retries a webhook (decision
 * 077); a cancellation older than that (history before this e-mail existed) is not e-mailed.
 */
const endMailWindowMs = 3 * dayMs;

type EndMailKind = (typeof dunningEndMails.$inferSelect)['kind'];

interface EndedPlan {
  subscriptionId: string;
  billingCustomerId: string;
  /** The account (portal customer) that owns the camera. */
  customerId: string;
  iccid: string;
  priceId: string;
  canceledAt: Date;
  email: string;
  cameraName: string;
  /** The renewal left unpaid, when the ledger has it. */
  unpaid: { number: string; amount: number; currency: string } | null;
}

export function dunningEndMessage(
  kind: EndMailKind,
  plan: EndedPlan,
  links: { publicUrl: string; supportEmail: string },
): MailMessage {
  const switchOffDay = ukDay(simTerminationAt(plan.canceledAt));
  if (kind === 'canceled') {
    const what = plan.unpaid
      ? `the payment of ${formatMoney(plan.unpaid.amount, plan.unpaid.currency)} for the streaming plan of ${plan.cameraName} (invoice ${plan.unpaid.number})`
      : `the payment for the streaming plan of ${plan.cameraName}`;
    const location = plan.priceId.includes('_ie') ? '?location=ie' : '';
    return renderEmail({
      kind: 'dunning',
      to: plan.email,
      subject: `The streaming plan for ${plan.cameraName} has ended`,
      heading: 'Your streaming plan has ended',
      paragraphs: [
        `We could not take ${what}, so the plan ended on ${ukDay(plan.canceledAt)}.`,
        `The camera's SIM stays on until ${switchOffDay}. Renew the plan before then to keep using the camera. If it is not renewed, the SIM is switched off that day and cannot be renewed after.`,
      ],
      action: {
        label: 'Renew the plan',
        url: `${links.publicUrl}/pricing/${plan.iccid}/${plan.billingCustomerId}${location}`,
      },
    });
  }
  return renderEmail({
    kind: 'dunning',
    to: plan.email,
    subject: `The SIM of ${plan.cameraName} has been switched off`,
    heading: "The camera's SIM is switched off",
    paragraphs: [
      `The streaming plan of ${plan.cameraName} ended on ${ukDay(plan.canceledAt)} because its payment could not be taken, and it was not renewed, so we switched the camera's SIM off on ${switchOffDay}. The camera can no longer send pictures, clips or livestreams.`,
      `A switched-off SIM cannot be renewed. To use the camera again, write to ${links.supportEmail}.`,
    ],
    action: { label: 'Open your dashboard', url: `${links.publicUrl}/dashboard` },
  });
}

export function createDunningEndMail(deps: {
  db: Database;
  notifier: Notifier;
  publicUrl: string;
  supportEmail: string;
  log: { warn(object: object, message: string): void };
}) {
  const { db } = deps;
  const newer = alias(subscriptions, 'newer');

  /**
   * Plans canceled for an unpaid renewal whose `kind` e-mail is due at `at` and not sent yet: the
   * cancellation in the last three days; the SIM switched off (14 days after it, decision 025) in
   * the last three days. Not when the camera has a newer subscription (renewed since).
   */
  async function due(kind: EndMailKind, at: Date): Promise<EndedPlan[]> {
    const shift = kind === 'canceled' ? 0 : dunningPolicy.terminateSimAfterCancelDays * dayMs;
    const rows = await db
      .select({
        subscriptionId: subscriptions.id,
        billingCustomerId: subscriptions.billingCustomerId,
        iccid: subscriptions.simIccid,
        priceId: subscriptions.priceId,
        canceledAt: subscriptions.canceledAt,
        email: billingCustomers.email,
        customerId: billingCustomers.customerId,
        nickname: sims.nickname,
      })
      .from(subscriptions)
      .innerJoin(billingCustomers, eq(billingCustomers.id, subscriptions.billingCustomerId))
      .innerJoin(sims, eq(sims.iccid, subscriptions.simIccid))
      .where(
        and(
          eq(subscriptions.status, 'canceled'),
          eq(subscriptions.cancellationReason, 'payment_failed'),
          lte(subscriptions.canceledAt, new Date(at.getTime() - shift)),
          gt(subscriptions.canceledAt, new Date(at.getTime() - shift - endMailWindowMs)),
          kind === 'sim_switched_off' ? eq(sims.state, 'terminated') : undefined,
          notExists(
            db
              .select({ one: sql`1` })
              .from(dunningEndMails)
              .where(
                and(
                  eq(dunningEndMails.subscriptionId, subscriptions.id),
                  eq(dunningEndMails.kind, kind),
                ),
              ),
          ),
          notExists(
            db
              .select({ one: sql`1` })
              .from(newer)
              .where(
                and(
                  eq(newer.simIccid, subscriptions.simIccid),
                  ne(newer.id, subscriptions.id),
                  gt(newer.createdAt, subscriptions.createdAt),
                ),
              ),
          ),
        ),
      );
    const plans: EndedPlan[] = [];
    for (const row of rows) {
      if (!row.email || !row.canceledAt) continue;
      const [unpaid] = await db
        .select({
          number: invoices.number,
          amount: sql<number>`${invoices.amountDue} - ${invoices.amountPaid}`.mapWith(Number),
          currency: invoices.currency,
        })
        .from(invoices)
        .where(
          and(
            eq(invoices.subscriptionId, row.subscriptionId),
            inArray(invoices.status, ['uncollectible', 'open']),
          ),
        )
        .orderBy(desc(invoices.createdAt))
        .limit(1);
      plans.push({
        ...row,
        canceledAt: row.canceledAt,
        email: row.email,
        cameraName: row.nickname || `the camera with SIM ${row.iccid}`,
        unpaid: unpaid ?? null,
      });
    }
    return plans;
  }

  return {
    /**
     * Sends the end-of-dunning e-mails due at `at` (billing time: the billing cycle calls it for
     * each day it replays, one run at a time across processes). A mail server that refuses one is
     * logged and the next run tries again.
     */
    async sendDue(at: Date): Promise<{ sent: number }> {
      let sent = 0;
      for (const kind of ['canceled', 'sim_switched_off'] as const) {
        for (const plan of await due(kind, at)) {
          try {
            const outcome = await deps.notifier.notify({
              kind: 'payment',
              customerId: plan.customerId,
              iccid: plan.iccid,
              ownerEmail: plan.email,
              email: (to) => dunningEndMessage(kind, { ...plan, email: to }, deps),
              short:
                kind === 'canceled'
                  ? {
                      title: `The plan for ${plan.cameraName} has ended unpaid`,
                      body: `Renew it before ${ukDay(simTerminationAt(plan.canceledAt))} or the SIM is switched off.`,
                      path: `/pricing/${plan.iccid}/${plan.billingCustomerId}`,
                    }
                  : {
                      title: `The SIM of ${plan.cameraName} has been switched off`,
                      body: 'Its plan was not renewed after an unpaid bill.',
                      path: '/dashboard',
                    },
              // In SMTP mode a second hand-over of the same e-mail is dropped (decision 104).
              mailOptions: { dedupeKey: `dunning-end:${plan.subscriptionId}:${kind}` },
            });
            if (outcome.failures.length > 0 && !outcome.isOwnerReached) throw outcome.failures[0];
          } catch (error) {
            deps.log.warn(
              { err: error, subscriptionId: plan.subscriptionId, kind },
              'Could not send the end-of-dunning e-mail; the billing job tries again',
            );
            continue;
          }
          // Recorded once the mail server has it, like the dunning e-mails (decision 077).
          await db
            .insert(dunningEndMails)
            .values({ subscriptionId: plan.subscriptionId, kind })
            .onConflictDoNothing();
          sent += 1;
        }
      }
      return { sent };
    },
  };
}
