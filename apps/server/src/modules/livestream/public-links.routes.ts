/**
 * Public links to a livestream and embed codes for chosen websites: listing, making, revoking and reissuing them (decisions 096, 100). Customer calls under /api (docs/requirements.md#api); each checks the session's
 * customer scope, and the service ownership and eligibility.
 */
import {
  createLivestreamLinkBody,
  livestreamLinkActionBody,
  livestreamLinkResponse,
  livestreamLinksQuery,
  livestreamLinksResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireCameraAccess, requireCustomerScope } from '../auth/auth.plugin.ts';
import { common, errors, scopeOf, changeScopeOf } from './livestream-route-guards.ts';
import type { PublicLinksService } from './public-links.service.ts';

export const publicLinksRoutes: FastifyPluginAsyncZod<{ publicLinks: PublicLinksService }> = async (
  app,
  { publicLinks },
) => {
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
      return publicLinks.listLinks(scopeOf(request), request.query.camera_id);
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
      publicLinks.createLink(changeScopeOf(request, request.body.camera_id), request.body),
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
      publicLinks.revokeLink(changeScopeOf(request, request.body.camera_id), {
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
      publicLinks.reissueLink(changeScopeOf(request, request.body.camera_id), {
        iccid: request.body.camera_id,
        linkId: request.body.link_id,
      }),
  );
};
