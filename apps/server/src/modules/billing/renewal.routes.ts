/**
 * /subscriptions: the plans an ended subscription may start again on, and the renewal's checkout (docs/requirements.md#api).
 * Writes accept an `Idempotency-Key` header: a retry with the same key is applied once.
 */
import {
  billingCustomerParams,
  checkoutResponse,
  renewalPlansQuery,
  renewalPlansResponse,
  renewSubscriptionBody,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  errors,
  writeErrors,
  idempotencyHeaders,
  callerOf,
  idempotencyKeyOf,
  security,
} from './billing-route-guards.ts';
import type { RenewalService } from './renewal.service.ts';

export const renewalRoutes: FastifyPluginAsyncZod<{
  renewals: RenewalService;
}> = async (app, { renewals }) => {
  app.get(
    '/subscriptions/renewal-plans/:customerId/:iccid',
    {
      schema: {
        tags: ['subscriptions'],
        operationId: 'listRenewalPlans',
        summary: 'Plans a camera without an active subscription can be renewed on',
        security,
        params: billingCustomerParams.extend({
          iccid: z.string().regex(/^\d{19,20}$/, 'Enter the SIM number: 19 or 20 digits.'),
        }),
        querystring: renewalPlansQuery,
        response: { 200: renewalPlansResponse, ...errors },
      },
    },
    async (request) => {
      const { caller } = callerOf(request, 'manageCameras');
      return renewals.renewalPlans(
        caller,
        request.params.customerId,
        request.params.iccid,
        request.query.location,
      );
    },
  );

  app.post(
    '/subscriptions/renew',
    {
      config: { idempotent: true },
      schema: {
        tags: ['subscriptions'],
        operationId: 'startRenewalCheckout',
        summary: 'Start a hosted checkout for a new subscription on a camera',
        security,
        headers: idempotencyHeaders,
        body: renewSubscriptionBody,
        response: { 200: checkoutResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { caller, actor, principal } = callerOf(request, 'manageCameras');
      return renewals.startRenewal(
        caller,
        {
          billingCustomerId: request.body.customerId,
          iccid: request.body.iccid,
          priceId: request.body.priceId,
          customerId: caller.customerId,
          email: principal.customerEmail ?? principal.impersonation?.customerEmail ?? '',
        },
        idempotencyKeyOf(request),
        actor,
      );
    },
  );
};
