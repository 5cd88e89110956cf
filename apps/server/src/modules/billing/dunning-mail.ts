/**
 * The e-mail a customer gets for each failed renewal payment of the local engine (Stripe sends
 * its own): what failed and why, when we try again, when the plan ends if it stays unpaid, and
 * the hosted invoice page to pay it on (docs/decisions/025). One e-mail per failed attempt: the
 * engine delivers its event at least once (again after a failure or a process that died,
 * decision 077), and each e-mail sent is recorded, so a second delivery sends nothing.
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { billingCustomers, dunningMails, sims } from '../../db/schema.ts';
import type { BillingEvent } from '../../providers/billing/billing.ts';
import { dunningPolicy } from '../../providers/billing/dunning-policy.ts';
import { formatDay, formatMoney } from '../../providers/billing/money.ts';
import { renderEmail, type Mailer, type MailMessage } from '../../providers/mail/mail.ts';
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

export function createDunningMail(deps: { db: Database; mailer: Mailer; publicUrl: string }) {
  return {
    async send(event: PaymentFailed): Promise<void> {
      const attempt = and(
        eq(dunningMails.invoiceId, event.invoiceId),
        eq(dunningMails.attemptCount, event.attemptCount),
      );
      const [sent] = await deps.db.select().from(dunningMails).where(attempt);
      if (sent) return;
      const [customer] = await deps.db
        .select({ email: billingCustomers.email })
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
      await deps.mailer.send(
        dunningMessage(event, {
          email: customer.email,
          cameraName: sim?.nickname || `the camera with SIM ${event.simIccid}`,
          invoiceUrl,
        }),
      );
      // Recorded once the mail server has it: a process that dies in between sends it twice on
      // the next delivery, never not at all. Deliveries do not overlap (each claims its event).
      await deps.db
        .insert(dunningMails)
        .values({ invoiceId: event.invoiceId, attemptCount: event.attemptCount })
        .onConflictDoNothing();
    },
  };
}
