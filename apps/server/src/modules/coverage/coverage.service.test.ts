import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, nextIp, type TestContext } from '../../../test/helpers/test-app.ts';
import { coverageCache } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { createRateLimiter } from '../../lib/rate-limiter.ts';
import type { CoverageLookup, CoverageProvider } from '../../providers/coverage/coverage.ts';
import { createCoverageService } from './coverage.service.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
});
afterAll(() => context.close());

/** A metered remote provider that knows every postcode and counts its calls. */
function meteredProvider(callsPerMinute: number) {
  const calls: string[] = [];
  const provider: CoverageProvider = {
    source: 'ofcom',
    isDemoData: false,
    cachePolicy: { foundSeconds: 3600, notFoundSeconds: 60 },
    callsPerMinute,
    async lookup(postcode): Promise<CoverageLookup> {
      calls.push(postcode);
      const none = { indoor: 0 as const, outdoor: 0 as const };
      return {
        isFound: true,
        addresses: [
          {
            uprn: `${postcode}-1`,
            description: `Farm at ${postcode}`,
            networks: { vodafone: { indoor: 3, outdoor: 4 }, o2: none, ee: none, three: none },
          },
        ],
      };
    },
  };
  const service = createCoverageService({
    db: context.database.db,
    clock: context.clock,
    provider,
    rateLimiter: createRateLimiter(context.database.db, context.clock),
  });
  return { service, calls };
}

describe('coverage service with a metered provider', () => {
  it('keeps provider calls within its per-minute allowance, still serving cached answers', async () => {
    const { service, calls } = meteredProvider(2);
    await service.checkSignal('EX363LH', { ip: nextIp() });
    await service.checkSignal('LA229JU', { ip: nextIp() });
    const busy = await service.checkSignal('IV274HX', { ip: nextIp() }).catch((error) => error);
    expect(busy).toBeInstanceOf(AppError);
    expect((busy as AppError).code).toBe('PROVIDER_UNAVAILABLE');
    expect((busy as AppError).message).toBe(
      'Signal coverage checks are busy right now. Please try again in a minute.',
    );
    expect(Number((busy as AppError).headers['retry-after'])).toBeGreaterThan(0);
    expect(calls).toEqual(['EX363LH', 'LA229JU']);

    const cached = await service.checkSignal('EX36 3LH', { ip: nextIp() });
    expect(cached.Availability[0]?.MaxOutdoorFarm4).toBe(4);

    context.clock.advance(60_000);
    await service.checkSignal('IV274HX', { ip: nextIp() });
    expect(calls).toEqual(['EX363LH', 'LA229JU', 'IV274HX']);
  });

  it('treats a cache row it cannot read as a miss', async () => {
    const { service, calls } = meteredProvider(100);
    await context.database.db
      .insert(coverageCache)
      .values({ postcode: 'SY234LS', payload: { version: 0, addresses: 'old shape' } });
    const answer = await service.checkSignal('SY23 4LS', { ip: nextIp() });
    expect(answer.Availability[0]?.AddressShortDescription).toBe('Farm at SY234LS');
    expect(calls).toEqual(['SY234LS']);
  });
});
