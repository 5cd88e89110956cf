/**
 * Setting a camera up for livestreaming: opening its RTSP port, the recording schedule, a clip now and its progress. Customer calls under /api (docs/requirements.md#api); each checks the session's
 * customer scope, and the service ownership and eligibility.
 */
import {
  clipStatusQuery,
  clipStatusResponse,
  configureRtspBody,
  configureRtspResponse,
  rtspNowBody,
  rtspNowResponse,
  setupCameraBody,
  setupCameraResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireCameraAccess, requireCustomerScope } from '../auth/auth.plugin.ts';
import { common, errors, changeScopeOf } from './livestream-route-guards.ts';
import type { LivestreamSetupService } from './livestream-setup.service.ts';

export const livestreamSetupRoutes: FastifyPluginAsyncZod<{
  setup: LivestreamSetupService;
}> = async (app, { setup }) => {
  app.post(
    '/livestreaming/setup-camera',
    {
      schema: {
        ...common,
        operationId: 'setUpLivestreamCamera',
        summary: "Open the camera's RTSP port (554) to the recorders and create its livestream",
        body: setupCameraBody,
        response: { 200: setupCameraResponse, ...errors },
      },
    },
    async (request) =>
      setup.setupCamera(changeScopeOf(request, request.body.sim_number), {
        iccid: request.body.sim_number,
        ports: request.body.ports,
      }),
  );

  app.post(
    '/livestreaming/configure-rtsp',
    {
      schema: {
        ...common,
        operationId: 'configureLivestream',
        summary: 'Save the stream path, clip length, audio and the recording schedule',
        body: configureRtspBody,
        response: { 200: configureRtspResponse, ...errors },
      },
    },
    async (request) =>
      setup.configure(changeScopeOf(request, request.body.camera_id), {
        iccid: request.body.camera_id,
        rtspPath: request.body.rtsp_path,
        durationSeconds: request.body.duration,
        includeAudio: request.body.include_audio,
        isActive: request.body.is_active,
        schedule: request.body.schedule,
      }),
  );

  app.post(
    '/livestreaming/rtsp-now',
    {
      schema: {
        ...common,
        operationId: 'recordClipNow',
        summary: 'Record a clip now (the preview is 5 s without audio); poll /livestreaming/clip',
        body: rtspNowBody,
        response: { 200: rtspNowResponse, ...errors },
      },
    },
    async (request) =>
      setup.recordNow(changeScopeOf(request, request.body.camera_id), {
        iccid: request.body.camera_id,
        rtspPath: request.body.rtsp_path,
        durationSeconds: request.body.duration,
        includeAudio: request.body.include_audio,
      }),
  );

  app.get(
    '/livestreaming/clip',
    {
      schema: {
        ...common,
        operationId: 'getClip',
        summary: 'Where a recording stands, with a playable address once ready',
        querystring: clipStatusQuery,
        response: { 200: clipStatusResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      requireCameraAccess(access, request.query.camera_id);
      return setup.clipStatus(customerId, {
        iccid: request.query.camera_id,
        storageKey: request.query.s3_key,
      });
    },
  );
};
