/**
 * The customer's livestreaming calls (docs/requirements.md#api), under /api. Each checks the session's customer
 * scope; the service checks ownership and eligibility.
 */
import {
  clipStatusQuery,
  clipStatusResponse,
  configureRtspBody,
  configureRtspResponse,
  createLivestreamLinkBody,
  livestreamLinkActionBody,
  livestreamLinkResponse,
  livestreamLinksQuery,
  livestreamLinksResponse,
  demoCameraResponse,
  errorBody,
  livestreamActiveBody,
  livestreamActiveResponse,
  livestreamCamerasResponse,
  rtspNowBody,
  rtspNowResponse,
  setupCameraBody,
  setupCameraResponse,
  shareCodeBody,
  shareCodeResponse,
  showcaseResponse,
} from '@farmcam/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireAbility, requireCameraAccess, requireCustomerScope } from '../auth/auth.plugin.ts';
import { withinCameras } from '../members/access.ts';
import type { CustomerScope, LivestreamService } from './livestream.service.ts';

const errors = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  409: errorBody,
  422: errorBody,
  429: errorBody,
  503: errorBody,
};

function scopeOf(request: FastifyRequest): CustomerScope {
  return {
    ...requireCustomerScope(request),
    ip: request.ip,
    userAgent: request.headers['user-agent'],
  };
}

/**
 * A change to one camera's livestream (set up, configure, record, share, switch on or off):
 * the role must manage cameras (403) and the camera be one of the person's (404, before any
 * work), decision 091.
 */
function changeScopeOf(request: FastifyRequest, iccid: string): CustomerScope {
  const { access } = requireAbility(request, 'manageCameras');
  requireCameraAccess(access, iccid);
  return scopeOf(request);
}

export const livestreamRoutes: FastifyPluginAsyncZod<{ livestream: LivestreamService }> = async (
  app,
  { livestream },
) => {
  const common = { tags: ['livestreaming'], security: [{ bearer: [] }] };

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
      const list = await livestream.listCameras(customerId);
      return {
        ...list,
        cameras: withinCameras(access, list.cameras, (camera) => camera.SIM_ICCID),
      };
    },
  );

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
      livestream.setupCamera(changeScopeOf(request, request.body.sim_number), {
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
      livestream.configure(changeScopeOf(request, request.body.camera_id), {
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
      livestream.recordNow(changeScopeOf(request, request.body.camera_id), {
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
      return livestream.clipStatus(customerId, {
        iccid: request.query.camera_id,
        storageKey: request.query.s3_key,
      });
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
      livestream.shareCode(changeScopeOf(request, request.body.camera_id), {
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
      livestream.setActive(changeScopeOf(request, request.body.camera_id), {
        iccid: request.body.camera_id,
        isActive: request.body.is_active,
      }),
  );

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
      return livestream.showcase();
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
      return livestream.demoCamera();
    },
  );

  // ── Public links (decision 096): a link to share or an embed code for listed sites ─────────

  app.get(
    '/livestreaming/links',
    {
      schema: {
        ...common,
        operationId: 'listLivestreamLinks',
        summary: "The livestream's public links and embed codes, with views per site (30 days)",
        querystring: livestreamLinksQuery,
        response: { 200: livestreamLinksResponse, ...errors },
      },
    },
    async (request) => {
      // Every role sees the links of the cameras it may reach; only managers change them.
      const { access } = requireCustomerScope(request);
      requireCameraAccess(access, request.query.camera_id);
      return livestream.listLinks(scopeOf(request), request.query.camera_id);
    },
  );

  app.post(
    '/livestreaming/links',
    {
      schema: {
        ...common,
        operationId: 'createLivestreamLink',
        summary:
          'Make a link to share (with an expiry) or an embed code for listed website domains',
        body: createLivestreamLinkBody,
        response: { 200: livestreamLinkResponse, ...errors },
      },
    },
    async (request) =>
      livestream.createLink(changeScopeOf(request, request.body.camera_id), request.body),
  );

  app.post(
    '/livestreaming/links/revoke',
    {
      schema: {
        ...common,
        operationId: 'revokeLivestreamLink',
        summary: 'Switch a public link or embed code off for good',
        body: livestreamLinkActionBody,
        response: { 200: livestreamLinkResponse, ...errors },
      },
    },
    async (request) =>
      livestream.revokeLink(changeScopeOf(request, request.body.camera_id), {
        iccid: request.body.camera_id,
        linkId: request.body.link_id,
      }),
  );

  app.post(
    '/livestreaming/links/reissue',
    {
      schema: {
        ...common,
        operationId: 'reissueLivestreamLink',
        summary: 'Switch a link off and make a new one with the same settings (a new address)',
        body: livestreamLinkActionBody,
        response: { 200: livestreamLinkResponse, ...errors },
      },
    },
    async (request) =>
      livestream.reissueLink(changeScopeOf(request, request.body.camera_id), {
        iccid: request.body.camera_id,
        linkId: request.body.link_id,
      }),
  );
};
