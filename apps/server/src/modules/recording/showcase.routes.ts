/**
 * The Livestreaming page's live demo: a recent clip of the demo camera, and what the machine
 * lacks to run one. Customer calls under /api (docs/requirements.md#api); each checks the
 * session's customer scope.
 */
import { demoCameraResponse, showcaseResponse } from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireCustomerScope } from '../auth/auth.plugin.ts';
import { common, errors } from '../livestream/livestream-route-guards.ts';
import type { ShowcaseService } from './showcase.service.ts';

export const livestreamShowcaseRoutes: FastifyPluginAsyncZod<{
  showcase: ShowcaseService;
}> = async (app, { showcase }) => {
  app.get(
    '/livestreaming/showcase',
    {
      schema: {
        ...common,
        operationId: 'getShowcaseClip',
        summary: "A recent clip of the demo camera, for the Livestreaming page's live demo",
        response: { 200: showcaseResponse, ...errors },
      },
    },
    async (request) => {
      requireCustomerScope(request);
      return showcase.showcase();
    },
  );

  app.get(
    '/livestreaming/demo-camera',
    {
      schema: {
        ...common,
        operationId: 'getDemoCameraStatus',
        summary: 'Whether the demo camera can run on this server, and what to install if not',
        response: { 200: demoCameraResponse, ...errors },
      },
    },
    async (request) => {
      requireCustomerScope(request);
      return showcase.demoCamera();
    },
  );
};
