/**
 * Idempotent requests, as Stripe's API has them (DESIGN §4, docs/decisions/108): a write carrying
 * an `Idempotency-Key` is applied once; a retry with the same key gets the first answer back
 * (status and body) instead of doing the work again. Keys belong to the person who sent them,
 * across every endpoint, so a key is one request:
 * - the same key again while the first is still running answers 409 (Stripe's
 *   `idempotency_key_in_use`), so concurrent duplicates never run twice;
 * - the same key on another endpoint, or with other parameters, is refused with 422 and a
 *   sentence (Stripe's `idempotency_error`), never answered with another request's result;
 * - a request that failed is forgotten, so the same key can be tried again: the work is
 *   transactional, so a failure leaves nothing behind to repeat. A request refused before it ran
 *   (its input invalid) never claims the key.
 * The HTTP side is plugins/idempotency.ts; a route opts in with `config: { idempotent: true }`.
 */
import { hashRequest } from '@farmcam/db';
import { and, eq, lt } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { idempotencyKeys } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import type { Clock } from './clock.ts';

/** A request still marked in progress after this long is taken to have died with its process. */
const abandonedAfterMs = 2 * 60_000;

export const idempotencyKeyPattern = /^[A-Za-z0-9_:.-]{8,200}$/;

export const idempotencyMessages = {
  malformed: 'Idempotency-Key must be 8-200 letters, digits or _:.- characters',
  inProgress: 'This request is already being processed. Try again shortly.',
  otherEndpoint: (endpoint: string) =>
    `This Idempotency-Key was already used for another request (${endpoint}). Use a new key for each new request.`,
  otherParameters:
    'This Idempotency-Key was already used for the same request with other details. Use a new key for each new request.',
} as const;

export interface IdempotentRequest {
  /** Whose key it is: one person's keys never meet another's. */
  owner: string;
  key: string;
  /** Method and route, e.g. `POST /api/subscriptions/change-plan`. */
  endpoint: string;
  /** What the request asked for (parameters and body): the same key must ask the same. */
  request: unknown;
}

/** What to do with a keyed request: run it (then complete or release the key), or replay. */
export type IdempotencyClaim =
  | {
      kind: 'run';
      /** Stores the answer, for every later request with the key. */
      complete(statusCode: number, response: unknown): Promise<void>;
      /** Forgets the key: the request failed, and may be tried again with it. */
      release(): Promise<void>;
    }
  | { kind: 'replay'; statusCode: number; response: unknown };

/**
 * Claims the key for this request, or says how the key was used before: replays a completed
 * request's answer, and throws 409 while it is still running and 422 when the key was used for
 * another endpoint or other parameters.
 */
export async function claimIdempotencyKey(
  deps: { db: Database; clock: Clock },
  input: IdempotentRequest,
): Promise<IdempotencyClaim> {
  if (!idempotencyKeyPattern.test(input.key)) {
    throw new AppError('VALIDATION_FAILED', idempotencyMessages.malformed);
  }
  const scope = `request:${input.owner}`;
  const requestHash = hashRequest(input.request);
  const where = and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, input.key));
  const now = deps.clock.now();

  // A claim left by a process that died mid-request is released so the retry can run.
  await deps.db
    .delete(idempotencyKeys)
    .where(
      and(
        where,
        eq(idempotencyKeys.endpoint, input.endpoint),
        eq(idempotencyKeys.requestHash, requestHash),
        lt(idempotencyKeys.createdAt, new Date(now.getTime() - abandonedAfterMs)),
        eq(idempotencyKeys.statusCode, 0),
      ),
    );
  // One statement decides: of requests arriving at once, exactly one inserts the claim.
  const claimed = await deps.db
    .insert(idempotencyKeys)
    .values({
      scope,
      key: input.key,
      endpoint: input.endpoint,
      requestHash,
      statusCode: 0,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();

  if (claimed.length === 0) {
    const [existing] = await deps.db.select().from(idempotencyKeys).where(where);
    // Released between our insert and this read (the first request failed): try again.
    if (!existing) return claimIdempotencyKey(deps, input);
    if (existing.endpoint !== input.endpoint) {
      throw new AppError(
        'UNPROCESSABLE',
        idempotencyMessages.otherEndpoint(existing.endpoint ?? 'another endpoint'),
      );
    }
    if (existing.requestHash !== requestHash) {
      throw new AppError('UNPROCESSABLE', idempotencyMessages.otherParameters);
    }
    if (existing.statusCode === 0 || existing.statusCode === null) {
      throw new AppError('CONFLICT', idempotencyMessages.inProgress);
    }
    return { kind: 'replay', statusCode: existing.statusCode, response: existing.response };
  }

  return {
    kind: 'run',
    async complete(statusCode, response) {
      await deps.db
        .update(idempotencyKeys)
        .set({ statusCode, response: (response ?? null) as object })
        .where(where);
    },
    async release() {
      await deps.db.delete(idempotencyKeys).where(where);
    },
  };
}
