/**
 * The local billing engine's hosted pages (what Stripe hosts for its customers), served under
 * /billing-engine outside the API: the billing portal (cards, open invoices), the hosted invoice
 * page with Pay, the invoice PDF, the checkout, and the test clock. Plain HTML forms (no script,
 * so the strict CSP holds) that post back and redirect (POST/redirect/GET).
 *
 * Access: portal and checkout pages by their session id (random, expiring); invoice pages by a
 * signed token in the URL (see ledger.invoiceUrls). Nothing here uses the portal's bearer token.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { Database } from '../../../db/client.ts';
import { AppError } from '../../../errors.ts';
import {
  billingCustomers,
  billingSessions,
  creditNotes,
  invoices,
  paymentMethods,
  prices,
  products,
  sims,
  subscriptions,
} from '../../../db/schema.ts';
import { BillingError } from '../billing.ts';
import { dunningPolicy } from '../dunning-policy.ts';
import { formatDay, formatMoney } from '../money.ts';
import { addMonths } from '../proration.ts';
import {
  billedTo,
  cameraLabel,
  creditNoteDocument,
  invoiceDocument,
  invoiceTotals,
  linePeriod,
  loadInvoiceDetails,
  type InvoiceDetails,
  type Supplier,
} from './invoice-document.ts';
import { renderBillingPdf } from './invoice-pdf.ts';
import { snapshotOfCreditNote } from './invoice-snapshot.ts';
import { availableCredit, creditNotePdfUrl, invoiceAccessToken, isCardExpired } from './ledger.ts';
import {
  amountDueChangedMessage,
  type CardInput,
  type LocalBillingEngine,
} from './local-billing-engine.ts';
import {
  cardAlreadySavedMessage,
  declinedMessage,
  testCardMessage,
  testCards,
} from './test-cards.ts';
import { clockAdvanceLimits, parseClockAdvance, type ClockAdvance } from './test-clock.ts';

export interface HostedPagesOptions {
  db: Database;
  engine: LocalBillingEngine;
  /** Named on every invoice and credit note (SUPPLIER_* configuration, docs/decisions/026). */
  supplier: Supplier;
  /** Documents say they were issued in test mode (the local engine outside production). */
  isTestMode: boolean;
  /** Present when the test clock may be moved (never in production). */
  testClock?: {
    runCycle: () => Promise<{ renewed: number; simsChanged: number }>;
    /** The portal's own origin (from PUBLIC_URL): the only site whose pages may move the clock. */
    portalOrigin: string;
  };
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

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

/**
 * Every sentence a hosted page shows after a POST/redirect/GET. The address carries only the
 * sentence's code, never text: a link to our domain must not be able to make a page say anything
 * (docs/decisions/027). An engine message missing here is shown as the generic sentence.
 */
