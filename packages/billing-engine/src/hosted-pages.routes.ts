/**
 * The local billing engine's hosted pages (what Stripe hosts for its customers), served under
 * /billing-engine outside the API: the billing portal (cards, open invoices), the hosted invoice
 * page with Pay, the invoice PDF, the checkout, and the test clock. Plain HTML forms (no script,
 * so the strict CSP holds) that post back and redirect (POST/redirect/GET). One file per page in
 * hosted-pages/, with the layout and form pieces they share in hosted-pages/html.ts
 * (docs/decisions/086).
 *
 * Access: portal and checkout pages by their session id (random, expiring); invoice pages by a
 * signed token in the URL (see ledger.invoiceUrls). Nothing here uses the portal's bearer token.
 *
 * The app mounts it as a Fastify plugin (the package's `hostedPagesPlugin`, decision 171),
 * encapsulated: its form parser and its error handler reach only these pages.
 */
import type { FastifyInstance } from 'fastify';
import type { Database } from '@farmcam/db';
import { billingPortalPage } from './hosted-pages/billing-portal.page.ts';
import { cardSetupPage } from './hosted-pages/card-setup.page.ts';
import { checkoutPage } from './hosted-pages/checkout.page.ts';
import { hostedInvoicePage } from './hosted-pages/hosted-invoice.page.ts';
import { hostedPagesStylesheet } from './hosted-pages/stylesheet.ts';
import { testClockPage, type TestClockOptions } from './hosted-pages/test-clock.page.ts';
import type { Supplier } from './invoice-document.ts';
import type { LocalBillingEngine } from './local-billing-engine.ts';
import { HostedPageRefusal } from './hosted-pages/refusal.ts';

export interface HostedPagesOptions {
  db: Database;
  engine: LocalBillingEngine;
  /** Named on every invoice and credit note (SUPPLIER_* configuration, docs/decisions/026). */
  supplier: Supplier;
  /** Documents say they were issued in test mode (the local engine outside production). */
  isTestMode: boolean;
  /** Present when the test clock may be moved (never in production). */
  testClock?: TestClockOptions;
}

export async function hostedPagesPlugin(app: FastifyInstance, options: HostedPagesOptions) {
  // A refusal answers in the portal's error model; anything else is the app's error handler's
  // (thrown on, Fastify hands it to the parent's).
  app.setErrorHandler((error, _request, reply) => {
    if (!(error instanceof HostedPageRefusal)) throw error;
    return reply.code(error.statusCode).send({ code: error.code, message: error.message });
  });

  // HTML forms post url-encoded bodies; only these pages accept them.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 8 * 1024 },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  app.get('/billing-engine/assets/engine.css', async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(hostedPagesStylesheet),
  );

  await app.register(billingPortalPage, options);
  await app.register(hostedInvoicePage, options);
  await app.register(checkoutPage, options);
  await app.register(cardSetupPage, options);
  if (options.testClock) {
    await app.register(testClockPage, { engine: options.engine, testClock: options.testClock });
  }
}
