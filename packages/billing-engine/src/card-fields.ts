/**
 * A card typed into a hosted page, checked field by field in the words Stripe Elements uses
 * (decision 114), so the local engine's pages answer a mistyped card the way Stripe's would: one
 * message under the field that is wrong. The engine checks every card it is given with the same
 * rule, so a form that skipped the page gets the same answer.
 */
import { hasValidLuhnDigit } from '@farmcam/contract/rules';

export type CardField = 'number' | 'expiry' | 'cvc';

/** Stripe Elements' messages, word for word (its English). */
export const cardFieldMessages = {
  numberIncomplete: 'Your card number is incomplete.',
  numberInvalid: 'Your card number is invalid.',
  expiryIncomplete: "Your card's expiration date is incomplete.",
  expiryMonthInvalid: "Your card's expiration month is invalid.",
  expiryYearInvalid: "Your card's expiration year is invalid.",
  expiryYearPast: "Your card's expiration year is in the past.",
  expiryDatePast: "Your card's expiration date is in the past.",
  cvcIncomplete: "Your card's security code is incomplete.",
  cvcInvalid: "Your card's security code is invalid.",
} as const;

/** A card as the engine takes it: the expiry as numbers; 0/0 when it could not be read. */
export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

/** Card numbers are 16 digits for Visa and Mastercard, the brands the engine takes. */
const cardNumberLength = 16;
/** Stripe refuses expiry years further ahead than this. */
const maxYearsAhead = 50;

/**
 * The expiry text as typed ("12 / 30", "12/30", "1230", "12/2030") as month and year; a year of
 * 0 when it is not complete (a month alone, "1/3"). The month is kept as typed (13 stays 13, so it
 * is called invalid rather than incomplete).
 */
export function readExpiry(text: string): { expMonth: number; expYear: number } {
  const match = text.replace(/\s/g, '').match(/^(\d{1,2})\/?(\d{2}|\d{4})$/);
  if (!match) return { expMonth: 0, expYear: 0 };
  const year = Number(match[2]);
  return { expMonth: Number(match[1]), expYear: year < 100 ? 2000 + year : year };
}

/** What is wrong with each field of a card, in Stripe Elements' words; empty when nothing is. */
export function cardFieldErrors(card: CardInput, now: Date): Partial<Record<CardField, string>> {
  const errors: Partial<Record<CardField, string>> = {};
  const digits = card.number.replace(/[\s-]/g, '');
  if (!/^\d*$/.test(digits) || digits.length > cardNumberLength) {
    errors.number = cardFieldMessages.numberInvalid;
  } else if (digits.length < cardNumberLength) {
    errors.number = cardFieldMessages.numberIncomplete;
  } else if (!hasValidLuhnDigit(digits)) {
    errors.number = cardFieldMessages.numberInvalid;
  }

  const thisYear = now.getUTCFullYear();
  const thisMonth = now.getUTCMonth() + 1;
  if (card.expYear === 0) errors.expiry = cardFieldMessages.expiryIncomplete;
  else if (card.expMonth < 1 || card.expMonth > 12) {
    errors.expiry = cardFieldMessages.expiryMonthInvalid;
  } else if (card.expYear < thisYear) errors.expiry = cardFieldMessages.expiryYearPast;
  else if (card.expYear > thisYear + maxYearsAhead) {
    errors.expiry = cardFieldMessages.expiryYearInvalid;
  } else if (card.expYear === thisYear && card.expMonth < thisMonth) {
    errors.expiry = cardFieldMessages.expiryDatePast;
  }

  const cvc = card.cvc.trim();
  if (!/^\d*$/.test(cvc)) errors.cvc = cardFieldMessages.cvcInvalid;
  else if (cvc.length < 3) errors.cvc = cardFieldMessages.cvcIncomplete;
  else if (cvc.length > 4) errors.cvc = cardFieldMessages.cvcInvalid;
  return errors;
}

/** The first problem of a card (number, then expiry, then CVC), or null. */
export function firstCardFieldError(card: CardInput, now: Date): string | null {
  const errors = cardFieldErrors(card, now);
  return errors.number ?? errors.expiry ?? errors.cvc ?? null;
}
