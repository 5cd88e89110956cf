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
  return redactUrlText(
    query === undefined ? redactPath(path) : `${redactPath(path)}?${redactQuery(query)}`,
  );
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
// Bounded repetitions: request URLs pass through here, and unbounded ones would let a crafted
// URL make the match quadratic.
const urlCredentials = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/@]{1,256}@/gi;

export function redactUrlCredentials(text: string): string {
  return text.replace(urlCredentials, `$1${redacted}@`);
}

/**
 * Stripe strings that act as credentials wherever they appear: API and webhook keys, and the
 * ids of hosted billing sessions (a portal or checkout session id opens that customer's page).
 */
const stripeSecrets =
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{1,256}|\bwhsec_[A-Za-z0-9]{1,256}|\b(?:bps|bcs)_[A-Za-z0-9]{1,256}|\bcs_(?:live|test)_[A-Za-z0-9]{1,256}/g;

const clientSecretMarker = '_secret_';
const isIdCharacter = (character: string | undefined) =>
  character !== undefined && /[A-Za-z0-9_]/.test(character);

/**
 * Client secrets (`pi_…_secret_…`, `seti_…_secret_…`): found by their marker and widened to the
 * whole token by hand, in linear time (a regular expression with a repeated prefix backtracks
 * quadratically on a crafted URL).
 */
function redactClientSecrets(text: string): string {
  let marker = text.indexOf(clientSecretMarker);
  if (marker < 0) return text;
  let result = '';
  let copiedUpTo = 0;
  while (marker >= 0) {
    let start = marker;
    while (start > copiedUpTo && isIdCharacter(text[start - 1])) start -= 1;
    let end = marker + clientSecretMarker.length;
    while (end < text.length && /[A-Za-z0-9]/.test(text[end]!)) end += 1;
    result += `${text.slice(copiedUpTo, start)}${redacted}`;
    copiedUpTo = end;
    marker = text.indexOf(clientSecretMarker, end);
  }
  return result + text.slice(copiedUpTo);
}

/**
 * A card number: 13 to 19 digits, alone or split by single spaces or dashes, starting as card
 * numbers do (2 to 6: Mastercard, Amex, Visa, Discover...). No Luhn check, so a mistyped number
 * is masked too; ICCIDs (89…), which operators need, and millisecond timestamps (1…) are kept.
 * Digits inside a word or joined to one by a dash are not a card: one UUID in about 75 (request
 * and job ids) has a run of all-digit groups that would otherwise look like one.
 */
const cardNumber = /(?<!\w|\w-)[2-6](?:[ -]?\d){12,18}(?!\w|-\w)/g;

export const redactedCardNumber = '[redacted card number]';

/**
 * drizzle's DrizzleQueryError says `Failed query: <SQL>\nparams: <values>`: the statement and
 * every value bound to it (e-mail addresses, token hashes, amounts). Logs keep that a query
 * failed and why (the driver's error, its `cause`), never which query with what (decision 102).
 */
const failedQuery = /Failed query: [\s\S]{0,100000}?\nparams: [^\n]{0,100000}/g;
export const redactedQuery = 'Failed query: [SQL and parameters not logged]';

/**
 * Properties of query errors that quote SQL or the values bound to it (drizzle, the drivers), and
 * the `client` node-postgres's pool attaches to a dropped connection's error (the whole connection
 * object: hundreds of fields, its settings and the server's process id).
 */
const queryProperties = new Set(['query', 'params', 'parameters', 'internalQuery', 'client']);
/**
 * A PostgreSQL error's (node-postgres, PGlite: they carry `severity`) `where` quotes the PL/pgSQL
 * statement and `detail` the values (`Key (email)=(…) already exists`). Other errors' `detail`
 * (a recording's ffmpeg output) stays.
 */
const databaseErrorProperties = new Set(['where', 'detail']);
const isQuoting = (error: Error, key: string) =>
  queryProperties.has(key) ||
  (databaseErrorProperties.has(key) &&
    typeof (error as { severity?: unknown }).severity === 'string');

/** Every credential shape this module knows, taken out of free text (messages, URLs, output). */
export function redactText(text: string): string {
  const withoutQueries = text.includes('Failed query: ')
    ? text.replace(failedQuery, redactedQuery)
    : text;
  return redactClientSecrets(redactUrlCredentials(withoutQueries))
    .replace(stripeSecrets, redacted)
    .replace(cardNumber, redactedCardNumber);
}

/** In a URL, a card number may be split by encoded spaces (`%20`, `+`). */
function redactUrlText(url: string): string {
  const text = redactText(url);
  if (!text.includes('%20') && !text.includes('+')) return text;
  const spaced = text.replace(/%20|\+/g, ' ');
  const masked = spaced.replace(cardNumber, redactedCardNumber);
  return masked === spaced ? text : masked;
}

