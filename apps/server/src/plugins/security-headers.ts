/**
 * Security headers, decided by helmet (@fastify/helmet) and applied by one callback hook
 * (docs/decisions/080, 090). @fastify/helmet builds helmet's middleware again on every request
 * (reading the options, writing the policy string) from async hooks, then helmet calls Node's
 * setHeader once per header; that halved the throughput of a small route in our measurement, so
 * helmet runs once per header set at start-up against a probe request and the hook copies what it
 * set (decision 090 measured it again). Every answer gets the strict set
 * without looking its route up; the few routes that want another set swap it in a hook of their
 * own. Answers made before any route runs (error-handler.ts) take the strict set from here too.
 */
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import fp from 'fastify-plugin';

export interface SecurityHeaderOptions {
  isHttps: boolean;
  /**
   * Other origins video plays from (clips in an S3 bucket), added to media-src, to connect-src
   * for hls.js, which fetches live segments (decision 151), and to img-src for cameras' stills
   * (decision 157).
   */
  mediaOrigins?: readonly string[];
  /**
   * Origins the SPA loads a script and a frame from: Stripe's pricing table element when the
   * activation wizard shows it (BILLING=stripe with pricing tables), else none.
   */
  embeddedWidgetOrigins?: readonly string[];
  /**
   * The built pages' inline scripts and styles, as CSP sources (`'sha256-…'`): the theme before
   * the first paint, a signed-in page's early start and the app's style sheet, inline so they
   * cost no request on one bar of signal (static-spa.ts reads them from the build, decision 118).
   * No other inline script or style applies.
   */
  inlineSources?: { readonly scripts: readonly string[]; readonly styles: readonly string[] };
}

/**
 * The strict policy for the SPA and the API: no inline script or style but the build's own (by
 * hash), no framing, same origin only.
 */
function contentSecurityPolicyDirectives(options: SecurityHeaderOptions) {
  const widgets = options.embeddedWidgetOrigins ?? [];
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'", ...(options.inlineSources?.scripts ?? []), ...widgets],
    'style-src': ["'self'", ...(options.inlineSources?.styles ?? [])],
    'img-src': ["'self'", 'data:', ...(options.mediaOrigins ?? [])],
    'font-src': ["'self'"],
    'connect-src': ["'self'", ...(options.mediaOrigins ?? [])],
    'media-src': ["'self'", 'blob:', ...(options.mediaOrigins ?? [])],
    'object-src': ["'none'"],
    'frame-src': widgets.length > 0 ? [...widgets] : ["'none'"],
    'frame-ancestors': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
  };
}

const transportSecurity = (isHttps: boolean) =>
  isHttps ? { maxAge: 31_536_000, includeSubDomains: true } : (false as const);

/** Helmet's defaults but our policy, framing denied outright, and HSTS only over https. */
function strictHelmetOptions(options: SecurityHeaderOptions): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: contentSecurityPolicyDirectives(options),
    },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: transportSecurity(options.isHttps),
  };
}

/**
 * For what customers put on their own websites (livestream embed and its URL): framable and
 * readable from any origin, so no policy of ours, no X-Frame-Options and no cross-origin isolation.
 */
function publicEmbedHelmetOptions(options: SecurityHeaderOptions): FastifyHelmetOptions {
  return {
    strictTransportSecurity: transportSecurity(options.isHttps),
    contentSecurityPolicy: false,
    xFrameOptions: false,
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
  };
}

/** The headers helmet sets with these options, read once from a probe request. */
async function headersFromHelmet(options: FastifyHelmetOptions): Promise<Record<string, string>> {
  const probe = Fastify();
  let headers: Record<string, string> = {};
  await probe.register(fastifyHelmet, options);
  // Registered after helmet, so it runs after helmet's own onRequest hooks.
  probe.addHook('onRequest', (_request, reply, done) => {
    headers = Object.fromEntries(
      Object.entries(reply.raw.getHeaders()).map(([name, value]) => [name, String(value)]),
    );
    done();
  });
  probe.get('/', (_request, reply) => {
    void reply.send();
  });
  await probe.inject({ method: 'GET', url: '/' });
  await probe.close();
  return headers;
}

const strictOverHttp = await headersFromHelmet(strictHelmetOptions({ isHttps: false }));
const strictOverHttps = await headersFromHelmet(strictHelmetOptions({ isHttps: true }));

/**
 * The strict set for answers made before any route runs (a malformed address, a request the HTTP
 * parser refuses): the plugin's hook never sees those, so the error answers add these themselves.
 */
export function strictSecurityHeaders(isHttps: boolean): Record<string, string> {
  return { ...(isHttps ? strictOverHttps : strictOverHttp) };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `default`: the strict set above. `public-embed`: for what customers put on their own
     * websites (livestream embed and its URL): framable and readable from any origin.
     * `self-managed`: the route sets its own policy (e.g. the API docs).
     */
    securityHeaders?: 'default' | 'public-embed' | 'self-managed';
  }
}

type HeaderHook = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

/** A callback hook that sets these headers (names and values read once, not per request). */
function settingHook(headers: Record<string, string>): HeaderHook {
  const names = Object.keys(headers);
  const values = Object.values(headers);
  return (_request, reply, done) => {
    for (let index = 0; index < names.length; index += 1) {
      void reply.header(names[index]!, values[index]);
    }
    done();
  };
}

export const securityHeadersPlugin = fp(
  async (app, options: SecurityHeaderOptions) => {
    const headers = await headersFromHelmet(strictHelmetOptions(options));
    const embedHeaders = await headersFromHelmet(publicEmbedHelmetOptions(options));
    const strictNames = Object.keys(headers);
    const setEmbedHeaders = settingHook(embedHeaders);
    // Every answer starts with the strict set, without asking which route it is: reading
    // `request.routeOptions` builds an object of 13 fields on every call (docs/decisions/090).
    // A callback hook: no promise per request on the hot path (docs/decisions/065).
    app.addHook('onRequest', settingHook(headers));
    // The few routes that want another set swap it in a hook of their own, which Fastify runs
    // after the app's onRequest hooks. An app hook that fails before it (a database error while
    // resolving the session) leaves the strict set on that error answer: the safe side.
    app.addHook('onRoute', (route) => {
      const mode = route.config?.securityHeaders ?? 'default';
      if (mode === 'default') return;
      const swap: HeaderHook = (request, reply, done) => {
        for (const name of strictNames) void reply.removeHeader(name);
        if (mode === 'public-embed') setEmbedHeaders(request, reply, done);
        else done();
      };
      const own = route.onRequest;
      route.onRequest = own === undefined ? [swap] : [...[own].flat(), swap];
    });
  },
  { name: 'security-headers' },
);
