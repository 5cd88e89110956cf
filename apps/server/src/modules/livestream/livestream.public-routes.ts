/**
 * What customers' websites load (the only cross-origin pieces of the portal, DESIGN §1):
 * - GET /api/livestreaming/livestream-url?camera_id=<public id>: the latest clip's address as
 *   plain text, CORS for any origin, cached briefly;
 * - GET /embed/<public id>: the embed page, framable anywhere, with its own strict CSP;
 * - GET /embed/livestream-embed.js|css: its script and style (no inline script).
 */
import { livestreamUrlQuery } from '@farmcam/contract';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import {
  embedAssets,
  embedContentSecurityPolicy,
  embedScriptPath,
  embedStylePath,
  livestreamUrlPath,
  renderEmbedPage,
  renderMissingEmbedPage,
} from './embed.ts';
import { livestreamRepository } from './livestream.repository.ts';
import type { LivestreamService } from './livestream.service.ts';
import type { Database } from '../../db/client.ts';

/** Browsers and proxies may reuse an answer this long; a new clip shows up within it. */
const urlCacheSeconds = 30;

const allowAnyOrigin = (reply: FastifyReply) =>
  reply
    .header('access-control-allow-origin', '*')
    .header('access-control-allow-methods', 'GET, OPTIONS')
    .header('access-control-max-age', '86400');

export const livestreamPublicRoutes: FastifyPluginAsyncZod<{
  livestream: LivestreamService;
  db: Database;
  mediaOrigins: readonly string[];
}> = async (app, { livestream, db, mediaOrigins }) => {
  const publicEmbed = { securityHeaders: 'public-embed' as const };
  const pagePolicy = embedContentSecurityPolicy(mediaOrigins);

  app.get(
    livestreamUrlPath,
    {
      config: publicEmbed,
      onRequest: async (_request, reply) => {
        allowAnyOrigin(reply);
      },
      schema: {
        tags: ['livestreaming'],
        summary: "Public: the address of a livestream's latest clip, as plain text",
        description:
          'Used by the embed page as the video source. Readable from any origin; answers 404 (plain text) when the stream has no clip or is not available.',
        querystring: livestreamUrlQuery,
        response: {
          200: z.string().describe('A playable, expiring URL (text/plain)'),
          404: z.string().describe('Why there is nothing to play (text/plain)'),
        },
      },
      // The address is written as it is, not as JSON.
      serializerCompiler: () => (data) => String(data),
    },
    async (request, reply) => {
      try {
        const url = await livestream.latestClipUrl({
          publicId: request.query.camera_id,
          site: request.query.site,
          referer: request.headers.referer,
          isRefresh: request.query.refresh === '1',
        });
        return reply
          .type('text/plain; charset=utf-8')
          .header('cache-control', `public, max-age=${urlCacheSeconds}`)
          .send(url);
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'NOT_FOUND') throw error;
        return reply
          .code(404)
          .type('text/plain; charset=utf-8')
          .header('cache-control', `public, max-age=${urlCacheSeconds}`)
          .send(error.message);
      }
    },
  );

  app.options(
    livestreamUrlPath,
    { config: publicEmbed, schema: { hide: true } },
    async (_request, reply) => allowAnyOrigin(reply).code(204).send(),
  );

  app.get(
    embedScriptPath,
    { config: publicEmbed, schema: { hide: true } },
    async (_request, reply) =>
      reply
        .type('text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .send(embedAssets.script),
  );

  app.get(
    embedStylePath,
    { config: publicEmbed, schema: { hide: true } },
    async (_request, reply) =>
      reply
        .type('text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .send(embedAssets.style),
  );

  app.get(
    '/embed/:publicId',
    {
      config: publicEmbed,
      schema: { hide: true, params: z.object({ publicId: z.string().max(60) }) },
    },
    async (request, reply) => {
      const { publicId } = request.params;
      const isKnown =
        livestreamUrlQuery.shape.camera_id.safeParse(publicId).success &&
        (await livestreamRepository.findByPublicId(db, publicId)) !== undefined;
      return reply
        .code(isKnown ? 200 : 404)
        .type('text/html; charset=utf-8')
        .header('content-security-policy', pagePolicy)
        .header('cache-control', 'public, max-age=300')
        .send(isKnown ? renderEmbedPage(publicId) : renderMissingEmbedPage());
    },
  );
};