/**
 * Keys whose values are credentials or card data whatever they hold: passwords, card numbers
 * and security codes, tokens, secrets, session ids, credential headers.
 */
const sensitiveKey =
  /^(?:password|newpassword|currentpassword|passwd|cvc|cvv|cvc2|cvv2|cardnumber|card_number|pan|token|accesstoken|refreshtoken|sessiontoken|sessionid|session_id|secret|clientsecret|client_secret|apikey|api_key|metricstoken|authorization|cookie|set-cookie|stripe-signature)$/i;

/**
 * Plain objects and arrays are walked (4 levels deep): strings lose their credentials, values
 * of sensitive keys go altogether. Other objects (errors, requests) have their own serializers.
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (depth > 0 && prototype !== Object.prototype && prototype !== null) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    result[key] = sensitiveKey.test(key) && item != null ? redacted : redactValue(item, depth + 1);
  }
  return result;
}

function redactStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      sensitiveKey.test(key) && item != null ? redacted : redactStrings(item, depth + 1),
    ]),
  );
}

/**
 * pino's error serializer with credentials taken out of every URL in it (message, stack, cause
 * and properties such as a recording's ffmpeg output): a failed SMTP or database connection,
 * or ffmpeg's last words, can quote a URL with its password.
 */
export function serializeError(error: Error): pino.SerializedError {
  return redactStrings(pino.stdSerializers.err(withoutQueries(error)), 0) as pino.SerializedError;
}

/**
 * The error (and its causes) as pino's serializer will read it, without the SQL and bound values
 * drizzle and the drivers attach: DrizzleQueryError's `query`, `params` and message, a driver
 * error's `where` (a PL/pgSQL statement), `internalQuery` and `detail` (`Key (email)=(…)`). The
 * class name, code, constraint, table and the driver's own message stay: enough to act on.
 */
export function withoutQueries(error: Error, depth = 0): Error {
  if (depth > 4) return error;
  const cause = (error as { cause?: unknown }).cause;
  const hasQuery = Object.keys(error).some((key) => isQuoting(error, key));
  const isQueryMessage =
    typeof error.message === 'string' && error.message.includes('Failed query: ');
  if (!hasQuery && !isQueryMessage && !(cause instanceof Error)) return error;
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
  for (const [key, value] of Object.entries(error)) {
    if (!isQuoting(error, key)) (copy as unknown as Record<string, unknown>)[key] = value;
  }
  const message = redactText(String(error.message));
  Object.defineProperty(copy, 'message', { value: message, enumerable: false, writable: true });
  const stackFrames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  Object.defineProperty(copy, 'stack', {
    value: [`${error.name}: ${message}`, ...stackFrames].join('\n'),
    enumerable: false,
    writable: true,
  });
  // pino writes a cause's message and stack, not its fields: the driver's code (23505,
  // ECONNREFUSED) that drizzle's wrapper lacks is lifted up, so the line can be searched by it.
  const causeCode = (cause as { code?: unknown } | undefined)?.code;
  if ((copy as { code?: unknown }).code === undefined && typeof causeCode === 'string') {
    (copy as unknown as { code: string }).code = causeCode;
  }
  if (cause instanceof Error) {
    Object.defineProperty(copy, 'cause', {
      value: withoutQueries(cause, depth + 1),
      enumerable: false,
      writable: true,
    });
  }
  return copy;
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
  'res.headers["set-cookie"]',
];

/**
 * pino's `formatters.log`: every line's fields pass through redactValue before the serializers
 * (which redact errors and requests themselves), so a credential in any logged string or under
 * a sensitive key is gone whoever wrote the log call.
 */
export function redactLogObject(object: Record<string, unknown>): Record<string, unknown> {
  return redactValue(object) as Record<string, unknown>;
}

/**
 * pino's `hooks.logMethod`: the message too, whether written by hand, interpolated from
 * arguments, or (with no message given) taken by pino from the logged error's message.
 */
export function redactLogMessage(
  this: unknown,
  args: unknown[],
  method: (...args: unknown[]) => void,
): void {
  const [first, ...rest] = args;
  const redactedRest = rest.map((item) => (typeof item === 'string' ? redactText(item) : item));
  if (typeof first === 'string') {
    method.apply(this, [redactText(first), ...redactedRest]);
    return;
  }
  if (rest.length === 0) {
    const error =
      first instanceof Error
        ? first
        : (first as { err?: unknown } | null | undefined)?.err instanceof Error
          ? ((first as { err: Error }).err as Error)
          : undefined;
    if (error) {
      method.apply(this, [first, redactText(error.message)]);
      return;
    }
  }
  method.apply(this, [first, ...redactedRest]);
}
