/**
 * POST /api/webhooks/stripe (BILLING=stripe): Stripe's events, verified on the raw body with the
 * signing secret and applied once per event id. Answers 200 quickly, 400 for a bad signature.
 */
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../errors.ts';
import { BillingError } from '@farmcam/billing';
import type { StripeBilling } from '../../providers/billing/stripe/stripe-billing.ts';

export const stripeWebhookRoutes: FastifyPluginAsync<{ stripe: StripeBilling }> = async (
  app,
  { stripe },
) => {
  // The signature covers the exact bytes: keep the body raw in this plugin only.
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: 512 * 1024 },
    (_request, body, done) => done(null, body),
  );

  app.post(
    '/webhooks/stripe',
    {
      schema: {
        tags: ['billing'],
        operationId: 'receiveStripeEvent',
        // Stripe signs the body instead: the route is for Stripe alone, so it is not documented.
        security: [],
        summary: 'Stripe webhook events',
        hide: true,
      },
    },
    async (request) => {
      const signature = request.headers['stripe-signature'];
      if (typeof signature !== 'string' || !Buffer.isBuffer(request.body)) {
        throw new AppError('VALIDATION_FAILED', 'Missing Stripe-Signature header or body');
      }
      try {
        const result = await stripe.handleWebhook(request.body, signature);
        return { received: true, duplicate: result.isDuplicate };
      } catch (error) {
        if (error instanceof BillingError && error.kind === 'invalid') {
          throw new AppError('VALIDATION_FAILED', error.message);
        }
        throw error;
      }
    },
  );
};
