import {
  formatPostcode,
  isUkPostcode,
  normalisePostcode,
  type CoverageSourceResponse,
  type SignalAvailabilityResponse,
} from '@farmcam/contract';
import { z } from 'zod';
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import type { RequestContext } from '../auth/principal.ts';
import type { BundledCoverageProvider } from '../../providers/coverage/bundled-coverage.ts';
import type { CoverageLookup, CoverageProvider } from '../../providers/coverage/coverage.ts';
import { coverageRepository as repository } from './coverage.repository.ts';
import { toSignalAvailabilityAddress } from './signal-availability.ts';

export const coveragePolicy = {
  /** The lookup is public, so each client address gets a budget. */
  lookupsPerIp: { limit: 30, windowSeconds: 10 * 60 },
} as const;

export const emptyPostcodeMessage = 'Please enter a postcode';

const level = z.union([
  z.literal(0),
  z.literal(1),
  z.literal(2),
  z.literal(3),
  z.literal(4),
  z.null(),
]);
const networkSignal = z.object({ indoor: level, outdoor: level });

/** What the cache keeps: the provider's lookup, versioned so a change of shape is a miss. */
const cachedLookup = z.object({
  version: z.literal(1),
  lookup: z.discriminatedUnion('isFound', [
    z.object({
      isFound: z.literal(true),
      addresses: z.array(
        z.object({
          uprn: z.string(),
          description: z.string(),
          networks: z.object({
            vodafone: networkSignal,
            o2: networkSignal,
            ee: networkSignal,
            three: networkSignal,
          }),
        }),
      ),
    }),
    z.object({ isFound: z.literal(false) }),
  ]),
});

export interface CoverageLog {
  warn(details: Record<string, unknown>, message: string): void;
}

function hasDemoPostcodes(provider: CoverageProvider): provider is BundledCoverageProvider {
  return 'demoPostcodes' in provider;
}

/**
 * Postcode signal checks (docs/requirements.md#signal-check, #api ofcom-signal). Remote providers' answers are
 * kept in `coverage_cache`, shared by every API process: fresh answers are served from it, one
 * call per postcode is in flight per process at a time, calls stay within the provider's per-minute
 * allowance across processes, and an expired answer is served when the provider is unavailable.
 */
export function createCoverageService(deps: {
  db: Database;
  clock: Clock;
  provider: CoverageProvider;
  rateLimiter: RateLimiter;
  log?: CoverageLog;
}) {
  const { db, clock, provider, rateLimiter, log } = deps;
  const inFlight = new Map<string, Promise<CoverageLookup>>();

  async function fetchAndCache(postcode: string): Promise<CoverageLookup> {
    if (provider.callsPerMinute !== null) {
      try {
        await rateLimiter.consume({
          key: `coverage:provider:${provider.source}`,
          limit: provider.callsPerMinute,
          windowSeconds: 60,
        });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        throw new AppError(
          'PROVIDER_UNAVAILABLE',
          'Signal coverage checks are busy right now. Please try again in a minute.',
          error.headers,
        );
      }
    }
    const lookup = await provider.lookup(postcode);
    await repository.saveCachedLookup(db, postcode, { version: 1, lookup }, clock.now());
    return lookup;
  }

  async function lookupWithCache(postcode: string): Promise<CoverageLookup> {
    const policy = provider.cachePolicy;
    if (policy === null) return provider.lookup(postcode);

    const row = await repository.findCachedLookup(db, postcode);
    const cached = row ? cachedLookup.safeParse(row.payload) : undefined;
    if (row && cached?.success) {
      const ageSeconds = (clock.now().getTime() - row.fetchedAt.getTime()) / 1000;
      const lifetime = cached.data.lookup.isFound ? policy.foundSeconds : policy.notFoundSeconds;
      if (ageSeconds < lifetime) return cached.data.lookup;
    }

    let pending = inFlight.get(postcode);
    if (!pending) {
      pending = fetchAndCache(postcode).finally(() => inFlight.delete(postcode));
      inFlight.set(postcode, pending);
    }
    try {
      return await pending;
    } catch (error) {
      // Coverage changes a few times a year: an old answer beats none while the provider is down.
      if (error instanceof AppError && error.code === 'PROVIDER_UNAVAILABLE' && cached?.success) {
        log?.warn({ postcode, fetchedAt: row?.fetchedAt }, 'Serving expired coverage answer');
        return cached.data.lookup;
      }
      throw error;
    }
  }

  return {
    /**
     * The signal at every address of a postcode. The postcode is normalised (upper case, letters
     * and digits only) and must have the UK format: 400 otherwise. 404 when there is no coverage
     * data for it, 429 over the per-IP budget, 503 when the provider cannot answer.
     */
    async checkSignal(
      rawPostcode: string,
      context: RequestContext,
    ): Promise<SignalAvailabilityResponse> {
      await rateLimiter.consume({
        key: `coverage:ip:${context.ip}`,
        ...coveragePolicy.lookupsPerIp,
      });
      const postcode = normalisePostcode(rawPostcode);
      if (postcode === '') throw new AppError('VALIDATION_FAILED', emptyPostcodeMessage);
      if (!isUkPostcode(postcode)) {
        throw new AppError(
          'VALIDATION_FAILED',
          `"${rawPostcode.trim()}" is not a valid UK postcode. Check it and try again, for example SW1A 1AA.`,
        );
      }

      const lookup = await lookupWithCache(postcode);
      if (!lookup.isFound) {
        throw new AppError(
          'NOT_FOUND',
          provider.isDemoData
            ? `No coverage data for this postcode (${formatPostcode(postcode)}). The demo data covers only the demo postcodes.`
            : `No coverage data for this postcode (${formatPostcode(postcode)}).`,
        );
      }
      return {
        PostCode: postcode,
        Availability: lookup.addresses.map(toSignalAvailabilityAddress),
        source: provider.source,
        isDemoData: provider.isDemoData,
      };
    },

    /** Where coverage comes from, and the demo postcodes to try when it is the bundled data. */
    describeSource(): CoverageSourceResponse {
      return {
        source: provider.source,
        isDemoData: provider.isDemoData,
        demoPostcodes: hasDemoPostcodes(provider) ? provider.demoPostcodes : [],
      };
    },
  };
}

export type CoverageService = ReturnType<typeof createCoverageService>;