const pageMessages = {
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
  declined_expired: 'Your card has expired. Use another card.',
  expired_on_file: 'Your card has expired. Add a new card and try again.',
  no_card: 'There is no card on file.',
  test_card: testCardMessage,
  already_saved: cardAlreadySavedMessage,
  amount_changed: amountDueChangedMessage,
  expired_default: 'This card has expired, so it cannot be the default.',
  card_fields: 'Enter the card number, expiry date and CVC.',
  cvc: 'Enter the 3-digit CVC',
  expiry: 'Enter the expiry date as MM / YY',
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

function notice(query: Record<string, unknown>): string {
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

/** The card form; `extra` is more of our own fields, put just above the button. */
function cardForm(action: string, submitLabel: string, withDefault: boolean, extra = ''): string {
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
function payNowField(open: { amountDue: number; amountPaid: number; currency: string }[]): string {
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
function parseCard(body: Record<string, unknown>): CardInput {
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

const cardLabel = (card: { brand: string; last4: string; expMonth: number; expYear: number }) =>
  `${card.brand === 'mastercard' ? 'Mastercard' : 'Visa'} ending ${card.last4}, expires ${String(card.expMonth).padStart(2, '0')}/${card.expYear}`;

/** `url` with the code of `message` (one of pageMessages; any other: the generic sentence). */
function withMessage(url: string, kind: 'notice' | 'error', message: string): string {
  const code = messageCodes.get(message) ?? (kind === 'error' ? 'failed' : 'done');
  return `${url}${url.includes('?') ? '&' : '?'}${kind}=${code}`;
}

function messageOf(error: unknown): string {
  if (error instanceof BillingError) return error.message;
  throw error;
}

function tokensMatch(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const stylesheet = `
:root{--green:#2f6b3a;--ink:#1d2a1f;--muted:#5b665d;--line:#d9ded9;--red:#b3261e;--bg:#f5f7f4}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
.banner{display:flex;justify-content:space-between;align-items:center;padding:.75rem 1.25rem;background:var(--green);color:#fff}
.brand{font-weight:700}.test-mode{background:#ffd866;color:#3d3000;border-radius:999px;padding:.1rem .6rem;font-size:.8rem;font-weight:600}
main{max-width:46rem;margin:0 auto;padding:1.25rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.15rem;margin:1.75rem 0 .5rem}
section{background:#fff;border:1px solid var(--line);border-radius:.75rem;padding:1rem 1.25rem;margin-bottom:1rem}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.45rem .35rem;border-bottom:1px solid var(--line);vertical-align:middle}
td.amount,th.amount{text-align:right}
.notice{padding:.75rem 1rem;border-radius:.5rem;font-weight:600}.notice.error{background:#fdecea;color:var(--red)}.notice.success{background:#e6f4ea;color:#1e5b2a}
.status-paid{color:#1e5b2a;font-weight:600}.status-open,.status-expired{color:var(--red);font-weight:600}
form{margin:0}.card-form{display:grid;grid-template-columns:minmax(0,1fr);gap:.75rem;max-width:24rem}.row{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:.75rem}
label{display:grid;gap:.25rem;font-weight:600;font-size:.9rem}label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
input{font:inherit;padding:.55rem .65rem;border:1px solid #8a948c;border-radius:.4rem;width:100%;min-width:0}input[type=checkbox]{width:auto}
button,.button{font:inherit;font-weight:600;background:var(--green);color:#fff;border:0;border-radius:.5rem;padding:.55rem 1rem;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary{background:#fff;color:var(--green);border:1px solid var(--green)}button.danger{background:#fff;color:var(--red);border:1px solid var(--red)}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
.muted{color:var(--muted)}.total{font-size:1.6rem;font-weight:700;margin:.25rem 0}
.test-cards{margin-top:1rem;font-size:.9rem}.test-cards code{font-size:.95em}
a{color:var(--green)}
section>h2:first-child,section>p:first-child{margin-top:0}td{overflow-wrap:anywhere}td button,td a,td.amount{white-space:nowrap;overflow-wrap:normal}
.visually-hidden{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap;border:0}
@media (max-width:600px){main{padding:.75rem}section{padding:.85rem}h1{font-size:1.3rem}th.hide-narrow,td.hide-narrow{display:none}.card-form{max-width:none}.card-form button{width:100%}.total{font-size:1.35rem}}
`;

export async function hostedPagesRoutes(app: FastifyInstance, options: HostedPagesOptions) {
  const { db, engine } = options;

  // HTML forms post url-encoded bodies; only these pages accept them.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 8 * 1024 },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  const sendPage = (reply: FastifyReply, title: string, body: string, status = 200) =>
    reply
      .code(status)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(page(title, body));

  const gone = (reply: FastifyReply, message: string) =>
    sendPage(reply, 'Link expired', `<section><p>${escapeHtml(message)}</p></section>`, 404);

  app.get('/billing-engine/assets/engine.css', async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(stylesheet),
  );

  // ── Billing portal ─────────────────────────────────────────────────────────────────────

  async function openPortal(sessionId: string) {
    await engine.clock.refresh();
    const [session] = await db
      .select()
      .from(billingSessions)
      .where(and(eq(billingSessions.id, sessionId), eq(billingSessions.kind, 'portal')));
    if (!session?.billingCustomerId || session.expiresAt <= engine.now()) return undefined;
    return session as typeof session & { billingCustomerId: string };
  }

  app.get<{ Params: { sessionId: string }; Querystring: Record<string, string> }>(
    '/billing-engine/portal/:sessionId',
    async (request, reply) => {
      const session = await openPortal(request.params.sessionId);
      if (!session)
        return gone(
          reply,
          'This billing portal link has expired. Open it again from the Farmcam portal.',
        );
      const base = `/billing-engine/portal/${session.id}`;
      const [customer] = await db
        .select()
        .from(billingCustomers)
        .where(eq(billingCustomers.id, session.billingCustomerId));
      const [camera] = await db
        .select({ nickname: sims.nickname, plan: products.name })
        .from(subscriptions)
        .innerJoin(sims, eq(sims.iccid, subscriptions.simIccid))
        .innerJoin(prices, eq(prices.id, subscriptions.priceId))
        .innerJoin(products, eq(products.id, prices.productId))
        .where(eq(subscriptions.billingCustomerId, session.billingCustomerId))
        .orderBy(desc(subscriptions.createdAt))
        .limit(1);
      const cards = await db
        .select()
        .from(paymentMethods)
        .where(
          and(
            eq(paymentMethods.billingCustomerId, session.billingCustomerId),
            isNull(paymentMethods.detachedAt),
          ),
        )
        .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.createdAt));
      const invoiceRows = await db
        .select()
        .from(invoices)
        .where(eq(invoices.billingCustomerId, session.billingCustomerId))
        .orderBy(desc(invoices.createdAt))
        .limit(24);
      const open = invoiceRows.filter((invoice) => invoice.status === 'open');
      const now = engine.now();

      // The card charges use: an expired card is never the default (docs/decisions/027).
      const chargedCard = cards.find((card) => !isCardExpired(card, now));
      const cardRows = cards
        .map((card) => {
          const expired = isCardExpired(card, now);
          const isDefault = card.id === chargedCard?.id;
          return `<tr><td>${escapeHtml(cardLabel(card))}${isDefault ? ' <strong>(default)</strong>' : ''}${expired ? ' <span class="status-expired">Expired</span>' : ''}</td>
<td><div class="actions">${isDefault || expired ? '' : `<form method="post" action="${base}/cards/${card.id}/default"><button class="secondary" type="submit">Make default<span class="visually-hidden"> ${escapeHtml(card.last4)}</span></button></form>`}
<form method="post" action="${base}/cards/${card.id}/remove"><button class="danger" type="submit" aria-label="Remove card ending ${escapeHtml(card.last4)}">Remove</button></form></div></td></tr>`;
        })
        .join('');
      const openRows = open
        .map(
          (
            invoice,
          ) => `<tr><td>${escapeHtml(invoice.number)}<br><span class="muted">${escapeHtml(invoice.description)}</span></td>
<td class="amount">${formatMoney(invoice.amountDue - invoice.amountPaid, invoice.currency)}</td>
<td><form method="post" action="${base}/invoices/${invoice.id}/pay"><button type="submit" aria-label="Pay ${escapeHtml(invoice.number)}">Pay</button></form></td></tr>`,
        )
        .join('');
      const historyRows = invoiceRows
        .map(
          (
            invoice,
          ) => `<tr><td>${formatDay(invoice.createdAt)}</td><td class="hide-narrow">${escapeHtml(invoice.number)}</td>
<td class="amount">${formatMoney(invoice.amountDue, invoice.currency)}</td><td class="status-${invoice.status === 'paid' ? 'paid' : 'open'}">${escapeHtml(invoice.status)}</td>
<td>${invoice.hostedInvoiceUrl ? `<a href="${escapeHtml(invoice.hostedInvoiceUrl)}">View<span class="visually-hidden"> ${escapeHtml(invoice.number)}</span></a>` : ''}</td></tr>`,
        )
        .join('');

      return sendPage(
        reply,
        'Billing',
        `${notice(request.query)}
<p class="muted">${escapeHtml(camera?.nickname ?? 'Camera')} · ${escapeHtml(camera?.plan ?? 'No plan')} · ${escapeHtml(customer?.email ?? '')}</p>
<p><a class="button secondary" href="${escapeHtml(session.returnUrl ?? '/')}">Return to Farmcam</a></p>
<section aria-labelledby="open-heading"><h2 id="open-heading">Amount due</h2>
${open.length === 0 ? '<p>Nothing is due. Thank you.</p>' : `<table><thead><tr><th>Invoice</th><th class="amount">Amount</th><th><span class="visually-hidden">Pay</span></th></tr></thead><tbody>${openRows}</tbody></table>`}
</section>
<section aria-labelledby="cards-heading"><h2 id="cards-heading">Payment methods</h2>
${cards.length === 0 ? '<p>No card on file.</p>' : `<table><tbody>${cardRows}</tbody></table>`}
<h2>Add a card</h2>
${cardForm(`${base}/cards`, 'Add card', true, payNowField(open))}
</section>
<section aria-labelledby="history-heading"><h2 id="history-heading">Invoice history</h2>
${invoiceRows.length === 0 ? '<p>No invoices yet.</p>' : `<table><thead><tr><th>Date</th><th class="hide-narrow">Number</th><th class="amount">Amount</th><th>Status</th><th><span class="visually-hidden">Link</span></th></tr></thead><tbody>${historyRows}</tbody></table>`}
</section>`,
      );
    },
  );

  const portalAction = (
    path: string,
    action: (
      session: { billingCustomerId: string },
      params: Record<string, string>,
      body: Record<string, string>,
    ) => Promise<string>,
  ) =>
    app.post<{ Params: Record<string, string>; Body: Record<string, string> }>(
      path,
      async (request, reply) => {
        const session = await openPortal(request.params.sessionId ?? '');
        if (!session)
          return gone(
            reply,
            'This billing portal link has expired. Open it again from the Farmcam portal.',
          );
        const base = `/billing-engine/portal/${session.id}`;
        try {
          const message = await action(session, request.params, request.body ?? {});
          return reply.redirect(withMessage(base, 'notice', message), 303);
        } catch (error) {
          return reply.redirect(withMessage(base, 'error', messageOf(error)), 303);
        }
      },
    );

  portalAction('/billing-engine/portal/:sessionId/cards', async (session, _params, body) => {
    const card = parseCard(body);
    // Consent is the ticked box together with the amount it showed (docs/decisions/027).
    let consent: { payAmountDue: number } | undefined;
    if (body.payNow === 'yes') {
      const payAmountDue = Number(body.payAmountDue);
      if (!Number.isSafeInteger(payAmountDue) || payAmountDue <= 0) {
        throw new BillingError('invalid', amountDueChangedMessage);
      }
      consent = { payAmountDue };
    }
    const result = await engine.addCard(
      session.billingCustomerId,
      card,
      body.makeDefault === 'yes',
      consent,
    );
    if (!consent) return pageMessages.card_added;
    return result.paymentFailure ? pageMessages.card_added_unpaid : pageMessages.card_added_paid;
  });
  portalAction(
    '/billing-engine/portal/:sessionId/cards/:cardId/default',
    async (session, params) => {
      await engine.setDefaultCard(session.billingCustomerId, params.cardId ?? '');
      return pageMessages.default_updated;
    },
  );
  portalAction(
    '/billing-engine/portal/:sessionId/cards/:cardId/remove',
    async (session, params) => {
      await engine.removeCard(session.billingCustomerId, params.cardId ?? '');
      return pageMessages.card_removed;
    },
  );
  portalAction(
    '/billing-engine/portal/:sessionId/invoices/:invoiceId/pay',
    async (session, params) => {
      const [invoice] = await db
        .select()
        .from(invoices)
        .where(
          and(
            eq(invoices.id, params.invoiceId ?? ''),
            eq(invoices.billingCustomerId, session.billingCustomerId),
          ),
        );
      if (!invoice) throw new BillingError('invalid', 'No such invoice');
      await engine.payInvoice(invoice.id);
      return pageMessages.invoice_paid;
    },
  );

  // ── Hosted invoice page and PDF ────────────────────────────────────────────────────────────

  async function openInvoice(invoiceId: string, token: string) {
    const [invoice] = await db.select().from(invoices).where(eq(invoices.id, invoiceId));
    if (!invoice || !tokensMatch(token, await invoiceAccessToken(db, invoice.id))) return undefined;
    return { invoice };
  }

  /**
   * The invoice as issued (its snapshot: supplier, camera, lines, a downgrade's credit as a
   * negative line, totals with VAT), its credit notes and the credit still on the account
   * (docs/decisions/026).
   */
  async function invoiceSummary(invoice: typeof invoices.$inferSelect, details: InvoiceDetails) {
    const issued = details.snapshot;
    const money = (value: number) => formatMoney(value, issued.currency);
    const camera = cameraLabel(issued.camera);
    const parties = `<p class="muted">From ${escapeHtml([issued.supplier.name, ...issued.supplier.addressLines].join(', '))} · VAT number ${escapeHtml(issued.supplier.vatNumber)}</p>${camera ? `<p class="muted">For ${escapeHtml(camera)}</p>` : ''}`;
    const lineRows = issued.lines
      .map((line) => {
        const period = linePeriod(line);
        return `<tr><td>${escapeHtml(line.description)}${period ? `<br><span class="muted">${escapeHtml(period)}</span>` : ''}</td><td class="amount">${money(line.amount)}</td></tr>`;
      })
      .join('');
    const totalRows = invoiceTotals(invoice, issued)
      .map(
        (total) =>
          `<tr><td>${total.isBold ? `<strong>${escapeHtml(total.label)}</strong>` : escapeHtml(total.label)}</td><td class="amount">${total.isBold ? `<strong>${total.amount}</strong>` : total.amount}</td></tr>`,
      )
      .join('');
    const noteLinks = await Promise.all(
      details.creditNotes.map(
        async (note) =>
          `<li><a href="${escapeHtml(await creditNotePdfUrl(db, note.id))}">Credit note ${escapeHtml(note.number)} (PDF)</a>: ${money(note.total)} refunded on ${formatDay(note.createdAt)}</li>`,
      ),
    );
    const credit = await availableCredit(db, invoice.billingCustomerId);
    return `${parties}<table><thead><tr><th>Description</th><th class="amount">Amount</th></tr></thead><tbody>${lineRows}</tbody></table>
<table aria-label="Totals"><tbody>${totalRows}</tbody></table>
${noteLinks.length > 0 ? `<ul>${noteLinks.join('')}</ul>` : ''}
${credit > 0 ? `<p class="notice success">Credit on your account: ${money(credit)}, taken off your next invoice.</p>` : ''}`;
  }

  const sendPdf = (reply: FastifyReply, fileName: string, pdf: Buffer) =>
    reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="${fileName}"`)
      .header('cache-control', 'private, no-store')
      .send(pdf);

  app.get<{ Params: { invoiceId: string; token: string }; Querystring: Record<string, string> }>(
    '/billing-engine/invoices/:invoiceId/:token',
    async (request, reply) => {
      const found = await openInvoice(request.params.invoiceId, request.params.token);
      if (!found) return gone(reply, 'This invoice link is not valid.');
      const { invoice } = found;
      const base = `/billing-engine/invoices/${invoice.id}/${request.params.token}`;
      await engine.clock.refresh();
      const cards =
        invoice.status === 'open'
          ? await db
              .select()
              .from(paymentMethods)
              .where(
                and(
                  eq(paymentMethods.billingCustomerId, invoice.billingCustomerId),
                  isNull(paymentMethods.detachedAt),
                ),
              )
              .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.createdAt))
          : [];
      // The main button pays with the card a charge would use, never an expired one
      // (docs/decisions/027); with only expired cards on file it asks for a new card.
      const card = cards.find((candidate) => !isCardExpired(candidate, engine.now()));
      const expiredCard = card ? undefined : cards[0];
      const payment =
        invoice.status !== 'open'
          ? `<p class="status-paid">${invoice.status === 'paid' ? `Paid on ${formatDay(invoice.paidAt ?? invoice.createdAt)}` : escapeHtml(invoice.status)}</p>`
          : `<h2>Pay this invoice</h2>
${card ? `<form method="post" action="${base}/pay"><button type="submit">Pay ${formatMoney(invoice.amountDue - invoice.amountPaid, invoice.currency)} with ${escapeHtml(cardLabel(card))}</button></form><h2>Or pay with a new card</h2>` : ''}${expiredCard ? `<p class="status-expired">${escapeHtml(cardLabel(expiredCard))}. This card has expired: pay with a new card below.</p>` : ''}
${cardForm(`${base}/pay`, `Pay ${formatMoney(invoice.amountDue - invoice.amountPaid, invoice.currency)}`, false)}`;
      const details = await loadInvoiceDetails(db, invoice, options.supplier);
      return sendPage(
        reply,
        `Invoice ${invoice.number}`,
        // The amount and the way to pay come first, the lines after: on a phone the pay button
        // is on the first screen, as on Stripe's hosted invoice page (docs/decisions/027).
        `${notice(request.query)}
<section>
<p class="muted">Billed to ${escapeHtml(billedTo(details.snapshot.customer).join(', '))} · issued ${formatDay(invoice.createdAt)}</p>
<p class="total">${formatMoney(invoice.amountDue, invoice.currency)}</p>
${payment}
</section>
<section>
<h2>Invoice details</h2>
${await invoiceSummary(invoice, details)}
<p class="actions"><a href="${base}/pdf">Download invoice (PDF)</a></p>
</section>`,
      );
    },
  );

  app.post<{ Params: { invoiceId: string; token: string }; Body: Record<string, string> }>(
    '/billing-engine/invoices/:invoiceId/:token/pay',
    async (request, reply) => {
      const found = await openInvoice(request.params.invoiceId, request.params.token);
      if (!found) return gone(reply, 'This invoice link is not valid.');
      const base = `/billing-engine/invoices/${found.invoice.id}/${request.params.token}`;
      const body = request.body ?? {};
      try {
        // The new-card form always posts `number` (an empty one is a mistake, not "use the card
        // on file"); the card-on-file button posts nothing.
        const newCard = body.number !== undefined ? parseCard(body) : undefined;
        await engine.payInvoice(found.invoice.id, newCard);
        return reply.redirect(withMessage(base, 'notice', pageMessages.payment_received), 303);
      } catch (error) {
        return reply.redirect(withMessage(base, 'error', messageOf(error)), 303);
      }
    },
  );

  app.get<{ Params: { invoiceId: string; token: string } }>(
    '/billing-engine/invoices/:invoiceId/:token/pdf',
    async (request, reply) => {
      const found = await openInvoice(request.params.invoiceId, request.params.token);
      if (!found) return gone(reply, 'This invoice link is not valid.');
      const { invoice } = found;
      const details = await loadInvoiceDetails(db, invoice, options.supplier);
      const pdf = await renderBillingPdf(invoiceDocument(invoice, details, options.isTestMode));
      return sendPdf(reply, `invoice-${invoice.number}.pdf`, pdf);
    },
  );

  app.get<{ Params: { creditNoteId: string; token: string } }>(
    '/billing-engine/credit-notes/:creditNoteId/:token/pdf',
    async (request, reply) => {
      const [note] = await db
        .select()
        .from(creditNotes)
        .where(eq(creditNotes.id, request.params.creditNoteId));
      if (!note || !tokensMatch(request.params.token, await invoiceAccessToken(db, note.id))) {
        return gone(reply, 'This credit note link is not valid.');
      }
      const [invoice] = await db.select().from(invoices).where(eq(invoices.id, note.invoiceId));
      const issued = await snapshotOfCreditNote(db, note, invoice!, options.supplier);
      const pdf = await renderBillingPdf(
        creditNoteDocument(note, issued, invoice!, options.isTestMode),
      );
      return sendPdf(reply, `credit-note-${note.number}.pdf`, pdf);
    },
  );

  // ── Checkout ──────────────────────────────────────────────────────────────────────────────

  async function openCheckout(sessionId: string) {
    await engine.clock.refresh();
    const [row] = await db
      .select({ session: billingSessions, price: prices, product: products })
      .from(billingSessions)
      .innerJoin(prices, eq(prices.id, billingSessions.priceId))
      .innerJoin(products, eq(products.id, prices.productId))
      .where(and(eq(billingSessions.id, sessionId), eq(billingSessions.kind, 'checkout')));
    if (!row || row.session.status !== 'open' || row.session.expiresAt <= engine.now())
      return undefined;
    return row;
  }

  app.get<{ Params: { sessionId: string }; Querystring: Record<string, string> }>(
    '/billing-engine/checkout/:sessionId',
    async (request, reply) => {
      const found = await openCheckout(request.params.sessionId);
      if (!found) return gone(reply, 'This checkout has expired or is already paid.');
      const { session, price, product } = found;
      const interval = price.interval === 'year' ? 'year' : 'month';
      return sendPage(
        reply,
        `Subscribe to ${product.name}`,
        `${notice(request.query)}
<section>
<p class="total">${formatMoney(price.unitAmount, price.currency)} <span class="muted">per ${interval}</span></p>
<p class="muted">For SIM ${escapeHtml(session.clientReferenceId ?? '')}${session.customerEmail ? ` · ${escapeHtml(session.customerEmail)}` : ''}</p>
${cardForm(`/billing-engine/checkout/${session.id}/pay`, `Subscribe and pay ${formatMoney(price.unitAmount, price.currency)}`, false)}
<p><a href="${escapeHtml(session.cancelUrl ?? '/')}">Cancel and go back</a></p>
</section>`,
      );
    },
  );

  app.post<{ Params: { sessionId: string }; Body: Record<string, string> }>(
    '/billing-engine/checkout/:sessionId/pay',
    async (request, reply) => {
      const found = await openCheckout(request.params.sessionId);
      if (!found) return gone(reply, 'This checkout has expired or is already paid.');
      try {
        const { redirectUrl } = await engine.completeCheckout(
          found.session.id,
          parseCard(request.body ?? {}),
        );
        return reply.redirect(redirectUrl, 303);
      } catch (error) {
        return reply.redirect(
          withMessage(`/billing-engine/checkout/${found.session.id}`, 'error', messageOf(error)),
          303,
        );
      }
    },
  );

  // ── Test clock ────────────────────────────────────────────────────────────────────────────

  const testClock = options.testClock;
  if (!testClock) return;

  /**
   * The test clock needs no sign-in (a developer's tool), so another site's page must not be
   * able to move it through a visitor's browser (CSRF): browsers name the page's origin on every
   * POST; where an old one does not, Sec-Fetch-Site still tells another site apart. Scripts
   * (curl) send neither and are let through (docs/decisions/061-production-mode.md).
   */
  const refuseOtherSites = async (request: FastifyRequest) => {
    const origin = request.headers.origin;
    const fetchSite = request.headers['sec-fetch-site'];
    const isOtherSite =
      origin !== undefined
        ? origin !== testClock.portalOrigin
        : fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none';
    if (isOtherSite) {
      throw new AppError(
        'FORBIDDEN',
        `The test clock can only be moved from the portal's own pages at ${testClock.portalOrigin}.`,
      );
    }
  };

  /**
   * Like Stripe's test clock: the cycle first catches up to the present (so the replay has its
   * starting point), then the time moved over is replayed day by day (decision 025).
   */
  const advanceBy = async (advance: ClockAdvance) => {
    await testClock.runCycle();
    const now = engine.now();
    const target =
      'months' in advance
        ? addMonths(now, advance.months)
        : new Date(now.getTime() + advance.days * 86_400_000);
    await engine.clock.advance(target.getTime() - now.getTime());
    return testClock.runCycle();
  };

  app.get<{ Querystring: Record<string, string> }>(
    '/billing-engine/test-clock',
    async (request, reply) => {
      await engine.clock.refresh();
      const offsetDays = engine.clock.offsetMs() / 86_400_000;
      return sendPage(
        reply,
        'Test clock',
        `${notice(request.query)}
<section>
<p>Billing time is <strong>${escapeHtml(engine.now().toUTCString())}</strong>${offsetDays > 0 ? ` (${offsetDays.toFixed(1)} days ahead of real time)` : ''}.</p>
<p class="muted">Advancing the clock replays the billing cycle day by day: renewals are invoiced and charged; an unpaid renewal makes the subscription past due, is retried ${dunningPolicy.retryDays.join(', ')} days after the first failure (an e-mail each time), shows as overdue after ${dunningPolicy.overdueAfterDays} days and is canceled after ${dunningPolicy.cancelAfterDays}; a canceled subscription's SIM is terminated ${dunningPolicy.terminateSimAfterCancelDays} days later; pauses start and end on their dates. Move it by 1 to ${clockAdvanceLimits.days} days or 1 to ${clockAdvanceLimits.months} months at a time. The clock never goes back.</p>
<div class="actions">
${[
  ['1 day', 'days=1'],
  ['1 week', 'days=7'],
  ['1 month', 'months=1'],
]
  .map(
    ([label, field]) =>
      `<form method="post" action="/billing-engine/test-clock/advance"><input type="hidden" name="${field!.split('=')[0]}" value="${field!.split('=')[1]}"><button type="submit">Advance ${label}</button></form>`,
  )
  .join('')}
<form method="post" action="/billing-engine/test-clock/run"><button class="secondary" type="submit">Run billing cycle now</button></form>
</div>
</section>`,
      );
    },
  );

  app.post<{ Body: Record<string, unknown> }>(
    '/billing-engine/test-clock/advance',
    { onRequest: refuseOtherSites },
    async (request, reply) => {
      const body = request.body;
      const parsed = parseClockAdvance(typeof body === 'object' && body !== null ? body : {});
      if ('refusal' in parsed) throw new AppError('VALIDATION_FAILED', parsed.refusal);
      const result = await advanceBy(parsed.advance);
      if (request.headers['content-type']?.includes('application/json')) {
        return { now: engine.now().toISOString(), ...result };
      }
      return reply.redirect(
        withMessage(
          '/billing-engine/test-clock',
          'notice',
          // Only a fixed sentence goes through the address (docs/decisions/027).
          pageMessages.clock_advanced,
        ),
        303,
      );
    },
  );

  app.post(
    '/billing-engine/test-clock/run',
    { onRequest: refuseOtherSites },
    async (request, reply) => {
      const result = await testClock.runCycle();
      if (request.headers['content-type']?.includes('application/json')) {
        return { now: engine.now().toISOString(), ...result };
      }
      return reply.redirect(
        withMessage('/billing-engine/test-clock', 'notice', pageMessages.cycle_run),
        303,
      );
    },
  );
}
