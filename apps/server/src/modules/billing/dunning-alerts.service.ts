/**
 * The dunning alerts (decision 167): when each e-mail of docs/decisions/025 and 108 is due, and
 * that it goes once. A failed payment's e-mail: the engine delivers its event at least once
 * (again after a failure or a process that died, decision 077) and one delivery runs at a time,
 * so each e-mail sent is recorded after the mailer has it and a second delivery sends nothing.
 * The end-of-dunning e-mails: the billing cycle asks for those due on each day it replays (one
 * run at a time across processes), recorded the same way. Both go out through the notifier as
 * "payment" alerts (decision 122); their words are dunning-mail.ts.
 */
import { cameraNameOf } from '@farmcam/contract/rules';
import type { Database } from '../../db/client.ts';
import { dayMs } from '../../lib/business-calendar.ts';
import { dunningPolicy, simTerminationAt } from '@farmcam/billing/dunning-policy';
import { formatMoney } from '@farmcam/billing/money';
import type { Notifier } from '../notifications/notifier.ts';
import { billingRepository } from './billing.repository.ts';
import {
  dunningEndMessage,
  dunningMessage,
  ukDay,
  type EndedPlan,
  type PaymentFailed,
} from './dunning-mail.ts';
import { dunningRepository, type EndMailKind } from './dunning.repository.ts';

/**
 * How long after its moment an end-of-dunning e-mail is still sent: the billing job tries again
 * every run while the mail server refuses it, for as long as Stripe retries a webhook (decision
 * 077); a cancellation older than that (history before this e-mail existed) is not e-mailed.
 */
const endMailWindowMs = 3 * dayMs;

export function createDunningAlerts(deps: {
  db: Database;
  notifier: Notifier;
  publicUrl: string;
  supportEmail: string;
  log: { warn(object: object, message: string): void };
}) {
  const { db } = deps;

  /**
   * Plans canceled for an unpaid renewal whose `kind` e-mail is due at `at` and not sent yet: the
   * cancellation in the last three days; the SIM switched off (14 days after it, decision 025) in
   * the last three days. Not when the camera has a newer subscription (renewed since).
   */
  async function due(kind: EndMailKind, at: Date): Promise<EndedPlan[]> {
    const shift = kind === 'canceled' ? 0 : dunningPolicy.terminateSimAfterCancelDays * dayMs;
    const rows = await dunningRepository.endedPlans(db, {
      kind,
      canceledBy: new Date(at.getTime() - shift),
      canceledAfter: new Date(at.getTime() - shift - endMailWindowMs),
    });
    const plans: EndedPlan[] = [];
    for (const row of rows) {
      if (!row.email || !row.canceledAt) continue;
      const unpaid = await dunningRepository.unpaidInvoiceOf(db, row.subscriptionId);
      plans.push({
        ...row,
        canceledAt: row.canceledAt,
        email: row.email,
        cameraName: cameraNameOf(row.nickname, row.iccid),
        unpaid: unpaid ?? null,
      });
    }
    return plans;
  }

  return {
    async paymentFailed(event: PaymentFailed): Promise<void> {
      if (await dunningRepository.isDunningMailSent(db, event.invoiceId, event.attemptCount)) {
        return;
      }
      const customer = await dunningRepository.payerOf(db, event.billingCustomerId);
      if (!customer?.email) return;
      const sim = await billingRepository.sim(db, event.simIccid);
      const invoiceUrl = event.hostedInvoiceUrl?.startsWith('/')
        ? `${deps.publicUrl}${event.hostedInvoiceUrl}`
        : event.hostedInvoiceUrl;
      const cameraName = cameraNameOf(sim?.nickname, event.simIccid);
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
      await dunningRepository.recordDunningMail(db, event.invoiceId, event.attemptCount);
    },

    /**
     * Sends the end-of-dunning e-mails due at `at` (billing time: the billing cycle calls it for
     * each day it replays, one run at a time across processes). A mail server that refuses one is
     * logged and the next run tries again.
     */
    async sendEndMailsDue(at: Date): Promise<{ sent: number }> {
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
          await dunningRepository.recordDunningEndMail(db, plan.subscriptionId, kind);
          sent += 1;
        }
      }
      return { sent };
    },
  };
}

export type DunningAlerts = ReturnType<typeof createDunningAlerts>;
