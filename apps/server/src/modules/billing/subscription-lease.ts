/**
 * One change at a time per subscription. A lease row (in idempotency_keys, scope
 * 'subscription-lease') is taken before a provider call and released after, so two requests to
 * change the same subscription cannot both reach the provider; no database transaction is held
 * open across the provider's network call. A lease left by a dead process expires.
 */
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { billingRepository } from './billing.repository.ts';

const leaseMs = 2 * 60_000;

export async function withSubscriptionLease<Result>(
  deps: { db: Database; clock: Clock },
  subscriptionId: string,
  work: () => Promise<Result>,
): Promise<Result> {
  const now = deps.clock.now();
  const isTaken = await billingRepository.takeSubscriptionLease(deps.db, subscriptionId, {
    now,
    staleBefore: new Date(now.getTime() - leaseMs),
  });
  if (!isTaken) {
    throw new AppError(
      'CONFLICT',
      'Another change to this subscription is in progress. Please try again in a moment.',
    );
  }
  try {
    return await work();
  } finally {
    await billingRepository.releaseSubscriptionLease(deps.db, subscriptionId);
  }
}
