/**
 * The hosted invoice page (Stripe's hosted invoice page): the amount and the way to pay first,
 * then the invoice as issued; its PDF, and the PDFs of its credit notes. Reached by a signed token
 * in the URL (ledger.invoiceUrls), so the link in an e-mail opens it without signing in.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { Database } from '@farmcam/db';
import { creditNotes, invoices, paymentMethods } from '@farmcam/db/schema';
import { formatDay, formatMoney } from '@farmcam/billing/money';
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
} from '../invoice-document.ts';
import { renderBillingPdf } from '../invoice-pdf.ts';
import { snapshotOfCreditNote } from '../invoice-snapshot.ts';
import { invoiceStatusLabel } from '@farmcam/billing/bill-words';
import { isCardExpired } from '@farmcam/billing/card-rules';
import { availableCredit, creditNotePdfUrl, invoiceAccessToken } from '../ledger.ts';
import type { LocalBillingEngine } from '../local-billing-engine.ts';
import {
  cardForm,
  cardFormNotice,
  cardLabel,
  checkCardDetailsMessage,
  escapeHtml,
  gone,
  readCardForm,
  sendPage,
  type CardFormState,
} from './html.ts';
import { messageOf, notice, pageMessages, refusalStatus, withMessage } from './page-messages.ts';

function tokensMatch(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const sendPdf = (reply: FastifyReply, fileName: string, pdf: Buffer) =>
  reply
    .type('application/pdf')
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .header('cache-control', 'private, no-store')
    .send(pdf);

export async function hostedInvoicePage(
  app: FastifyInstance,
  options: {
    db: Database;
    engine: LocalBillingEngine;
    /** Named on every invoice and credit note (SUPPLIER_* configuration, docs/decisions/026). */
    supplier: Supplier;
    /** Documents say they were issued in test mode (the local engine outside production). */
    isTestMode: boolean;
  },
) {
  const { db, engine } = options;

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
          `<li>Credit note ${escapeHtml(note.number)}: ${money(note.total)} refunded on ${formatDay(note.createdAt)} · <a href="${escapeHtml(await creditNotePdfUrl(db, note.id))}">Download PDF<span class="visually-hidden"> of credit note ${escapeHtml(note.number)}</span></a></li>`,
      ),
    );
    const credit = await availableCredit(db, invoice.billingCustomerId);
    return `${parties}<table><thead><tr><th>Description</th><th class="amount">Amount</th></tr></thead><tbody>${lineRows}</tbody></table>
<table aria-label="Totals"><tbody>${totalRows}</tbody></table>
${noteLinks.length > 0 ? `<ul>${noteLinks.join('')}</ul>` : ''}
${credit > 0 ? `<p class="notice success">Credit on your account: ${money(credit)}, taken off your next invoice.</p>` : ''}`;
  }

  /**
   * The page with a notice on top: the amount, its status word and due date, and the way to pay
   * first; after a mistake the new-card form shows what was typed (decision 114).
   */
  async function showInvoice(
    reply: FastifyReply,
    invoice: typeof invoices.$inferSelect,
    base: string,
    view: { noticeHtml: string; state?: CardFormState; status?: number },
  ) {
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
    const toPay = formatMoney(invoice.amountDue - invoice.amountPaid, invoice.currency);
    const word = invoiceStatusLabel(invoice.status);
    // One word for the status and the day it was due, as on the portal's Invoices page (decision 113).
    const status =
      invoice.status === 'paid'
        ? `<p class="status-paid">Paid on ${formatDay(invoice.paidAt ?? invoice.createdAt)}</p>`
        : invoice.status === 'open'
          ? `<p class="status-open">${word} · due ${formatDay(invoice.createdAt)}</p>`
          : `<p class="muted">${word}</p>`;
    const payment =
      invoice.status !== 'open'
        ? ''
        : `<h2>Pay this invoice</h2>
${card ? `<form method="post" action="${base}/pay"><button type="submit">Pay ${toPay} with ${escapeHtml(cardLabel(card))}</button></form><h2>Or pay with a new card</h2>` : ''}${expiredCard ? `<p class="status-expired">${escapeHtml(cardLabel(expiredCard))}. This card has expired: pay with a new card below.</p>` : ''}
${cardForm(`${base}/pay`, `Pay ${toPay}`, { state: view.state })}`;
    const details = await loadInvoiceDetails(db, invoice, options.supplier);
    return sendPage(
      reply,
      `Invoice ${invoice.number}`,
      // The amount and the way to pay come first, the lines after: on a phone the pay button
      // is on the first screen, as on Stripe's hosted invoice page (docs/decisions/027).
      `${view.noticeHtml}
<section>
<p class="muted">Billed to ${escapeHtml(billedTo(details.snapshot.customer).join(', '))} · issued ${formatDay(invoice.createdAt)}</p>
<p class="total">${formatMoney(invoice.amountDue, invoice.currency)}</p>
${status}
${payment}
</section>
<section>
<h2>Invoice details</h2>
${await invoiceSummary(invoice, details)}
<p class="actions"><a href="${base}/pdf">Download PDF<span class="visually-hidden"> of invoice ${escapeHtml(invoice.number)}</span></a></p>
</section>`,
      view.status,
    );
  }

  app.get<{ Params: { invoiceId: string; token: string }; Querystring: Record<string, string> }>(
    '/billing-engine/invoices/:invoiceId/:token',
    async (request, reply) => {
      const found = await openInvoice(request.params.invoiceId, request.params.token);
      if (!found) return gone(reply, 'This invoice link is not valid.');
      const base = `/billing-engine/invoices/${found.invoice.id}/${request.params.token}`;
      return showInvoice(reply, found.invoice, base, { noticeHtml: notice(request.query) });
    },
  );

  app.post<{ Params: { invoiceId: string; token: string }; Body: Record<string, string> }>(
    '/billing-engine/invoices/:invoiceId/:token/pay',
    async (request, reply) => {
      const found = await openInvoice(request.params.invoiceId, request.params.token);
      if (!found) return gone(reply, 'This invoice link is not valid.');
      const base = `/billing-engine/invoices/${found.invoice.id}/${request.params.token}`;
      const body = request.body ?? {};
      // The new-card form always posts `number` (an empty one is a mistake, not "use the card
      // on file"); the card-on-file button posts nothing.
      const form = body.number !== undefined ? readCardForm(body, engine.now()) : undefined;
      if (form?.hasErrors) {
        return showInvoice(reply, found.invoice, base, {
          noticeHtml: cardFormNotice(checkCardDetailsMessage),
          state: form.state,
          status: 422,
        });
      }
      try {
        await engine.payInvoice(found.invoice.id, form?.card);
        return reply.redirect(withMessage(base, 'notice', pageMessages.payment_received), 303);
      } catch (error) {
        const message = messageOf(error);
        // A new card refused keeps what was typed; the card on file's refusal is a notice.
        if (!form) return reply.redirect(withMessage(base, 'error', message), 303);
        const [invoice] = await db.select().from(invoices).where(eq(invoices.id, found.invoice.id));
        return showInvoice(reply, invoice ?? found.invoice, base, {
          noticeHtml: cardFormNotice(message),
          state: form.state,
          status: refusalStatus(error),
        });
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
}
