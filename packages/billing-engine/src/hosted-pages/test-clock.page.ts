/**
 * The test clock page (Stripe's test clocks): billing time, and buttons that move it on or run
 * the billing cycle; scripts post JSON to the same addresses. Never served in production.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { dayMs } from '@farmcam/contract/rules';
import { dunningPolicy } from '@farmcam/billing/dunning-policy';
import { addMonths } from '@farmcam/billing/proration';
import type { LocalBillingEngine } from '../local-billing-engine.ts';
import { clockAdvanceLimits, parseClockAdvance, type ClockAdvance } from '../test-clock.ts';
import { escapeHtml, sendPage } from './html.ts';
import { notice, pageMessages, withMessage } from './page-messages.ts';
import { HostedPageRefusal } from './refusal.ts';

export interface TestClockOptions {
  runCycle: () => Promise<{ renewed: number; simsChanged: number }>;
  /** The portal's own origin (from PUBLIC_URL): the only site whose pages may move the clock. */
  portalOrigin: string;
}

export async function testClockPage(
  app: FastifyInstance,
  options: { engine: LocalBillingEngine; testClock: TestClockOptions },
) {
  const { engine, testClock } = options;

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
      throw new HostedPageRefusal(
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
        : new Date(now.getTime() + advance.days * dayMs);
    await engine.clock.advance(target.getTime() - now.getTime());
    return testClock.runCycle();
  };

  app.get<{ Querystring: Record<string, string> }>(
    '/billing-engine/test-clock',
    async (request, reply) => {
      await engine.clock.refresh();
      const offsetDays = engine.clock.offsetMs() / dayMs;
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
      if ('refusal' in parsed) throw new HostedPageRefusal('VALIDATION_FAILED', parsed.refusal);
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
