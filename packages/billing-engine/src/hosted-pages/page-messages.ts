/**
 * The sentences hosted pages show after a POST/redirect/GET, and how a page's address names one:
 * by code, so a link to our domain cannot make a page say anything (docs/decisions/027).
 */
import { BillingError } from '@farmcam/billing';
import { amountDueChangedMessage } from '../local-billing-engine.ts';
import { cardAlreadySavedMessage, declinedMessage, testCardMessage } from '../test-cards.ts';
import { escapeHtml } from './html.ts';

/**
 * Every sentence a hosted page shows after a POST/redirect/GET. The address carries only the
 * sentence's code, never text: a link to our domain must not be able to make a page say anything
 * (docs/decisions/027). An engine message missing here is shown as the generic sentence.
 */
export const pageMessages = {
  card_added: 'Card added.',
  card_added_paid: 'Card added and the amount due paid. Thank you.',
  card_added_unpaid: 'Card added, but the payment with it was declined. The amount is still due.',
  default_updated: 'Default card updated.',
  card_removed: 'Card removed.',
  invoice_paid: 'Invoice paid. Thank you.',
  payment_received: 'Payment received. Thank you.',
  clock_advanced: 'Billing time moved on and the billing cycle ran.',
  cycle_run: 'The billing cycle ran.',
  done: 'Done.',
  declined: declinedMessage,
  expired_on_file: 'Your card has expired. Add a new card and try again.',
  no_card: 'There is no card on file.',
  test_card: testCardMessage,
  already_saved: cardAlreadySavedMessage,
  amount_changed: amountDueChangedMessage,
  expired_default: 'This card has expired, so it cannot be the default.',
  card_fields: 'Enter the card number, expiry date and CVC.',
  no_such_card: 'No such card',
  no_such_invoice: 'No such invoice',
  already_paid: 'This invoice is already paid',
  checkout_expired: 'This checkout has expired. Start again from the portal.',
  has_subscription: 'This SIM already has a subscription',
  sim_gone: 'This SIM is not available any more. You have not been charged.',
  // The activation module's refusal of a SIM sold a moment before (checkout-hooks.ts).
  sim_taken:
    'This SIM has just been activated by someone else, so this order cannot go ahead. You have not been charged.',
  plan_unavailable: 'That plan is not available',
  failed: 'That did not work. Check the details and try again.',
} as const;
type PageMessage = keyof typeof pageMessages;

const messageCodes = new Map(
  Object.entries(pageMessages).map(([code, text]) => [text as string, code as PageMessage]),
);

export function notice(query: Record<string, unknown>): string {
  // Only a single known code shows anything (`?error=a&error=b` parses to an array).
  const known = (value: unknown) =>
    typeof value === 'string' && Object.hasOwn(pageMessages, value)
      ? pageMessages[value as PageMessage]
      : '';
  if (known(query.error))
    return `<p class="notice error" role="alert">${escapeHtml(known(query.error))}</p>`;
  if (known(query.notice))
    return `<p class="notice success" role="status">${escapeHtml(known(query.notice))}</p>`;
  return '';
}

/** `url` with the code of `message` (one of pageMessages; any other: the generic sentence). */
export function withMessage(url: string, kind: 'notice' | 'error', message: string): string {
  const code = messageCodes.get(message) ?? (kind === 'error' ? 'failed' : 'done');
  return `${url}${url.includes('?') ? '&' : '?'}${kind}=${code}`;
}

/** A refusal's sentence for the page; anything else is a fault and goes to the error handler. */
export function messageOf(error: unknown): string {
  if (error instanceof BillingError) return error.message;
  throw error;
}

/** The status of a page shown again after a refusal: 402 for a declined card, else 422. */
export const refusalStatus = (error: unknown): number =>
  error instanceof BillingError && error.kind === 'card_declined' ? 402 : 422;
