import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { Clock } from './clock.ts';

export interface RateLimitRule {
  /** Bucket name, e.g. `login:ip:1.2.3.4`. */
  key: string;
  limit: number;
  windowSeconds: number;
  message?: string;
}

export interface RateLimiter {
  /** Counts one hit; throws RATE_LIMITED (429 with Retry-After) once over the limit. */
  consume(rule: RateLimitRule): Promise<void>;
  /** Counts hits on several buckets; the first one over its limit throws. */
  consumeAll(rules: RateLimitRule[]): Promise<void>;
}

/**
 * Fixed-window counters in the database, so every API process shares them (DESIGN §1). One
 * upsert per bucket: a window that has passed restarts at one.
 */
export function createRateLimiter(db: Database, clock: Clock): RateLimiter {
  async function consume(rule: RateLimitRule): Promise<void> {
    const now = clock.now();
    const resetAt = new Date(now.getTime() + rule.windowSeconds * 1000);
    const [row] = await queryRows<{ hits: number; reset_at: string | Date }>(
      db,
      sql`
      insert into rate_limits (key, hits, reset_at) values (${rule.key}, 1, ${resetAt.toISOString()})
      on conflict (key) do update set
        hits = case when rate_limits.reset_at <= ${now.toISOString()} then 1 else rate_limits.hits + 1 end,
        reset_at = case when rate_limits.reset_at <= ${now.toISOString()} then excluded.reset_at else rate_limits.reset_at end
      returning hits, reset_at`,
    );
    if (!row) return;
    if (Number(row.hits) > rule.limit) {
      const retryAfter = Math.max(
        1,
        Math.ceil((new Date(row.reset_at).getTime() - now.getTime()) / 1000),
      );
      throw new AppError(
        'RATE_LIMITED',
        rule.message ?? `Too many attempts. Please try again in ${describeWait(retryAfter)}.`,
        { 'retry-after': String(retryAfter) },
      );
    }
  }
  return {
    consume,
    async consumeAll(rules) {
      for (const rule of rules) await consume(rule);
    },
  };
}

export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
