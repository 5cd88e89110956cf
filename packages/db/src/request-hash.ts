import { createHash } from 'node:crypto';

/**
 * What `idempotency_keys.request_hash` holds: the SHA-256 of a request's JSON, so a key used
 * again with other parameters is told apart (the API's keys, lib/idempotency.ts, and the local
 * billing engine's, each in its own scope).
 */
export function hashRequest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}
