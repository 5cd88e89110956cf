import { doublingWait } from './back-off.ts';
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
  /**
   * Back-off: each time the bucket goes over its limit, the wait is the window times 2^(n-1),
   * where n counts the times it went over with less than `memorySeconds` between them, up to
   * `maxSeconds`. Someone who keeps guessing waits longer and longer; someone who stops is
   * forgotten (docs/decisions/063).
   */
  backoff?: { maxSeconds: number; memorySeconds: number };
}

export interface RateLimiter {
  /** Counts one hit; throws RATE_LIMITED (429 with Retry-After) once over the limit. */
  consume(rule: RateLimitRule): Promise<void>;
  /** Counts hits on several buckets; the first one over its limit throws. */
  consumeAll(rules: RateLimitRule[]): Promise<void>;
  /** Counts one hit without refusing anything; returns the hits in the current window. */
  count(key: string, windowSeconds: number): Promise<number>;
  /** Takes one hit back from each bucket (a look-up that succeeded does not use the allowance). */
  giveBack(keys: readonly string[]): Promise<void>;
}

/**
 * Fixed-window counters in the database, so every API process shares them (DESIGN §1). One
 * upsert per bucket: a window that has passed restarts at one.
 */
export function createRateLimiter(db: Database, clock: Clock): RateLimiter {
  async function hit(key: string, windowSeconds: number) {
    const now = clock.now();
    const resetAt = new Date(now.getTime() + windowSeconds * 1000);
    const [row] = await queryRows<{ hits: number; reset_at: string | Date }>(
      db,
      sql`
      insert into rate_limits (key, hits, reset_at) values (${key}, 1, ${resetAt.toISOString()})
      on conflict (key) do update set
        hits = case when rate_limits.reset_at <= ${now.toISOString()} then 1 else rate_limits.hits + 1 end,
        reset_at = case when rate_limits.reset_at <= ${now.toISOString()} then excluded.reset_at else rate_limits.reset_at end
      returning hits, reset_at`,
    );
    return { now, hits: Number(row?.hits ?? 0), resetAt: new Date(row?.reset_at ?? resetAt) };
  }

  /** The first refusal of a window: how long the bucket now stays shut, after earlier ones. */
  async function backOff(rule: RateLimitRule & { backoff: NonNullable<RateLimitRule['backoff']> }) {
    const now = clock.now();
    const forgetAt = new Date(now.getTime() + rule.backoff.memorySeconds * 1000).toISOString();
    const [strikes] = await queryRows<{ hits: number }>(
      db,
      sql`
      insert into rate_limits (key, hits, reset_at) values (${`${rule.key}:strikes`}, 1, ${forgetAt})
      on conflict (key) do update set
        hits = case when rate_limits.reset_at <= ${now.toISOString()} then 1 else rate_limits.hits + 1 end,
        reset_at = excluded.reset_at
      returning hits`,
    );
    const times = Math.min(Number(strikes?.hits ?? 1), 30);
    const waitSeconds = doublingWait(rule.windowSeconds, times, rule.backoff.maxSeconds);
    const until = new Date(now.getTime() + waitSeconds * 1000).toISOString();
    const [row] = await queryRows<{ reset_at: string | Date }>(
      db,
      sql`update rate_limits set reset_at = greatest(reset_at, ${until}::timestamptz)
          where key = ${rule.key} returning reset_at`,
    );
    return new Date(row?.reset_at ?? until);
  }

  async function consume(rule: RateLimitRule): Promise<void> {
    const { now, hits, resetAt } = await hit(rule.key, rule.windowSeconds);
    if (hits <= rule.limit) return;
    const shutUntil =
      rule.backoff && hits === rule.limit + 1
        ? await backOff({ ...rule, backoff: rule.backoff })
        : resetAt;
    const retryAfter = Math.max(1, Math.ceil((shutUntil.getTime() - now.getTime()) / 1000));
    throw new AppError(
      'RATE_LIMITED',
      rule.message ?? `Too many attempts. Please try again in ${describeWait(retryAfter)}.`,
      { 'retry-after': String(retryAfter) },
    );
  }

  return {
    consume,
    async consumeAll(rules) {
      for (const rule of rules) await consume(rule);
    },
    async count(key, windowSeconds) {
      return (await hit(key, windowSeconds)).hits;
    },
    async giveBack(keys) {
      if (keys.length === 0) return;
      await db.execute(
        sql`update rate_limits set hits = greatest(hits - 1, 0)
            where key in (${sql.join(
              keys.map((key) => sql`${key}`),
              sql`, `,
            )}) and reset_at > ${clock.now().toISOString()}`,
      );
    },
  };
}

export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  if (seconds < 2 * 3600) {
    const minutes = Math.ceil(seconds / 60);
    return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  return `${Math.ceil(seconds / 3600)} hours`;
}
