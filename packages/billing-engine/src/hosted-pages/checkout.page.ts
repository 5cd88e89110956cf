/**
 * The checkout page (Stripe Checkout): the plan's price and a card form; paying creates the
 * subscription and sends the customer back to the portal. Reached by its session id (random,
 * expiring), opened by the activation wizard.
 */
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Database } from '@farmcam/db';
import { billingSessions, prices, products } from '@farmcam/db/schema';
import { formatMoney } from '@farmcam/billing/money';
import type { LocalBillingEngine } from '../local-billing-engine.ts';
import {
  cardForm,
  cardFormNotice,
  checkCardDetailsMessage,
  escapeHtml,
  gone,
  readCardForm,
  sendPage,
  type CardFormState,
} from './html.ts';
import { messageOf, notice, refusalStatus } from './page-messages.ts';

export async function checkoutPage(
  app: FastifyInstance,
  options: { db: Database; engine: LocalBillingEngine },
) {
  const { db, engine } = options;

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

  /** VAT is in the price (docs/decisions/026): the page says so beside it (decision 114). */
  const vatNote = () => {
    const rate = engine.invoicing.vatRateBasisPoints / 100;
    return rate > 0 ? `Price includes VAT at ${rate}%` : 'No VAT is charged';
  };

  type FoundCheckout = NonNullable<Awaited<ReturnType<typeof openCheckout>>>;

  /** The page, with a notice on top; after a mistake the form shows what was typed (decision 114). */
  function showCheckout(
    reply: FastifyReply,
    { session, price, product }: FoundCheckout,
    options: { noticeHtml: string; state?: CardFormState; status?: number },
  ) {
    const interval = price.interval === 'year' ? 'year' : 'month';
    const amount = formatMoney(price.unitAmount, price.currency);
    return sendPage(
      reply,
      `Subscribe to ${product.name}`,
      `${options.noticeHtml}
<section>
<p class="total">${amount} <span class="muted">per ${interval}</span></p>
<p class="muted">${vatNote()}</p>
<p class="muted">For SIM ${escapeHtml(session.clientReferenceId ?? '')}${session.customerEmail ? ` · ${escapeHtml(session.customerEmail)}` : ''}</p>
${cardForm(`/billing-engine/checkout/${session.id}/pay`, `Subscribe and pay ${amount}`, { state: options.state })}
<p><a href="${escapeHtml(session.cancelUrl ?? '/')}">Cancel and go back</a></p>
</section>`,
      options.status,
    );
  }

  app.get<{ Params: { sessionId: string }; Querystring: Record<string, string> }>(
    '/billing-engine/checkout/:sessionId',
    async (request, reply) => {
      const found = await openCheckout(request.params.sessionId);
      if (!found) return gone(reply, 'This checkout has expired or is already paid.');
      return showCheckout(reply, found, { noticeHtml: notice(request.query) });
    },
  );

  app.post<{ Params: { sessionId: string }; Body: Record<string, string> }>(
    '/billing-engine/checkout/:sessionId/pay',
    async (request, reply) => {
      const found = await openCheckout(request.params.sessionId);
      if (!found) return gone(reply, 'This checkout has expired or is already paid.');
      const form = readCardForm(request.body ?? {}, engine.now());
      if (form.hasErrors) {
        return showCheckout(reply, found, {
          noticeHtml: cardFormNotice(checkCardDetailsMessage),
          state: form.state,
          status: 422,
        });
      }
      try {
        const { redirectUrl } = await engine.completeCheckout(found.session.id, form.card);
        return reply.redirect(redirectUrl, 303);
      } catch (error) {
        // A refusal (declined, not a test card) keeps what was typed, as Stripe's form does.
        return showCheckout(reply, found, {
          noticeHtml: cardFormNotice(messageOf(error)),
          state: form.state,
          status: refusalStatus(error),
        });
      }
    },
  );
}
