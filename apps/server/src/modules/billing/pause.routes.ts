/**
 * /pause: the pause options of a camera's plan, pausing it, its booked pause and cancelling that (docs/requirements.md#api).
 * Writes accept an `Idempotency-Key` header: a retry with the same key is applied once.
 */
import {
  activePauseResponse,
  billingCustomerParams,
  cancelPauseBody,
  pauseOptionsResponse,
  pauseResultResponse,
  pauseSubscriptionBody,
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
import type { PauseService } from './pause.service.ts';

export const pauseRoutes: FastifyPluginAsyncZod<{
  pauses: PauseService;
}> = async (app, { pauses }) => {
  app.get(
    '/pause/pause-dates/:customerId',
    {
      schema: {
        tags: ['pause'],
        operationId: 'getPauseDates',
        summary: 'When a pause would start and the dates the plan can restart on',
        security,
        params: billingCustomerParams,
        response: { 200: pauseOptionsResponse, ...errors },
      },
    },
    async (request) => {
      const { caller } = callerOf(request, 'manageCameras');
      return pauses.pauseOptions(caller, request.params.customerId);
    },
  );

  app.post(
    '/pause/pause-subscription',
    {
      config: { idempotent: true },
      schema: {
        tags: ['pause'],
        operationId: 'pauseSubscription',
        summary: 'Pause from the next allowed 1st until the chosen restart date',
        security,
        headers: idempotencyHeaders,
        body: pauseSubscriptionBody,
        response: { 200: pauseResultResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { caller, actor } = callerOf(request, 'manageCameras');
      return pauses.pauseSubscription(
        caller,
        request.body.customer_id,
        request.body.resume_date,
        idempotencyKeyOf(request),
        actor,
      );
    },
  );

  app.get(
    '/pause/check-active-pause/:customerId',
    {
      schema: {
        tags: ['pause'],
        operationId: 'getActivePause',
        summary: 'The scheduled or running pause, if any',
        security,
        params: billingCustomerParams,
        response: { 200: activePauseResponse, ...errors },
      },
    },
    async (request) => {
      const { caller } = callerOf(request, 'read');
      return pauses.activePause(caller, request.params.customerId);
    },
  );

  app.post(
    '/pause/cancel-pause-subscription',
    {
      config: { idempotent: true },
      schema: {
        tags: ['pause'],
        operationId: 'cancelPause',
        summary: 'Cancel a scheduled pause (a running one restarts on the earliest 1st)',
        security,
        headers: idempotencyHeaders,
        body: cancelPauseBody,
        response: { 200: pauseResultResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { caller, actor } = callerOf(request, 'manageCameras');
      return pauses.cancelPause(caller, request.body.customer_id, idempotencyKeyOf(request), actor);
    },
  );
};
