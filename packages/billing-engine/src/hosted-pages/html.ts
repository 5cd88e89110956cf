/**
 * The pieces every hosted page shares: the layout (Farmcam billing banner, "Test mode", the
 * stylesheet), escaping, the HTML answer and the 404 for a dead link, and the card form with
 * what it posts. Plain HTML forms, no script, so the strict CSP holds (docs/decisions/027).
 */
import { escapeHtml } from '@farmcam/contract/rules';
import type { FastifyReply } from 'fastify';
import { formatMoney } from '@farmcam/billing/money';
import { cardFieldErrors, readExpiry, type CardField, type CardInput } from '../card-fields.ts';
import { testCards } from '../test-cards.ts';
import { HostedPageRefusal } from './refusal.ts';

export { escapeHtml };

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · Farmcam billing</title>
<link rel="stylesheet" href="/billing-engine/assets/engine.css">
<link rel="icon" href="/logo.svg" type="image/svg+xml">
</head>
<body>
<header class="banner"><span class="brand">Farmcam billing</span><span class="test-mode">Test mode</span></header>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>`;
}

export const sendPage = (reply: FastifyReply, title: string, body: string, status = 200) =>
  reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page(title, body));

/** A link that has expired or was never valid: 404 with a sentence saying what to do. */
export const gone = (reply: FastifyReply, message: string) =>
  sendPage(reply, 'Link expired', `<section><p>${escapeHtml(message)}</p></section>`, 404);

/** A card form as it was posted, shown again after a mistake: what was typed and what is wrong. */
export interface CardFormState {
  values: { number: string; expiry: string; cvc: string };
  errors: Partial<Record<CardField, string>>;
}

/** The card form's fields as posted (text only; anything else counts as empty). */
export function postedCardValues(body: Record<string, unknown>): CardFormState['values'] {
  const text = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
  return { number: text('number'), expiry: text('expiry'), cvc: text('cvc') };
}

function cardField(
  field: CardField,
  label: string,
  attributes: string,
  state: CardFormState | undefined,
): string {
  const id = `card-${field}`;
  const error = state?.errors[field];
  const value = state?.values[field] ?? '';
  return `<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${field}" ${attributes}${value ? ` value="${escapeHtml(value)}"` : ''}${error ? ` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
${error ? `<p class="field-error" id="${id}-error">${escapeHtml(error)}</p>` : ''}</div>`;
}

/**
 * The card form (decision 114): each field says under itself what is wrong with it, in Stripe
 * Elements' words, and keeps what was typed; placeholders show the shape, never a card number.
 * `extra` is more of our own fields, put just above the button.
 */
export function cardForm(
  action: string,
  submitLabel: string,
  options: {
    withDefault?: boolean;
    isDefaultTicked?: boolean;
    extra?: string;
    state?: CardFormState;
  } = {},
): string {
  const { state } = options;
  const isDefaultTicked = options.isDefaultTicked ?? true;
  return `<form method="post" action="${escapeHtml(action)}" class="card-form" novalidate>
${cardField('number', 'Card number', 'inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="1234 1234 1234 1234"', state)}
<div class="row">
${cardField('expiry', 'Expiry (MM / YY)', 'inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="MM / YY"', state)}
${cardField('cvc', 'CVC', 'inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="CVC"', state)}
</div>
${options.withDefault ? `<label class="check"><input type="checkbox" name="makeDefault" value="yes"${isDefaultTicked ? ' checked' : ''}> Use as the default card</label>` : ''}
${options.extra ?? ''}
<button type="submit">${escapeHtml(submitLabel)}</button>
</form>
<details class="test-cards"><summary>Test cards</summary><ul>${testCards
    .map(
      (card) =>
        `<li><code>${card.number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code> ${card.brand}: ${
          card.behaviour === 'succeeds'
            ? 'payments succeed'
            : card.behaviour === 'declined'
              ? 'declined'
              : 'saved, but every charge is declined'
        }</li>`,
    )
    .join('')}</ul><p>Any future expiry date and any three digits for the CVC.</p></details>`;
}

/** The line above a card form shown again: what went wrong, as an alert. */
export const cardFormNotice = (message: string) =>
  `<p class="notice error" role="alert">${escapeHtml(message)}</p>`;

/** "Check the card details" when fields are wrong (each says why under itself). */
export const checkCardDetailsMessage = 'Check the card details below.';

type OpenInvoice = { amountDue: number; amountPaid: number; currency: string };

/** What is still to pay on these open invoices, minor units. */
export const unpaidTotal = (open: OpenInvoice[]): number =>
  open.reduce((sum, invoice) => sum + invoice.amountDue - invoice.amountPaid, 0);

/**
 * Adding a card while invoices are open asks before paying them (docs/decisions/027): unticked,
 * nothing is charged. The amount shown goes with the form, and the engine pays only if it is
 * still what is due.
 */
export function payNowField(open: OpenInvoice[], isTicked = false): string {
  if (open.length === 0) return '';
  const due = unpaidTotal(open);
  return `<input type="hidden" name="payAmountDue" value="${due}">
<label class="check"><input type="checkbox" name="payNow" value="yes"${isTicked ? ' checked' : ''}> Pay ${formatMoney(due, open[0]!.currency)} now with this card</label>`;
}

/**
 * The card form's fields as text: the form posts strings, but anyone can post JSON with numbers
 * or objects in their place (docs/decisions/064). That is no browser's form, so it is answered
 * 400 rather than shown as a mistyped card; a missing field is the form's own mistake.
 */
export function parseCard(body: Record<string, unknown>): CardInput {
  for (const name of ['number', 'expiry', 'cvc']) {
    if (body[name] !== undefined && typeof body[name] !== 'string') {
      throw new HostedPageRefusal(
        'VALIDATION_FAILED',
        'The card number, expiry and CVC must be text.',
      );
    }
  }
  const values = postedCardValues(body);
  return { number: values.number, ...readExpiry(values.expiry), cvc: values.cvc.trim() };
}

/**
 * A posted card form: the card, or the form to show again with each field's mistake
 * (card-fields.ts, decision 114), checked against the engine's time.
 */
export function readCardForm(
  body: Record<string, unknown>,
  now: Date,
): { card: CardInput; state: CardFormState; hasErrors: boolean } {
  const card = parseCard(body);
  const errors = cardFieldErrors(card, now);
  return {
    card,
    state: { values: postedCardValues(body), errors },
    hasErrors: Object.keys(errors).length > 0,
  };
}

export const cardLabel = (card: {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}) =>
  `${card.brand === 'mastercard' ? 'Mastercard' : 'Visa'} ending ${card.last4}, expires ${String(card.expMonth).padStart(2, '0')}/${card.expYear}`;
