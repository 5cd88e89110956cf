import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { coverageCache } from '../../db/schema.ts';

export const coverageRepository = {
  findCachedLookup: async (executor: Executor, postcode: string) => {
    const [row] = await executor
      .select({ payload: coverageCache.payload, fetchedAt: coverageCache.fetchedAt })
      .from(coverageCache)
      .where(eq(coverageCache.postcode, postcode));
    return row;
  },

  /** One row per postcode: a newer answer replaces the older one. */
  saveCachedLookup: async (
    executor: Executor,
    postcode: string,
    payload: unknown,
    fetchedAt: Date,
  ) => {
    await executor
      .insert(coverageCache)
      .values({ postcode, payload, fetchedAt })
      .onConflictDoUpdate({ target: coverageCache.postcode, set: { payload, fetchedAt } });
  },
};
