/**
 * /subscriptions: the plans a camera may switch to, the price of a switch, the switch (docs/requirements.md#api).
 * Writes accept an `Idempotency-Key` header: a retry with the same key is applied once.
 */
import {
  billingCustomerParams,
  changePlanBody,
  changePlanResponse,
  eligiblePlansResponse,
  planChangePreview,
  planChangePreviewQuery,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  errors,
  writeErrors,
  idempotencyHeaders,
  callerOf,
  idempotencyKeyOf,
  security,
} from './billing-route-guards.ts';
import type { PlanChangeService } from './plan-change.service.ts';

export const planChangeRoutes: FastifyPluginAsyncZod<{
  planChanges: PlanChangeService;
}> = async (app, { planChanges }) => {
  app.get(
    '/subscriptions/fetch-eligible-plans/:customerId',
    {
      schema: {
        tags: ['subscriptions'],
        operationId: 'listEligiblePlans',
        summary: 'The plans this camera can be on, marked against the one it is on',
        security,
        params: billingCustomerParams,
        response: { 200: eligiblePlansResponse, ...errors },
      },
    },
    async (request) => {
      const { caller } = callerOf(request, 'manageCameras');
      return planChanges.eligiblePlans(caller, request.params.customerId);
    },
  );

  app.get(
    '/subscriptions/preview-change/:customerId',
    {
      schema: {
        tags: ['subscriptions'],
        operationId: 'previewPlanChange',
        summary: 'What switching to a plan now would charge (pro-rata)',
        security,
        params: billingCustomerParams,
        querystring: planChangePreviewQuery,
        response: { 200: planChangePreview, ...writeErrors },
      },
    },
    async (request) => {
      const { caller } = callerOf(request, 'manageCameras');
      return planChanges.previewPlanChange(
        caller,
        request.params.customerId,
        request.query.newPlanId,
      );
    },
  );

  app.post(
    '/subscriptions/change-plan',
    {
      config: { idempotent: true },
      schema: {
        tags: ['subscriptions'],
        operationId: 'changePlan',
        summary: 'Switch plan now; the pro-rata difference is invoiced and charged at once',
        security,
        headers: idempotencyHeaders,
        body: changePlanBody,
        response: { 200: changePlanResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { caller, actor } = callerOf(request, 'manageCameras');
      return planChanges.changePlan(
        caller,
        request.body.customerId,
        request.body.newPlanId,
        idempotencyKeyOf(request),
        actor,
      );
    },
  );
};
