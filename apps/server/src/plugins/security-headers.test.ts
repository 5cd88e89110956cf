import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  securityHeadersPlugin,
  strictSecurityHeaders,
  type SecurityHeaderOptions,
} from './security-headers.ts';

/** The strict policy's directives, in order, as the app has always sent them. */
const strictPolicy = [
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
];

/** Every header but the policy, as the app sent them before helmet decided them (decision 080). */
const otherStrictHeaders = {
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

const directives = (policy: unknown) => String(policy).split(/;\s*/);

async function headersOf(
  options: SecurityHeaderOptions,
  mode?: 'default' | 'public-embed' | 'self-managed',
) {
  const app = Fastify();
  await app.register(securityHeadersPlugin, options);
  app.get('/', { config: mode ? { securityHeaders: mode } : {} }, async () => 'ok');
  const response = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  const {
    'content-type': _type,
    'content-length': _length,
    date: _date,
    connection: _connection,
    ...headers
  } = response.headers;
  return headers;
}

describe('security headers', () => {
  it('sends the strict set on every route, HSTS only over https', async () => {
    const { 'content-security-policy': policy, ...others } = await headersOf({ isHttps: false });
    expect(directives(policy)).toEqual(strictPolicy);
    expect(others).toEqual(otherStrictHeaders);

    const overHttps = await headersOf({ isHttps: true });
    expect(overHttps['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });

  it('lets pages play clips, fetch live segments and show stills from the storage bucket, and nothing else changes', async () => {
    const bucket = 'https://farm-clips.s3.eu-west-2.amazonaws.com';
    const headers = await headersOf({ isHttps: false, mediaOrigins: [bucket] });
    expect(directives(headers['content-security-policy'])).toEqual(
      strictPolicy.map((directive) =>
        directive.startsWith('media-src') ||
        directive.startsWith('connect-src') ||
        directive.startsWith('img-src')
          ? `${directive} ${bucket}`
          : directive,
      ),
    );
    expect(
      directives(
        (await headersOf({ isHttps: false, mediaOrigins: [] }))['content-security-policy'],
      ),
    ).toEqual(strictPolicy);
  });

  it("lets the SPA load Stripe's pricing-table script and frame when it shows one", async () => {
    const stripe = 'https://js.stripe.com';
    const headers = await headersOf({ isHttps: false, embeddedWidgetOrigins: [stripe] });
    const policy = directives(headers['content-security-policy']);
    expect(policy).toContain(`script-src 'self' ${stripe}`);
    expect(policy).toContain(`frame-src ${stripe}`);
    expect(policy).toContain("frame-ancestors 'none'");
  });

  it("allows the built pages' inline scripts and style sheet by their hashes, nothing inline else", async () => {
    const headers = await headersOf({
      isHttps: false,
      inlineSources: { scripts: ["'sha256-a='", "'sha256-b='"], styles: ["'sha256-c='"] },
    });
    const policy = directives(headers['content-security-policy']);
    expect(policy).toContain("script-src 'self' 'sha256-a=' 'sha256-b='");
    expect(policy).toContain("style-src 'self' 'sha256-c='");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
  });

  it('leaves embeds framable and readable from any origin, and self-managed routes alone', async () => {
    const embed = await headersOf({ isHttps: true }, 'public-embed');
    for (const name of [
      'content-security-policy',
      'x-frame-options',
      'cross-origin-resource-policy',
      'cross-origin-opener-policy',
    ]) {
      expect(embed[name]).toBeUndefined();
    }
    expect(embed).toMatchObject({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
    });
    expect(await headersOf({ isHttps: true }, 'self-managed')).toEqual({});
  });

  it('gives answers made before any route the same strict set', async () => {
    expect(strictSecurityHeaders(false)).toEqual(await headersOf({ isHttps: false }));
    expect(strictSecurityHeaders(true)).toEqual(await headersOf({ isHttps: true }));
    expect(strictSecurityHeaders(false)['strict-transport-security']).toBeUndefined();
  });
});
