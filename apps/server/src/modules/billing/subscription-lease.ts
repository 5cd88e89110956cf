/**
 * One change at a time per subscription. A lease row (in idempotency_keys, scope
 * 'subscription-lease') is taken before a provider call and released after, so two requests to
 * change the same subscription cannot both reach the provider; no database transaction is held
 * open across the provider's network call. A lease left by a dead process expires.
 */
import { and, eq, lt } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { idempotencyKeys } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';

const leaseScope = 'subscription-lease';
const leaseMs = 2 * 60_000;

export async function withSubscriptionLease<Result>(
  deps: { db: Database; clock: Clock },
  subscriptionId: string,
  work: () => Promise<Result>,
): Promise<Result> {
  const where = and(eq(idempotencyKeys.scope, leaseScope), eq(idempotencyKeys.key, subscriptionId));
  const now = deps.clock.now();
  await deps.db
    .delete(idempotencyKeys)
    .where(and(where, lt(idempotencyKeys.createdAt, new Date(now.getTime() - leaseMs))));
  const taken = await deps.db
    .insert(idempotencyKeys)
    .values({ scope: leaseScope, key: subscriptionId, requestHash: 'lease', createdAt: now })
    .onConflictDoNothing()
    .returning();
  if (taken.length === 0) {
    throw new AppError(
      'CONFLICT',
      'Another change to this subscription is in progress. Please try again in a moment.',
    );
  }
  try {
    return await work();
  } finally {
    await deps.db.delete(idempotencyKeys).where(where);
  }
}
