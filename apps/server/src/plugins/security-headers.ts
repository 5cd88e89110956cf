/**
 * Security headers, decided by helmet (@fastify/helmet) and applied by one callback hook
 * (docs/decisions/080). @fastify/helmet builds helmet's middleware again on every request, which
 * halved the throughput of a small route in our measurement, so helmet runs once per header set
 * at start-up against a probe request and the hook copies what it set. Answers made before any
 * route runs (error-handler.ts) take the strict set from here too.
 */
import Fastify from 'fastify';
import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import fp from 'fastify-plugin';

export interface SecurityHeaderOptions {
  isHttps: boolean;
  /** Other origins video plays from (clips in an S3 bucket), added to media-src. */
  mediaOrigins?: readonly string[];
  /**
   * Origins the SPA loads a script and a frame from: Stripe's pricing table element when the
   * activation wizard shows it (BILLING=stripe with pricing tables), else none.
   */
  embeddedWidgetOrigins?: readonly string[];
}

/** The strict policy for the SPA and the API: no inline script, no framing, same origin only. */
function contentSecurityPolicyDirectives(options: SecurityHeaderOptions) {
  const widgets = options.embeddedWidgetOrigins ?? [];
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'", ...widgets],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'"],
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

export const securityHeadersPlugin = fp(
  async (app, options: SecurityHeaderOptions) => {
    const headers = await headersFromHelmet(strictHelmetOptions(options));
    const embedHeaders = await headersFromHelmet(publicEmbedHelmetOptions(options));
    // A callback hook: no promise per request on the hot path (docs/decisions/065).
    app.addHook('onRequest', (request, reply, done) => {
      const mode = request.routeOptions.config?.securityHeaders ?? 'default';
      if (mode === 'default') reply.headers(headers);
      else if (mode === 'public-embed') reply.headers(embedHeaders);
      done();
    });
  },
  { name: 'security-headers' },
);
