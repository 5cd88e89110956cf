/**
 * The pieces every hosted page shares: the layout (Farmcam billing banner, "Test mode", the
 * stylesheet), escaping, the HTML answer and the 404 for a dead link, and the card form with
 * what it posts. Plain HTML forms, no script, so the strict CSP holds (docs/decisions/027).
 */
import { escapeHtml } from '@farmcam/contract/rules';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../../../errors.ts';
import { formatMoney } from '../../money.ts';
import type { CardInput } from '../local-billing-engine.ts';
import { testCards } from '../test-cards.ts';

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

/** The card form; `extra` is more of our own fields, put just above the button. */
export function cardForm(
  action: string,
  submitLabel: string,
  withDefault: boolean,
  extra = '',
): string {
  return `<form method="post" action="${escapeHtml(action)}" class="card-form">
<label>Card number<input name="number" inputmode="numeric" autocomplete="cc-number" required maxlength="23" placeholder="4242 4242 4242 4242"></label>
<div class="row">
<label>Expiry (MM / YY)<input name="expiry" autocomplete="cc-exp" required maxlength="7" placeholder="12 / 30"></label>
<label>CVC<input name="cvc" inputmode="numeric" autocomplete="cc-csc" required maxlength="4" placeholder="123"></label>
</div>
${withDefault ? '<label class="check"><input type="checkbox" name="makeDefault" value="yes" checked> Use as the default card</label>' : ''}
${extra}
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

/**
 * Adding a card while invoices are open asks before paying them (docs/decisions/027): unticked,
 * nothing is charged. The amount shown goes with the form, and the engine pays only if it is
 * still what is due.
 */
export function payNowField(
  open: { amountDue: number; amountPaid: number; currency: string }[],
): string {
  if (open.length === 0) return '';
  const due = open.reduce((sum, invoice) => sum + invoice.amountDue - invoice.amountPaid, 0);
  return `<input type="hidden" name="payAmountDue" value="${due}">
<label class="check"><input type="checkbox" name="payNow" value="yes"> Pay ${formatMoney(due, open[0]!.currency)} now with this card</label>`;
}

/**
 * The card form's fields as text: the form posts strings, but anyone can post JSON with numbers
 * or objects in their place (docs/decisions/064). That is no browser's form, so it is answered
 * 400 rather than shown as a mistyped card; a missing field is the form's own mistake.
 */
export function parseCard(body: Record<string, unknown>): CardInput {
  for (const name of ['number', 'expiry', 'cvc']) {
    if (body[name] !== undefined && typeof body[name] !== 'string') {
      throw new AppError('VALIDATION_FAILED', 'The card number, expiry and CVC must be text.');
    }
  }
  const field = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
  const expiry = field('expiry').replace(/\s/g, '');
  const match = expiry.match(/^(\d{1,2})\/?(\d{2}|\d{4})$/);
  const expMonth = match ? Number(match[1]) : 0;
  const year = match ? Number(match[2]) : 0;
  return {
    number: field('number'),
    expMonth,
    expYear: year < 100 ? 2000 + year : year,
    cvc: field('cvc').trim(),
  };
}

export const cardLabel = (card: {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}) =>
  `${card.brand === 'mastercard' ? 'Mastercard' : 'Visa'} ending ${card.last4}, expires ${String(card.expMonth).padStart(2, '0')}/${card.expYear}`;
