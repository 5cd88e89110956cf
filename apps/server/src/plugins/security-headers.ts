import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** The strict policy for the SPA and the API: no inline script, no framing, same origin only. */
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "media-src 'self' blob:",
  "object-src 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** Helmet's defaults, written out once: computing them per request cost a fifth of the CPU. */
const baseHeaders: Record<string, string> = {
  'content-security-policy': contentSecurityPolicy,
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

const strictTransportSecurity = 'max-age=31536000; includeSubDomains';

/**
 * The strict set for answers made before any route runs (a malformed address, a request the HTTP
 * parser refuses): the plugin's hook never sees those, so the error answers add these themselves.
 */
export function strictSecurityHeaders(isHttps: boolean): Record<string, string> {
  return isHttps
    ? { ...baseHeaders, 'strict-transport-security': strictTransportSecurity }
    : { ...baseHeaders };
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
  async (
    app: FastifyInstance,
    options: {
      isHttps: boolean;
      /** Other origins video plays from (clips in an S3 bucket), added to media-src. */
      mediaOrigins?: readonly string[];
      /**
       * Origins the SPA loads a script and a frame from: Stripe's pricing table element when the
       * activation wizard shows it (BILLING=stripe with pricing tables), else none.
       */
      embeddedWidgetOrigins?: readonly string[];
    },
  ) => {
    const extraMedia = options.mediaOrigins ?? [];
    const policy =
      extraMedia.length === 0
        ? contentSecurityPolicy
        : contentSecurityPolicy.replace(
            "media-src 'self' blob:",
            `media-src 'self' blob: ${extraMedia.join(' ')}`,
          );
    const widgets = options.embeddedWidgetOrigins ?? [];
    const withWidgets =
      widgets.length === 0
        ? policy
        : policy
            .replace("script-src 'self'", `script-src 'self' ${widgets.join(' ')}`)
            .replace("frame-src 'none'", `frame-src ${widgets.join(' ')}`);
    const secureHeaders = { ...baseHeaders, 'content-security-policy': withWidgets };
    const headers = options.isHttps
      ? { ...secureHeaders, 'strict-transport-security': strictTransportSecurity }
      : secureHeaders;
    const embedHeaders = Object.fromEntries(
      Object.entries(headers).filter(
        ([name]) =>
          ![
            'content-security-policy',
            'x-frame-options',
            'cross-origin-resource-policy',
            'cross-origin-opener-policy',
          ].includes(name),
      ),
    );
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
