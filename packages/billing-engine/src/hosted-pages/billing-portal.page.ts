/**
 * The billing portal page (Stripe's customer portal): the amount due with Pay, the cards on file
 * (make default, remove, add one, optionally paying what is due with it) and the invoice history.
 * Reached by its session id (random, expiring), opened from the Farmcam portal.
 */
import { cameraNameOf } from '@farmcam/contract/rules';
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Database } from '@farmcam/db';
import {
  billingCustomers,
  billingSessions,
  invoices,
  paymentMethods,
  prices,
  products,
  sims,
  subscriptions,
} from '@farmcam/db/schema';
import { BillingError } from '@farmcam/billing';
import { formatDay, formatMoney } from '@farmcam/billing/money';
import { invoiceStatusLabel } from '@farmcam/billing/bill-words';
import { isCardExpired } from '@farmcam/billing/card-rules';
import type { CardInput } from '../card-fields.ts';
import { amountDueChangedMessage, type LocalBillingEngine } from '../local-billing-engine.ts';
import {
  cardForm,
  cardFormNotice,
  cardLabel,
  checkCardDetailsMessage,
  escapeHtml,
  gone,
  payNowField,
  readCardForm,
  sendPage,
  type CardFormState,
  unpaidTotal,
} from './html.ts';
import { messageOf, notice, pageMessages, refusalStatus, withMessage } from './page-messages.ts';

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

  /** Saves the card, paying what is due with it only with the ticked box and its amount. */
  async function addCard(
    session: { billingCustomerId: string },
    card: CardInput,
    body: Record<string, string>,
  ): Promise<string> {
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
  }

  type PortalSession = NonNullable<Awaited<ReturnType<typeof openPortal>>>;

  /**
   * The portal with a notice on top. Opened from an overdue camera's Pay now (`purpose: pay`), a
   * new card pays what is due unless the farmer unticks it (decision 113); after a mistake the
   * card form shows what was typed and its boxes as they were (decision 114).
   */
  async function showPortal(
    reply: FastifyReply,
    session: PortalSession,
    options: {
      noticeHtml: string;
      state?: CardFormState;
      ticked?: { payNow: boolean; makeDefault: boolean };
      status?: number;
    },
  ) {
    const base = `/billing-engine/portal/${session.id}`;
    const [customer] = await db
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.id, session.billingCustomerId));
    const [camera] = await db
      .select({ nickname: sims.nickname, iccid: sims.iccid, plan: products.name })
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
    const isToPay = session.metadata.purpose === 'pay';
    const ticked = options.ticked ?? { payNow: isToPay, makeDefault: true };

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
        ) => `<tr><td>${escapeHtml(invoice.number)}<br><span class="muted">Due ${formatDay(invoice.createdAt)} · ${escapeHtml(invoice.description)}</span></td>
<td class="amount">${formatMoney(invoice.amountDue - invoice.amountPaid, invoice.currency)}</td>
<td><form method="post" action="${base}/invoices/${invoice.id}/pay"><button type="submit">Pay now<span class="visually-hidden"> ${escapeHtml(invoice.number)}</span></button></form></td></tr>`,
      )
      .join('');
    const historyRows = invoiceRows
      .map((invoice) => {
        const word = invoiceStatusLabel(invoice.status);
        return `<tr><td>${formatDay(invoice.createdAt)}</td><td class="hide-narrow">${escapeHtml(invoice.number)}</td>
<td class="amount">${formatMoney(invoice.amountDue, invoice.currency)}</td><td class="${word === 'Unpaid' ? 'status-open' : word === 'Paid' ? 'status-paid' : 'muted'}">${word}</td>
<td>${invoice.hostedInvoiceUrl ? `<a href="${escapeHtml(invoice.hostedInvoiceUrl)}">View<span class="visually-hidden"> ${escapeHtml(invoice.number)}</span></a>` : ''}</td></tr>`;
      })
      .join('');
    const addCard = cardForm(
      `${base}/cards`,
      open.length > 0 && isToPay ? 'Add card and pay' : 'Add card',
      {
        withDefault: true,
        isDefaultTicked: ticked.makeDefault,
        extra: payNowField(open, ticked.payNow),
        state: options.state,
      },
    );

    return sendPage(
      reply,
      'Billing',
      `${options.noticeHtml}
<p class="muted">${escapeHtml(camera ? cameraNameOf(camera.nickname, camera.iccid) : 'Camera')} · ${escapeHtml(camera?.plan ?? 'No plan')} · ${escapeHtml(customer?.email ?? '')}</p>
<p><a class="button secondary" href="${escapeHtml(session.returnUrl ?? '/')}">Return to Farmcam</a></p>
${
  // From Pay now, the new card comes first: it is what the farmer came to add (decision 113).
  isToPay && open.length > 0
    ? `<section aria-labelledby="pay-heading"><h2 id="pay-heading">Pay with a new card</h2>
<p>${formatMoney(unpaidTotal(open), open[0]!.currency)} is unpaid. The card you add pays it now, unless you untick the box.</p>
${addCard}
</section>`
    : ''
}
<section aria-labelledby="open-heading"><h2 id="open-heading">Unpaid invoices</h2>
${open.length === 0 ? '<p>Nothing to pay. Thank you.</p>' : `<table><thead><tr><th>Invoice</th><th class="amount">Amount</th><th><span class="visually-hidden">Pay</span></th></tr></thead><tbody>${openRows}</tbody></table>`}
</section>
<section aria-labelledby="cards-heading"><h2 id="cards-heading">Payment methods</h2>
${cards.length === 0 ? '<p>No card on file.</p>' : `<table><tbody>${cardRows}</tbody></table>`}
${isToPay && open.length > 0 ? '' : `<h2>Add a card</h2>\n${addCard}`}
</section>
<section aria-labelledby="history-heading"><h2 id="history-heading">Invoice history</h2>
${invoiceRows.length === 0 ? '<p>No invoices yet.</p>' : `<table><thead><tr><th>Due date</th><th class="hide-narrow">Number</th><th class="amount">Amount</th><th>Status</th><th><span class="visually-hidden">Link</span></th></tr></thead><tbody>${historyRows}</tbody></table>`}
</section>`,
      options.status,
    );
  }

  const expiredLink = (reply: FastifyReply) =>
    gone(reply, 'This billing portal link has expired. Open it again from the Farmcam portal.');

  app.get<{ Params: { sessionId: string }; Querystring: Record<string, string> }>(
    '/billing-engine/portal/:sessionId',
    async (request, reply) => {
      const session = await openPortal(request.params.sessionId);
      if (!session) return expiredLink(reply);
      return showPortal(reply, session, { noticeHtml: notice(request.query) });
    },
  );

  /**
   * Adding a card: a mistyped card or a refusal shows the page again with what was typed
   * (decision 114); a card added goes back to the page with its notice (POST/redirect/GET).
   */
  app.post<{ Params: { sessionId: string }; Body: Record<string, string> }>(
    '/billing-engine/portal/:sessionId/cards',
    async (request, reply) => {
      const session = await openPortal(request.params.sessionId);
      if (!session) return expiredLink(reply);
      const body = request.body ?? {};
      const form = readCardForm(body, engine.now());
      const ticked = { payNow: body.payNow === 'yes', makeDefault: body.makeDefault === 'yes' };
      const showAgain = (message: string, status: number) =>
        showPortal(reply, session, {
          noticeHtml: cardFormNotice(message),
          state: form.state,
          ticked,
          status,
        });
      if (form.hasErrors) return showAgain(checkCardDetailsMessage, 422);
      try {
        const message = await addCard(session, form.card, body);
        return reply.redirect(
          withMessage(`/billing-engine/portal/${session.id}`, 'notice', message),
          303,
        );
      } catch (error) {
        return showAgain(messageOf(error), refusalStatus(error));
      }
    },
  );

  /** A portal button's form: done, or refused, back to the page with its sentence (PRG). */
  const portalAction = (
    path: string,
    action: (
      session: { billingCustomerId: string },
      params: Record<string, string>,
    ) => Promise<string>,
  ) =>
    app.post<{ Params: Record<string, string> }>(path, async (request, reply) => {
      const session = await openPortal(request.params.sessionId ?? '');
      if (!session) return expiredLink(reply);
      const base = `/billing-engine/portal/${session.id}`;
      try {
        const message = await action(session, request.params);
        return reply.redirect(withMessage(base, 'notice', message), 303);
      } catch (error) {
        return reply.redirect(withMessage(base, 'error', messageOf(error)), 303);
      }
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
