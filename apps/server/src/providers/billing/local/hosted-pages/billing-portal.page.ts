/**
 * The billing portal page (Stripe's customer portal): the amount due with Pay, the cards on file
 * (make default, remove, add one, optionally paying what is due with it) and the invoice history.
 * Reached by its session id (random, expiring), opened from the Farmcam portal.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../../db/client.ts';
import {
  billingCustomers,
  billingSessions,
  invoices,
  paymentMethods,
  prices,
  products,
  sims,
  subscriptions,
} from '../../../../db/schema.ts';
import { BillingError } from '../../billing.ts';
import { formatDay, formatMoney } from '../../money.ts';
import { isCardExpired } from '../ledger.ts';
import { amountDueChangedMessage, type LocalBillingEngine } from '../local-billing-engine.ts';
import { cardForm, cardLabel, escapeHtml, gone, parseCard, payNowField, sendPage } from './html.ts';
import { messageOf, notice, pageMessages, withMessage } from './page-messages.ts';

export async function billingPortalPage(
  app: FastifyInstance,
  options: { db: Database; engine: LocalBillingEngine },
) {
  const { db, engine } = options;

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
}
