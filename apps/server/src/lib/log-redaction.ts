/**
 * What request logs may show (docs/decisions/061-production-mode.md): a URL can carry a bearer
 * credential (a magic-link token, a billing session id, a signed media URL), so every URL is
 * redacted before pino writes it, and credential headers never reach a log line.
 */
import type { FastifyRequest } from 'fastify';
import pino from 'pino';

export const redacted = '[redacted]';

/** Query keys whose values grant access: tokens, secrets, session ids, signatures, codes. */
const secretQueryKey = /token|secret|session|signature|credential|password|key|code|order|auth/i;

/** The fixed words of the billing engine's hosted paths; every other segment there is an id. */
const billingEngineWords = new Set([
  'billing-engine',
  'assets',
  'engine.css',
  'portal',
  'checkout',
  'invoices',
  'cards',
  'default',
  'remove',
  'pay',
  'pdf',
  'test-clock',
  'advance',
  'run',
]);

function redactPath(path: string): string {
  const segments = path.split('/');
  // segments[0] is '' (the path starts with '/').
  if (segments[1] === 'login' && segments.length > 2) {
    return [
      '',
      'login',
      ...segments.slice(2).map((segment) => (segment ? redacted : segment)),
    ].join('/');
  }
  // The staff set-password link carries its one-time token in the path too.
  if (segments[1] === 'team-login' && segments[2] === 'set-password' && segments.length > 3) {
    return [
      '',
      'team-login',
      'set-password',
      ...segments.slice(3).map((segment) => (segment ? redacted : segment)),
    ].join('/');
  }
  if (segments[1] === 'billing-engine') {
    return segments
      .map((segment) => (segment === '' || billingEngineWords.has(segment) ? segment : redacted))
      .join('/');
  }
  return path;
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      const key = pair.slice(0, equals);
      let decodedKey = key;
      try {
        decodedKey = decodeURIComponent(key);
      } catch {
        // A malformed key is logged as it came; its value is still judged by the raw key.
      }
      return secretQueryKey.test(decodedKey) ? `${key}=${redacted}` : pair;
    })
    .join('&');
}

/** The URL with credentials replaced: `/login/…`, billing-engine ids, secret query values. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  const path = queryStart < 0 ? url : url.slice(0, queryStart);
  const query = queryStart < 0 ? undefined : url.slice(queryStart + 1);
  return query === undefined ? redactPath(path) : `${redactPath(path)}?${redactQuery(query)}`;
}

/**
 * Fastify's `req` serializer with a redacted URL. Like Fastify's own it logs no headers, so
 * Authorization, Cookie, Stripe-Signature and a Referer that may hold a login link stay out.
 */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** `scheme://user:password@` in any text: SMTP, database and camera URLs in error messages. */
const urlCredentials = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;

export function redactUrlCredentials(text: string): string {
  return text.replace(urlCredentials, `$1${redacted}@`);
}

function redactStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactUrlCredentials(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, redactStrings(item, depth + 1)]),
  );
}

/**
 * pino's error serializer with credentials taken out of every URL in it (message, stack, cause
 * and properties such as a recording's ffmpeg output): a failed SMTP or database connection,
 * or ffmpeg's last words, can quote a URL with its password.
 */
export function serializeError(error: Error): pino.SerializedError {
  return redactStrings(pino.stdSerializers.err(error), 0) as pino.SerializedError;
}

/** Header paths pino blanks in case a log call ever passes headers along. */
export const redactedLogPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["stripe-signature"]',
  'req.headers.referer',
  'headers.authorization',
  'headers.cookie',
  'headers["stripe-signature"]',
  'headers.referer',
];
