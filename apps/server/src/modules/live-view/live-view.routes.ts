import {
  errorBody,
  liveViewCamerasResponse,
  liveViewHeartbeatRequest,
  liveViewHeartbeatResponse,
  liveViewParams,
  liveViewSettingRequest,
  liveViewSettingResponse,
  liveViewStatusResponse,
  liveViewViewerParams,
  startLiveViewResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { requireCameraAccess, requireCustomerScope } from '../auth/auth.plugin.ts';
import { liveViewMessages, type LiveViewService } from './live-view.service.ts';

const errors = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  409: errorBody,
  503: errorBody,
};

/**
 * Live view of a camera (issue 27, decisions 151-156): for the owner, managers and viewers whose
 * cameras include it, and staff inside the customer's portal; another customer's camera is 404.
 * The playlist's address carries the viewer's own secret (a native HLS player sends no bearer
 * token); its segments are signed storage addresses. Public links never reach any of it.
 */
export const liveViewRoutes: FastifyPluginAsyncZod<{ liveView: LiveViewService }> = async (
  app,
  { liveView },
) => {
  app.get(
    '/live-view',
    {
      schema: {
        tags: ['live view'],
        operationId: 'listLiveViewCameras',
        summary: "Which of the person's cameras offer Watch live, and each one's latest still",
        security: [{ bearer: [] }],
        response: { 200: liveViewCamerasResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      return liveView.listCameras(customerId, access);
    },
  );

  app.get(
    '/live-view/:iccid',
    {
      schema: {
        tags: ['live view'],
        operationId: 'getLiveViewStatus',
        summary: 'Whether the camera can be watched live now, why not, and its Hours and data left',
        security: [{ bearer: [] }],
        params: liveViewParams,
        response: { 200: liveViewStatusResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      requireCameraAccess(access, request.params.iccid);
      return liveView.status(customerId, access, request.params.iccid);
    },
  );

  app.post(
    '/live-view/:iccid/watch',
    {
      schema: {
        tags: ['live view'],
        operationId: 'startLiveView',
        summary: "Start watching: joins the camera's pull, or asks a worker to start one",
        security: [{ bearer: [] }],
        params: liveViewParams,
        response: { 200: startLiveViewResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, principal, access } = requireCustomerScope(request);
      requireCameraAccess(access, request.params.iccid);
      return liveView.start(customerId, principal, request.params.iccid);
    },
  );

  app.post(
    '/live-view/:iccid/viewers/:viewerId/heartbeat',
    {
      schema: {
        tags: ['live view'],
        operationId: 'liveViewHeartbeat',
        summary: "A viewer is still watching: the view's state, its data so far, Still watching?",
        security: [{ bearer: [] }],
        params: liveViewViewerParams,
        body: liveViewHeartbeatRequest.optional(),
        response: { 200: liveViewHeartbeatResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      requireCameraAccess(access, request.params.iccid);
      return liveView.heartbeat(
        customerId,
        access,
        request.params.iccid,
        request.params.viewerId,
        request.body?.stillWatching === true,
      );
    },
  );

  app.delete(
    '/live-view/:iccid/viewers/:viewerId',
    {
      schema: {
        tags: ['live view'],
        operationId: 'stopLiveView',
        summary: 'Stop watching; the pull stops when nobody else watches',
        security: [{ bearer: [] }],
        params: liveViewViewerParams,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      const { customerId, access } = requireCustomerScope(request);
      requireCameraAccess(access, request.params.iccid);
      await liveView.leave(customerId, request.params.iccid, request.params.viewerId);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/live-view/:iccid/setting',
    {
      schema: {
        tags: ['live view'],
        operationId: 'setLiveViewEnabled',
        summary: 'Turn live view on or off for this camera (the owner)',
        security: [{ bearer: [] }],
        params: liveViewParams,
        body: liveViewSettingRequest,
        response: { 200: liveViewSettingResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, principal, access } = requireCustomerScope(request);
      // Asked before the camera, as every role refusal is: it tells nothing about the camera.
      if (access.role !== 'owner')
        throw new AppError('FORBIDDEN', liveViewMessages.settingOwnerOnly);
      requireCameraAccess(access, request.params.iccid);
      return liveView.setEnabled(
        customerId,
        principal,
        request.params.iccid,
        request.body.isEnabled,
      );
    },
  );

  app.get(
    '/live-view/play/:token/index.m3u8',
    {
      schema: {
        tags: ['live view'],
        operationId: 'liveViewPlaylist',
        summary: "A viewer's HLS playlist; the address is the viewer's own secret",
        security: [],
        params: z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{20,64}$/) }),
        produces: ['application/vnd.apple.mpegurl'],
        response: { 200: z.string(), 400: errorBody, 404: errorBody },
      },
    },
    async (request, reply) => {
      const playlist = await liveView.playlist(request.params.token);
      return reply
        .type('application/vnd.apple.mpegurl')
        .header('cache-control', 'no-store')
        .send(playlist);
    },
  );
};
