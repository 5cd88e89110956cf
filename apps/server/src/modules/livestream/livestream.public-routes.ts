/**
 * What customers' websites load (the only cross-origin pieces of the portal, DESIGN §1):
 * - GET /api/livestreaming/livestream-url?camera_id=<public id>: the latest clip's address as
 *   plain text, CORS for any origin, cached briefly; `X-Clip-Caption` says when it was recorded
 *   (UK time), and a switched-off stream answers 404 with `X-Livestream-State: off`;
 * - GET /embed/<public id>: the embed page, framable anywhere, with its own strict CSP;
 * - GET /embed/livestream-embed.js|css: its script and style (no inline script).
 * Both anonymous routes are limited per network and per stream; refusals are plain-text 429s
 * with Retry-After (docs/decisions/063).
 */
import { livestreamUrlQuery } from '@farmcam/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
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
  renderRefusedEmbedPage,
} from './embed.ts';
import { isBrowserRequest, isLinkToken } from './public-links.rules.ts';
import { publicRefusalMessages, type LivestreamService } from './livestream.service.ts';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  createPageLoadTokens,
  ensurePageLoadSecret,
  viewerFingerprint,
  websiteHost,
} from './page-load-token.ts';

/** Browsers and proxies may reuse an answer this long; a new clip shows up within it. */
const urlCacheSeconds = 30;

const allowAnyOrigin = (reply: FastifyReply) =>
  reply
    .header('access-control-allow-origin', '*')
    .header('access-control-allow-methods', 'GET, OPTIONS')
    // A player on another origin may read the clip's caption and the switched-off state too.
    .header('access-control-expose-headers', 'x-clip-caption, x-livestream-state')
    .header('access-control-max-age', '86400');

/** Answers a refusal the way the endpoint answers everything: plain text, with its headers. */
function sendPlainError(reply: FastifyReply, error: AppError, cacheControl: string) {
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .type('text/plain; charset=utf-8')
    .header('cache-control', cacheControl)
    .send(error.message);
}

const viewerOf = (request: FastifyRequest) => {
  const userAgent = String(request.headers['user-agent'] ?? '');
  const acceptLanguage = request.headers['accept-language'];
  return {
    ip: request.ip,
    fingerprint: viewerFingerprint({ ip: request.ip, userAgent }),
    userAgent,
    isBrowser: isBrowserRequest({
      userAgent,
      acceptLanguage: Array.isArray(acceptLanguage) ? acceptLanguage[0] : acceptLanguage,
    }),
  };
};

/** A public link's answers depend on the site asking (Origin): never one shared cache copy. */
const cacheControlOf = (id: string) =>
  isLinkToken(id) ? `private, max-age=${urlCacheSeconds}` : `public, max-age=${urlCacheSeconds}`;

