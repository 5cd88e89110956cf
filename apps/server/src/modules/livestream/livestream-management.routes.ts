/**
 * The livestreams once set up: the cameras that may livestream, switching one on or off, sharing its embed code by e-mail. Customer calls under /api (docs/requirements.md#api); each checks the session's
 * customer scope, and the service ownership and eligibility.
 */
import {
  livestreamActiveBody,
  livestreamActiveResponse,
  livestreamCamerasResponse,
  shareCodeBody,
  shareCodeResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { withinCameras } from '../auth/access.ts';
import { requireCustomerScope } from '../auth/auth.plugin.ts';
import { common, errors, changeScopeOf } from './livestream-route-guards.ts';
import type { LivestreamManagementService } from './livestream-management.service.ts';

export const livestreamManagementRoutes: FastifyPluginAsyncZod<{
  management: LivestreamManagementService;
}> = async (app, { management }) => {
  app.get(
    '/livestreaming/cameras',
    {
      schema: {
        ...common,
        operationId: 'listLivestreamCameras',
        summary: "The customer's cameras that may livestream (active Heavy Streaming plans)",
        response: { 200: livestreamCamerasResponse, ...errors },
      },
    },
    async (request) => {
      // Every role sees (and watches) the livestreams of the cameras it may reach.
      const { customerId, access } = requireCustomerScope(request);
      const list = await management.listCameras(customerId);
      return {
        ...list,
        cameras: withinCameras(access, list.cameras, (camera) => camera.SIM_ICCID),
      };
    },
  );

  app.post(
    '/livestreaming/share-code',
    {
      schema: {
        ...common,
        operationId: 'shareEmbedCode',
        summary: 'E-mail the embed code (rate limited)',
        body: shareCodeBody,
        response: { 200: shareCodeResponse, ...errors },
      },
    },
    async (request) =>
      management.shareCode(changeScopeOf(request, request.body.camera_id), {
        iccid: request.body.camera_id,
        emailAddress: request.body.email_address,
      }),
  );

  app.post(
    '/livestreaming/set-active',
    {
      schema: {
        ...common,
        operationId: 'setLivestreamActive',
        summary: 'Switch a saved schedule on or off',
        body: livestreamActiveBody,
        response: { 200: livestreamActiveResponse, ...errors },
      },
    },
    async (request) =>
      management.setActive(changeScopeOf(request, request.body.camera_id), {
        iccid: request.body.camera_id,
        isActive: request.body.is_active,
      }),
  );
};
