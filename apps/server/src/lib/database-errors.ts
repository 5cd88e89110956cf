import { databaseErrorCode, isUniqueViolation } from '@farmcam/db';

/** The SQLSTATE readers live with the schema (packages/db); the server's callers take them here. */
export { databaseErrorCode, isUniqueViolation };

/**
 * Driver and socket codes, and SQLSTATEs, that mean "the database cannot be reached now" rather
 * than "this query is wrong": the server is down or restarting, the network to it is cut, or it
 * takes no more connections. SQLSTATE class 08 (connection exceptions) counts whole.
 */
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  // admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down)
  '57P01',
  '57P02',
  '57P03',
  // too_many_connections
  '53300',
]);

/** node-postgres says these in words only (no code): a dropped or never-made connection. */
const unreachableMessages: [RegExp, string][] = [
  [/timeout exceeded when trying to connect/i, 'connect timeout'],
  [/Connection terminated due to connection timeout/i, 'connect timeout'],
  [/Connection terminated/i, 'connection terminated'],
  [/Client has encountered a connection error and is not queryable/i, 'connection lost'],
];

/**
 * Why the database cannot be reached, when that is what `error` means: a short cause for logs,
 * metrics and the readiness report (`ECONNREFUSED`, `57P01`, `connect timeout`…), never a message
 * that could name a host. Undefined for every other error (a bad query, a constraint, a bug).
 * Looks through drizzle's wrapper (`cause`) and Node's AggregateError (`errors`, one per address
 * tried) a few levels down.
 */
export function databaseUnreachableCause(error: unknown): string | undefined {
  const pending: { value: unknown; depth: number }[] = [{ value: error, depth: 0 }];
  while (pending.length > 0) {
    const { value, depth } = pending.shift()!;
    if (depth > 4 || typeof value !== 'object' || value === null) continue;
    const { code, message, cause, errors } = value as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof code === 'string' && (unreachableCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code))) {
      return code;
    }
    if (typeof message === 'string') {
      const known = unreachableMessages.find(([pattern]) => pattern.test(message));
      if (known) return known[1];
    }
    pending.push({ value: cause, depth: depth + 1 });
    if (Array.isArray(errors)) {
      for (const inner of errors.slice(0, 4)) pending.push({ value: inner, depth: depth + 1 });
    }
  }
  return undefined;
}
