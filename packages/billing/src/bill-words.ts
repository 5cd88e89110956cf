/**
 * How a bill is named to a farmer, in one place for the API's answers and the hosted pages
 * (decision 113): one word per invoice status, the day it was due, and why an unpaid bill is
 * unpaid with what to do about it. Built from what both billing providers keep in our tables
 * (invoices and the saved cards), so the local engine and Stripe say the same.
 */
import type { InvoiceStatusLabel, UnpaidCause } from '@farmcam/contract';
import { chargedCardOf, isCardExpired } from './card-rules.ts';
import { formatDay, formatMoney, isoDay } from './money.ts';

const statusLabels: Record<string, InvoiceStatusLabel> = {
  draft: 'Draft',
  open: 'Unpaid',
  paid: 'Paid',
  void: 'Void',
  uncollectible: 'Void',
};

/** The invoice status in a farmer's word: open is Unpaid; void and uncollectible are Void. */
export const invoiceStatusLabel = (status: string): InvoiceStatusLabel =>
  statusLabels[status] ?? 'Unpaid';

/**
 * The day an invoice was due. Our invoices are charged automatically when they are raised (Stripe's
 * `charge_automatically`, whose invoices have no due date of their own), so that is the day.
 */
export const invoiceDueDay = (invoice: { createdAt: Date }): string => isoDay(invoice.createdAt);

/** A saved card as the sentences need it, listed default first, then newest first. */
export interface SavedCard {
  last4: string;
  expMonth: number;
  expYear: number;
  createdAt: Date;
}

export interface UnpaidFacts {
  /** What is still to pay, minor units. */
  amountDue: number;
  currency: string;
  /** When the (oldest) unpaid invoice was raised, which is when it was due. */
  raisedAt: Date;
  /** Payment attempts made on it (Stripe's attempt_count). */
  attemptCount: number;
  cards: readonly SavedCard[];
}

const monthYear = new Intl.DateTimeFormat('en-GB', {
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/**
 * Why a bill is unpaid and what to do, from the card a charge uses now (card-rules.ts): none on
 * file; that card has expired; it was there when the bill was raised and the bill was tried, so
 * it was declined; or it was added since and has not been charged yet.
 */
export function describeUnpaid(
  facts: UnpaidFacts,
  now: Date,
): { cause: UnpaidCause; summary: string; sentence: string } {
  const money = formatMoney(facts.amountDue, facts.currency);
  const summary = `${money} unpaid since ${formatDay(facts.raisedAt)}`;
  const card = chargedCardOf(facts.cards, now);
  if (!card) {
    return {
      cause: 'no_card',
      summary,
      sentence: `There is no card on file: add one to pay ${money}.`,
    };
  }
  if (isCardExpired(card, now)) {
    const expiredIn = monthYear.format(new Date(Date.UTC(card.expYear, card.expMonth - 1, 1)));
    return {
      cause: 'card_expired',
      summary,
      sentence: `Your card ending ${card.last4} expired in ${expiredIn}: update it to pay ${money}.`,
    };
  }
  if (facts.attemptCount > 0 && card.createdAt <= facts.raisedAt) {
    return {
      cause: 'card_declined',
      summary,
      sentence: `Your card ending ${card.last4} was declined on ${formatDay(facts.raisedAt)}: update it to pay ${money}.`,
    };
  }
  return {
    cause: 'not_collected',
    summary,
    sentence: `${money} is still to pay: pay it now with your card ending ${card.last4}.`,
  };
}

/** The sentence under an invoice's status word on the invoices page (null when nothing to add). */
export function invoiceStatusDetail(
  invoice: {
    status: string;
    amountDue: number;
    amountPaid: number;
    currency: string;
    createdAt: Date;
    paidAt: Date | null;
    attemptCount: number;
  },
  cards: readonly SavedCard[],
  now: Date,
): string | null {
  switch (invoice.status) {
    case 'paid':
      return invoice.paidAt ? `Paid on ${formatDay(invoice.paidAt)}.` : null;
    case 'open':
      return describeUnpaid(
        {
          amountDue: invoice.amountDue - invoice.amountPaid,
          currency: invoice.currency,
          raisedAt: invoice.createdAt,
          attemptCount: invoice.attemptCount,
          cards,
        },
        now,
      ).sentence;
    case 'uncollectible':
      return 'Closed unpaid when the plan ended: nothing more will be taken for it.';
    case 'void':
      return 'Cancelled: nothing is to pay.';
    default:
      return null;
  }
}

/**
 * Where a credit note's money went, in the customer's words: the part the card paid refunded to
 * the card, the part the credit balance paid back to the balance (docs/decisions/108).
 */
export function givenBack(
  note: { refundAmount: number; creditAmount: number },
  money: (value: number) => string,
): string {
  const parts = [
    ...(note.refundAmount > 0 ? [`${money(note.refundAmount)} refunded to your card`] : []),
    ...(note.creditAmount > 0 ? [`${money(note.creditAmount)} credited to your balance`] : []),
  ];
  return parts.join(' and ');
}
