import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { ManualClock } from './clock.ts';
import { createRateLimiter, describeWait, type RateLimiter } from './rate-limiter.ts';

let database: DatabaseHandle;
let clock: ManualClock;
let limiter: RateLimiter;

beforeAll(async () => {
  database = await openTestDatabase();
  clock = new ManualClock('2026-03-10T12:00:00Z');
  limiter = createRateLimiter(database.db, clock);
});
afterAll(() => database.close());

/** The Retry-After of a refusal, or null when the hit was allowed. */
async function retryAfter(rule: Parameters<RateLimiter['consume']>[0]): Promise<number | null> {
  try {
    await limiter.consume(rule);
    return null;
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'RATE_LIMITED') throw error;
    return Number(error.headers['retry-after']);
  }
}

describe('createRateLimiter', () => {
  it('refuses over the limit with Retry-After until the window ends', async () => {
    const rule = { key: 'plain', limit: 2, windowSeconds: 60 };
    expect(await retryAfter(rule)).toBeNull();
    clock.advance(10_000);
    expect(await retryAfter(rule)).toBeNull();
    expect(await retryAfter(rule)).toBe(50);
    clock.advance(50_000);
    expect(await retryAfter(rule)).toBeNull();
  });

  it('doubles the wait each time a backed-off bucket goes over, up to the cap, and forgets', async () => {
    const rule = {
      key: 'backoff',
      limit: 1,
      windowSeconds: 60,
      backoff: { maxSeconds: 300, memorySeconds: 1000 },
    };
    const waits: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      expect(await retryAfter(rule)).toBeNull();
      const wait = (await retryAfter(rule))!;
      waits.push(wait);
      // Trying again while shut does not make the wait longer.
      clock.advance(1000);
      expect(await retryAfter(rule)).toBe(wait - 1);
      clock.advance((wait - 1) * 1000);
    }
    expect(waits).toEqual([60, 120, 240, 300, 300]);
    clock.advance(1000 * 1000);
    expect(await retryAfter(rule)).toBeNull();
    expect(await retryAfter(rule)).toBe(60);
  });

  it('gives hits back, so successes do not use the allowance', async () => {
    const rule = { key: 'given-back', limit: 1, windowSeconds: 60 };
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(await retryAfter(rule)).toBeNull();
      await limiter.giveBack([rule.key]);
    }
    expect(await retryAfter(rule)).toBeNull();
    expect(await retryAfter(rule)).toBe(60);
  });

  it('counts without refusing', async () => {
    expect(await limiter.count('counted', 60)).toBe(1);
    expect(await limiter.count('counted', 60)).toBe(2);
    clock.advance(60_000);
    expect(await limiter.count('counted', 60)).toBe(1);
  });

  it('says how long to wait in words', () => {
    expect(describeWait(1)).toBe('1 second');
    expect(describeWait(59)).toBe('59 seconds');
    expect(describeWait(900)).toBe('15 minutes');
    expect(describeWait(7200)).toBe('2 hours');
    expect(describeWait(86_400)).toBe('24 hours');
  });
});
