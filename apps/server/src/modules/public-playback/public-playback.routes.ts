/**
 * What customers' websites load (the only cross-origin pieces of the portal, DESIGN §1):
 * - GET /api/livestreaming/livestream-url?camera_id=<public id>: the latest clip's address as
 *   plain text (it lives five minutes); `X-Clip-Caption` says when it was recorded (UK time), and
 *   a switched-off stream answers 404 with `X-Livestream-State: off`. A livestream's own code
 *   (`ls_`) is readable from any origin and cached briefly; a public link (`lk_`) only by its own
 *   embed page, never cached, and only with that page's page-load token, which each answer renews
 *   (`X-Page-Load`; docs/decisions/100);
 * - GET /embed/<public id>: the embed page with its own strict CSP, framable anywhere except an
 *   embed code's, which only its listed websites may frame;
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
} from '../livestream/embed.ts';
import {
  frameAncestorSources,
  isBrowserRequest,
  isLinkToken,
} from '../livestream/public-links.rules.ts';
import type { LivestreamPlaybackService } from './public-playback.service.ts';
import { publicNotice } from './public-notice.ts';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { clientNetwork } from '../../lib/client-address.ts';
import { createPageLoadTokens, ensurePageLoadSecret, websiteHost } from './page-load-token.ts';

/**
 * Browsers and proxies may reuse a livestream's own code's answer this long; a new clip shows up
 * within it. A public link's answers are never kept (each carries a renewed page-load token).
 */
const urlCacheSeconds = 30;

/** A public link's own refusals: answered without renewing its page's proof. */
const linkRefusals = new Set(['not-allowed', 'reload', 'expired', 'revoked', 'missing']);

/** Whether a request names a public link (`lk_`): answered to its own embed page only. */
const asksForLink = (request: FastifyRequest) => {
  const query = request.query as { camera_id?: unknown } | undefined;
  return typeof query?.camera_id === 'string' && isLinkToken(query.camera_id);
};

const allowAnyOrigin = (reply: FastifyReply) =>
  reply
    .header('access-control-allow-origin', '*')
    .header('access-control-allow-methods', 'GET, OPTIONS')
    // A player on another origin may read the clip's caption and the switched-off state too.
    .header(
      'access-control-expose-headers',
      'x-clip-caption, x-livestream-state, x-camera-name, x-next-clip-at, retry-after',
    )
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

/** Who asks, as limits and counts see it: the network, and whether it looks like a browser. */
const viewerOf = (request: FastifyRequest) => {
  const userAgent = String(request.headers['user-agent'] ?? '');
  const acceptLanguage = request.headers['accept-language'];
  return {
    network: clientNetwork(request.ip),
    isBrowser: isBrowserRequest({
      userAgent,
      acceptLanguage: Array.isArray(acceptLanguage) ? acceptLanguage[0] : acceptLanguage,
    }),
  };
};

/**
 * A public link's answers (clips, refusals) are for one page load and stop when the link does:
 * never kept. The livestream's own code's are the same for everyone for a while.
 */
const cacheControlOf = (id: string) =>
  isLinkToken(id) ? 'no-store' : `public, max-age=${urlCacheSeconds}`;

