/**
 * The words of the dunning e-mails. For each failed renewal payment of the local engine (Stripe
 * sends its own): what failed and why, when we try again, when the plan ends if it stays unpaid,
 * and the hosted invoice page to pay it on (docs/decisions/025). And the two e-mails of the end
 * of dunning (docs/decisions/108), with either provider: the plan canceled for an unpaid renewal
 * (with the renewal page and the day the SIM is switched off), and the SIM switched off. When
 * each is sent, and once: dunning-alerts.service.ts.
 */
import type { BillingEvent } from '@farmcam/billing';
import { dunningPolicy, simTerminationAt } from '@farmcam/billing/dunning-policy';
import { formatDay, formatMoney } from '@farmcam/billing/money';
import { renderEmail, type MailMessage } from '../../providers/mail/mail.ts';
import type { EndMailKind } from './dunning.repository.ts';
import { businessDay } from './pause-rules.ts';

export type PaymentFailed = Extract<BillingEvent, { type: 'invoice.payment_failed' }>;

/** A date the way the customer reads it: their (UK) calendar day. */
export const ukDay = (instant: Date) => formatDay(businessDay(instant));

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

export interface EndedPlan {
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
