/**
 * "Use this card for every camera" (decision 129): one card form whose card becomes the default
 * card of each camera's billing account at once. What Stripe does per customer with a setup
 * page, done once for all the accounts of the session. Reached by its session id (random,
 * expiring), opened from the portal's Billing page.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Database } from '@farmcam/db';
import { billingSessions, sims } from '@farmcam/db/schema';
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
import { messageOf, refusalStatus } from './page-messages.ts';
import { cameraNameOf } from '@farmcam/contract/rules';

const expiredMessage =
  'This page has expired or the card is already saved. Start again from the portal.';

export async function cardSetupPage(
  app: FastifyInstance,
  options: { db: Database; engine: LocalBillingEngine },
) {
  const { db, engine } = options;

  async function openSetup(sessionId: string) {
    await engine.clock.refresh();
    const [session] = await db
      .select()
      .from(billingSessions)
      .where(and(eq(billingSessions.id, sessionId), eq(billingSessions.kind, 'card_setup')));
    if (!session || session.status !== 'open' || session.expiresAt <= engine.now()) {
      return undefined;
    }
    const accounts = (session.metadata.accounts ?? '').split(',').filter(Boolean);
    const cameras = accounts.length
      ? await db
          .select({ nickname: sims.nickname, iccid: sims.iccid })
          .from(sims)
          .where(inArray(sims.billingCustomerId, accounts))
      : [];
    return { session, accounts, cameras };
  }

  type Found = NonNullable<Awaited<ReturnType<typeof openSetup>>>;

  function show(
    reply: FastifyReply,
    { session, accounts, cameras }: Found,
    options: { noticeHtml: string; state?: CardFormState; status?: number },
  ) {
    const names = cameras
      .map((camera) => `<li>${escapeHtml(cameraNameOf(camera.nickname, camera.iccid))}</li>`)
      .join('');
    const count = accounts.length === 1 ? '1 camera' : `${accounts.length} cameras`;
    return sendPage(
      reply,
      'Use one card for every camera',
      `${options.noticeHtml}
<section>
<p>The card becomes the default card of ${count}. Their next bills are charged to it; nothing is charged now.</p>
<ul>${names}</ul>
${cardForm(`/billing-engine/card-setup/${session.id}/save`, `Save card for ${count}`, { state: options.state })}
<p><a href="${escapeHtml(session.returnUrl ?? '/')}">Cancel and go back</a></p>
</section>`,
      options.status,
    );
  }

  app.get<{ Params: { sessionId: string } }>(
    '/billing-engine/card-setup/:sessionId',
    async (request, reply) => {
      const found = await openSetup(request.params.sessionId);
      if (!found) return gone(reply, expiredMessage);
      return show(reply, found, { noticeHtml: '' });
    },
  );

  app.post<{ Params: { sessionId: string }; Body: Record<string, string> }>(
    '/billing-engine/card-setup/:sessionId/save',
    async (request, reply) => {
      const found = await openSetup(request.params.sessionId);
      if (!found) return gone(reply, expiredMessage);
      const form = readCardForm(request.body ?? {}, engine.now());
      if (form.hasErrors) {
        return show(reply, found, {
          noticeHtml: cardFormNotice(checkCardDetailsMessage),
          state: form.state,
          status: 422,
        });
      }
      try {
        const { redirectUrl } = await engine.completeCardSetup(found.session.id, form.card);
        return reply.redirect(redirectUrl, 303);
      } catch (error) {
        return show(reply, found, {
          noticeHtml: cardFormNotice(messageOf(error)),
          state: form.state,
          status: refusalStatus(error),
        });
      }
    },
  );
}