export const livestreamPublicRoutes: FastifyPluginAsyncZod<{
  playback: Pick<LivestreamPlaybackService, 'embeddable' | 'latestClipUrl'>;
  db: Database;
  clock: Clock;
  publicUrl: string;
  mediaOrigins: readonly string[];
}> = async (app, { playback, db, clock, publicUrl, mediaOrigins }) => {
  const publicEmbed = { securityHeaders: 'public-embed' as const };
  const pagePolicy = embedContentSecurityPolicy(mediaOrigins);
  const pagePolicyFor = (allowedDomains: readonly string[]) =>
    allowedDomains.length === 0
      ? pagePolicy
      : embedContentSecurityPolicy(mediaOrigins, frameAncestorSources(allowedDomains));
  const portalHost = new URL(publicUrl).host.toLowerCase();
  const pageLoads = createPageLoadTokens(await ensurePageLoadSecret(db), () => clock.now());

  app.get(
    livestreamUrlPath,
    {
      config: publicEmbed,
      // A public link is read by its own embed page (same origin) only: no CORS at all, so no
      // page elsewhere can read its clip address, whatever Origin it has (decision 100).
      onRequest: async (request, reply) => {
        if (!asksForLink(request)) allowAnyOrigin(reply);
      },
      schema: {
        tags: ['livestreaming'],
        operationId: 'getLivestreamUrl',
        security: [],
        summary: "Public: the address of a livestream's latest clip, as plain text",
        description:
          "Used by the embed page as the video source; the address lives five minutes. A livestream's own code (ls_) is readable from any origin; a public link (lk_) only by its embed page, with that page's page-load token (load), renewed in X-Page-Load with each answer. Answers 404 (plain text: a sentence for the viewer) when there is nothing to play, with X-Livestream-State saying why: no-clip (X-Next-Clip-At: when the schedule's next clip is due), off, paused, data-paused, terminated, unavailable, expired, revoked or missing; 403 not-allowed for a link without a page load proved from a site on its list, reload for a lapsed one. X-Camera-Name (percent-encoded) names the camera for a viewer who may know it; Retry-After says when to ask again, absent for final states (terminated, expired, revoked, not-allowed, reload, missing). 400 (plain text) for an id that is not valid. X-Clip-Caption says when the clip was recorded (UK time).",
        querystring: livestreamUrlQuery,
        response: {
          200: z.string().describe('A playable URL that expires within five minutes (text/plain)'),
          403: z.string().describe('A public link without an allowed page load (text/plain)'),
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
      // What this request proves: the embed page's token (or its renewal), for this id and
      // network. Never the `site` query value, nor Origin or Referer alone (decision 100).
      const proof = pageLoads.verify(request.query.load, publicId, viewer.network);
      // The next request's proof: the same page load, for another half hour. Renewed with a clip
      // and with the camera's reason for none (no clip yet, paused: the link itself passed), so a
      // page waiting for its first clip keeps its proof; never with a refusal of the link
      // (decision 120).
      const renewProof = () => {
        if (isLinkToken(publicId) && proof?.isCurrent) {
          reply.header('x-page-load', pageLoads.issue(publicId, proof.site, viewer.network));
        }
      };
      try {
        const { url, caption } = await playback.latestClipUrl({
          publicId,
          proof,
          origin: websiteHost(request.headers.origin, portalHost),
          viewer,
          isRefresh: request.query.refresh === '1',
        });
        renewProof();
        return reply
          .type('text/plain; charset=utf-8')
          .header('cache-control', cacheControlOf(publicId))
          .header('x-clip-caption', caption)
          .send(url);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error.code === 'NOT_FOUND') {
          const state = error.headers['x-livestream-state'];
          if (state && !linkRefusals.has(state)) renewProof();
          return sendPlainError(reply, error, cacheControlOf(publicId));
        }
        // A link without a current page load proved on a site it may play on (decision 100).
        if (error.code === 'FORBIDDEN') return sendPlainError(reply, error, 'no-store');
        if (error.code === 'RATE_LIMITED') return sendPlainError(reply, error, 'no-store');
        throw error;
      }
    },
  );

  app.options(
    livestreamUrlPath,
    { config: publicEmbed, schema: { hide: true } },
    async (request, reply) => {
      if (!asksForLink(request)) allowAnyOrigin(reply);
      return reply.code(204).send();
    },
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
      let embeddable: Awaited<ReturnType<LivestreamPlaybackService['embeddable']>> = null;
      try {
        embeddable = livestreamUrlQuery.shape.camera_id.safeParse(publicId).success
          ? await playback.embeddable(publicId, viewer, site)
          : null;
      } catch (error) {
        if (error instanceof AppError && error.code === 'RATE_LIMITED') {
          return sendPlainError(reply, error, 'no-store');
        }
        throw error;
      }
      if (!embeddable) {
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .header('content-security-policy', pagePolicy)
          .header('cache-control', 'private, no-store')
          .send(renderMissingEmbedPage(publicNotice('missing', { cameraName: null }, clock.now())));
      }
      // The page's proof for its script: this id, the site that framed it (or none), this network.
      const pageLoad = pageLoads.issue(publicId, site, viewer.network);
      if (embeddable.refusal) {
        // Not on this site, expired or switched off: a poster that says so, never a blank, in any
        // frame (so the visitor learns why); its script reports the refused try with the token.
        return reply
          .code(200)
          .type('text/html; charset=utf-8')
          .header('content-security-policy', pagePolicy)
          .header('cache-control', 'private, no-store')
          .send(renderRefusedEmbedPage(embeddable.refusal.sentence, publicId, pageLoad));
      }
      return (
        reply
          .code(200)
          .type('text/html; charset=utf-8')
          // An embed code's player may be framed by its listed websites only (every ancestor).
          .header('content-security-policy', pagePolicyFor(embeddable.allowedDomains))
          // The page carries a token for this viewer and site: never a shared cache's copy.
          .header('cache-control', 'private, no-store')
          .send(renderEmbedPage(publicId, pageLoad, embeddable))
      );
    },
  );
};
