/**
 * Idempotent writes: a request carrying an `Idempotency-Key` is applied once; a retry with the
 * same key gets the first answer back instead of doing the work again (DESIGN §4). Keys are
 * scoped (e.g. per customer and endpoint) so one caller's key never meets another's.
 */
import { createHash } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { idempotencyKeys } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import type { Clock } from './clock.ts';

/** A request still marked in progress after this long is taken to have died with its process. */
const abandonedAfterMs = 2 * 60_000;

export const idempotencyKeyPattern = /^[A-Za-z0-9_:.-]{8,200}$/;

export function hashRequest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

export interface IdempotentRequest {
  scope: string;
  /** The caller's key; without one the work simply runs. */
  key: string | undefined;
  /** What the request asked for: the same key with a different request is refused. */
  request: unknown;
}

/**
 * Runs `work` once per (scope, key). A concurrent duplicate answers 409 while the first runs; a
 * later one gets the stored result. A failed attempt is forgotten, so it can be retried: the work
 * itself is transactional, so a failure leaves nothing behind to repeat.
 */
export async function runIdempotent<Result>(
  deps: { db: Database; clock: Clock },
  input: IdempotentRequest,
  work: () => Promise<Result>,
): Promise<Result> {
  if (input.key === undefined) return work();
  if (!idempotencyKeyPattern.test(input.key)) {
    throw new AppError(
      'VALIDATION_FAILED',
      'Idempotency-Key must be 8-200 letters, digits or _:.- characters',
    );
  }
  const requestHash = hashRequest(input.request);
  const where = and(eq(idempotencyKeys.scope, input.scope), eq(idempotencyKeys.key, input.key));
  const now = deps.clock.now();

  // A claim left by a process that died mid-request is released so the retry can run.
  await deps.db
    .delete(idempotencyKeys)
    .where(
      and(
        where,
        eq(idempotencyKeys.requestHash, requestHash),
        lt(idempotencyKeys.createdAt, new Date(now.getTime() - abandonedAfterMs)),
        eq(idempotencyKeys.statusCode, 0),
      ),
    );
  const claimed = await deps.db
    .insert(idempotencyKeys)
    .values({ scope: input.scope, key: input.key, requestHash, statusCode: 0, createdAt: now })
    .onConflictDoNothing()
    .returning();

  if (claimed.length === 0) {
    const [existing] = await deps.db.select().from(idempotencyKeys).where(where);
    if (!existing) return runIdempotent(deps, input, work);
    if (existing.requestHash !== requestHash) {
      throw new AppError(
        'UNPROCESSABLE',
        'This Idempotency-Key was already used for a different request',
      );
    }
    if (existing.statusCode === 0) {
      throw new AppError('CONFLICT', 'This request is already being processed. Try again shortly.');
    }
    return existing.response as Result;
  }

  try {
    const result = await work();
    await deps.db
      .update(idempotencyKeys)
      .set({ statusCode: 200, response: result as object })
      .where(where);
    return result;
  } catch (error) {
    await deps.db.delete(idempotencyKeys).where(where);
    throw error;
  }
}