export const livestreamPublicRoutes: FastifyPluginAsyncZod<{
  livestream: LivestreamService;
  db: Database;
  clock: Clock;
  publicUrl: string;
  mediaOrigins: readonly string[];
}> = async (app, { livestream, db, clock, publicUrl, mediaOrigins }) => {
  const publicEmbed = { securityHeaders: 'public-embed' as const };
  const pagePolicy = embedContentSecurityPolicy(mediaOrigins);
  const portalHost = new URL(publicUrl).host.toLowerCase();
  const pageLoads = createPageLoadTokens(await ensurePageLoadSecret(db), () => clock.now());

  app.get(
    livestreamUrlPath,
    {
      config: publicEmbed,
      onRequest: async (_request, reply) => {
        allowAnyOrigin(reply);
      },
      schema: {
        tags: ['livestreaming'],
        operationId: 'getLivestreamUrl',
        security: [],
        summary: "Public: the address of a livestream's latest clip, as plain text",
        description:
          'Used by the embed page as the video source. Readable from any origin; answers 404 (plain text) when the stream has no clip, is switched off (X-Livestream-State: off) or is not available, and 400 (plain text) for an id that is not valid. X-Clip-Caption says when the clip was recorded (UK time).',
        querystring: livestreamUrlQuery,
        response: {
          200: z.string().describe('A playable, expiring URL (text/plain)'),
          404: z.string().describe('Why there is nothing to play (text/plain)'),
          429: z.string().describe('Too many requests; Retry-After says when to ask again'),
        },
      },
      // The address is written as it is, not as JSON.
      serializerCompiler: () => (data) => String(data),
      // A malformed id is answered in plain text too, like every answer of this endpoint (no 400
      // schema: the string serializer above would turn the error handler's JSON into text).
      attachValidation: true,
    },
    async (request, reply) => {
      if (request.validationError) {
        return sendPlainError(
          reply,
          new AppError('VALIDATION_FAILED', 'This livestream address is not valid.'),
          `public, max-age=${urlCacheSeconds}`,
        );
      }
      const publicId = request.query.camera_id;
      const viewer = viewerOf(request);
      // The framing site, as the embed page's load vouched for it; or, for a player on another
      // origin calling us itself, the Origin its browser set. Never the `site` query value.
      const site =
        pageLoads.verify(request.query.load, publicId, viewer.fingerprint) ??
        websiteHost(request.headers.origin, portalHost);
      try {
        const { url, caption } = await livestream.latestClipUrl({
          publicId,
          site,
          viewer,
          isRefresh: request.query.refresh === '1',
        });
        if (isLinkToken(publicId)) reply.header('vary', 'origin');
        return reply
          .type('text/plain; charset=utf-8')
          .header('cache-control', cacheControlOf(publicId))
          .header('x-clip-caption', caption)
          .send(url);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error.code === 'NOT_FOUND') {
          return sendPlainError(reply, error, cacheControlOf(publicId));
        }
        // A link's embed code on a site not on its list (decision 096).
        if (error.code === 'FORBIDDEN') return sendPlainError(reply, error, 'no-store');
        if (error.code === 'RATE_LIMITED') return sendPlainError(reply, error, 'no-store');
        throw error;
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
      const viewer = viewerOf(request);
      // A browser loading the frame inside a page names that page as the Referer (a frame's own
      // navigation, which page scripts cannot make up; Sec-Fetch-Dest says so where sent).
      const fetchDestination = request.headers['sec-fetch-dest'];
      const site =
        fetchDestination === undefined || fetchDestination === 'iframe'
          ? websiteHost(request.headers.referer, portalHost)
          : null;
      let embeddable: Awaited<ReturnType<LivestreamService['embeddable']>> = null;
      try {
        embeddable = livestreamUrlQuery.shape.camera_id.safeParse(publicId).success
          ? await livestream.embeddable(publicId, viewer, site)
          : null;
      } catch (error) {
        if (error instanceof AppError && error.code === 'RATE_LIMITED') {
          return sendPlainError(reply, error, 'no-store');
        }
        throw error;
      }
      const isKnown = embeddable !== null;
      if (embeddable?.refusal) {
        // Not on this site, expired or switched off: a poster that says so, never a blank.
        return reply
          .code(200)
          .type('text/html; charset=utf-8')
          .header('content-security-policy', pagePolicy)
          .header('cache-control', 'private, no-store')
          .send(renderRefusedEmbedPage(publicRefusalMessages[embeddable.refusal]));
      }
      const pageLoad = isKnown && site ? pageLoads.issue(publicId, site, viewer.fingerprint) : null;
      return (
        reply
          .code(isKnown ? 200 : 404)
          .type('text/html; charset=utf-8')
          .header('content-security-policy', pagePolicy)
          // The page carries a token for this viewer and site: never a shared cache's copy.
          .header('cache-control', 'private, no-store')
          .send(
            embeddable ? renderEmbedPage(publicId, pageLoad, embeddable) : renderMissingEmbedPage(),
          )
      );
    },
  );
};
