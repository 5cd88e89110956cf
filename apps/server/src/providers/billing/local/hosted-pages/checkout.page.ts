/**
 * The checkout page (Stripe Checkout): the plan's price and a card form; paying creates the
 * subscription and sends the customer back to the portal. Reached by its session id (random,
 * expiring), opened by the activation wizard.
 */
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../../db/client.ts';
import { billingSessions, prices, products } from '../../../../db/schema.ts';
import { formatMoney } from '../../money.ts';
import type { LocalBillingEngine } from '../local-billing-engine.ts';
import { cardForm, escapeHtml, gone, parseCard, sendPage } from './html.ts';
import { messageOf, notice, withMessage } from './page-messages.ts';

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
}
