/**
 * Coverage from Ofcom's Connected Nations mobile coverage API:
 * `GET {apiUrl}/mobile/coverage/{PostCode}` with the `Ocp-Apim-Subscription-Key` header. Each
 * address (`UPRN`, `AddressShortDescription`) carries 0-4 scores in fields named
 * `{EE|H3|TF|VO}{Voice|Data}{Outdoor|Indoor}` plus `No4g` variants. Our cameras send video over
 * 4G data, so the `…Data{Indoor|Outdoor}` fields (all technologies, 4G included) are the ones used.
 *
 * Ofcom meters calls (100 a minute on the basic product) and answers 429 when over; it also
 * fails now and then with 5xx. Transient failures are retried with exponential back-off; a 429
 * is waited out when its Retry-After is short, otherwise every call fails fast until it passes.
 * Caching in our database happens a layer up (the coverage service), so this adapter always asks.
 */
import { doublingWait, withJitter } from '../../lib/back-off.ts';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { trackProviderCall } from '../../lib/provider-calls.ts';
import {
  networks,
  toSignalLevel,
  type CoverageAddress,
  type CoverageLookup,
  type CoverageProvider,
  type Network,
} from './coverage.ts';

/** Ofcom's operator codes: EE, H3 (Three), TF (Telefonica, i.e. O2), VO (Vodafone). */
export const ofcomOperatorCodes: Record<Network, string> = {
  vodafone: 'VO',
  o2: 'TF',
  ee: 'EE',
  three: 'H3',
};

/** One address in Ofcom's answer; only the fields we read are declared, the rest pass through. */
const ofcomProvision = z.looseObject({
  UPRN: z.union([z.number(), z.string()]).optional(),
  AddressShortDescription: z.string().optional(),
});

const ofcomEnvelope = z.looseObject({
  PostCode: z.string().optional(),
  Availability: z.array(z.unknown()).optional(),
});

/**
 * Ofcom's published OpenAPI document says the answer is an array of postcode envelopes; the live
 * API answers a single envelope. Both are accepted.
 */
const ofcomAnswer = z.union([ofcomEnvelope, z.array(ofcomEnvelope)]);

export interface OfcomCoverageOptions {
  /** The API host, e.g. https://api-proxy.ofcom.org.uk (no trailing slash needed). */
  apiUrl: string;
  apiKey: string;
  /** How many times one lookup may call Ofcom (first call included). */
  maxAttempts?: number;
  /** Back-off before the second attempt; it doubles for each further one, plus jitter. */
  baseDelayMs?: number;
  /** A 429 asking to wait longer than this is not waited out: lookups fail fast until then. */
  maxRetryAfterSeconds?: number;
  /** Each call to Ofcom is abandoned after this long. */
  attemptTimeoutMs?: number;
  fetch?: typeof fetch;
  sleep?: (milliseconds: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
  log?: {
    warn(details: Record<string, unknown>, message: string): void;
    error(details: Record<string, unknown>, message: string): void;
  };
}

export const ofcomCoveragePolicy = {
  /** Ofcom refreshes its predictions a few times a year. */
  foundSeconds: 30 * 24 * 3600,
  /** A postcode Ofcom does not know may be new; ask again sooner. */
  notFoundSeconds: 7 * 24 * 3600,
  /** Below the basic product's 100 a minute, leaving room for clock skew between processes. */
  callsPerMinute: 90,
} as const;

const unavailableMessage =
  'Signal coverage could not be checked right now. Please try again shortly.';

function unavailable(retryAfterSeconds?: number): AppError {
  return new AppError(
    'PROVIDER_UNAVAILABLE',
    unavailableMessage,
    retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) },
  );
}

/** Retry-After is either delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, nowMs: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Maps Ofcom's answer body to addresses; an empty list means Ofcom knows no address there. */
export function mapOfcomAnswer(body: unknown): CoverageAddress[] {
  const parsed = ofcomAnswer.parse(body);
  const envelopes = Array.isArray(parsed) ? parsed : [parsed];
  const addresses: CoverageAddress[] = [];
  for (const envelope of envelopes) {
    for (const item of envelope.Availability ?? []) {
      const provision = ofcomProvision.safeParse(item);
      if (!provision.success) continue;
      const fields = provision.data as Record<string, unknown>;
      const uprn = provision.data.UPRN;
      addresses.push({
        uprn: uprn === undefined ? `ADDRESS-${addresses.length + 1}` : String(uprn),
        description:
          provision.data.AddressShortDescription?.trim() || `Address ${addresses.length + 1}`,
        networks: Object.fromEntries(
          networks.map((network) => {
            const code = ofcomOperatorCodes[network];
            return [
              network,
              {
                indoor: toSignalLevel(fields[`${code}DataIndoor`]),
                outdoor: toSignalLevel(fields[`${code}DataOutdoor`]),
              },
            ];
          }),
        ) as CoverageAddress['networks'],
      });
    }
  }
  return addresses;
}

/**
 * Ofcom answers an unknown postcode with `{ PostCode, Error }` (`ErrorMessage` in its OpenAPI
 * document); its API gateway answers an unknown path with `{ statusCode, message }`.
 */
function isGatewayNotFound(text: string): boolean {
  try {
    const body: unknown = JSON.parse(text);
    return (
      typeof body === 'object' && body !== null && 'statusCode' in body && !('PostCode' in body)
    );
  } catch {
    return false;
  }
}

export function createOfcomCoverageProvider(options: OfcomCoverageOptions): CoverageProvider {
  const {
    apiKey,
    maxAttempts = 3,
    baseDelayMs = 300,
    maxRetryAfterSeconds = 5,
    attemptTimeoutMs = 10_000,
    fetch: fetchImplementation = fetch,
    sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds)),
    now = Date.now,
    random = Math.random,
    log,
  } = options;
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  /** After a long 429, no call goes out before this time (epoch ms). */
  let throttledUntil = 0;

  const backoff = (attempt: number) => withJitter(doublingWait(baseDelayMs, attempt), random);

  async function lookup(postcode: string): Promise<CoverageLookup> {
    const url = `${apiUrl}/mobile/coverage/${encodeURIComponent(postcode)}`;
    for (let attempt = 1; ; attempt += 1) {
      const waitMs = throttledUntil - now();
      if (waitMs > 0) throw unavailable(Math.ceil(waitMs / 1000));
      const isLastAttempt = attempt >= maxAttempts;

      let response: Response;
      let text: string;
      try {
        response = await fetchImplementation(url, {
          headers: { 'Ocp-Apim-Subscription-Key': apiKey, Accept: 'application/json' },
          signal: AbortSignal.timeout(attemptTimeoutMs),
        });
        text = await response.text();
      } catch (error) {
        log?.warn({ err: error, postcode, attempt }, 'Ofcom coverage call failed');
        if (isLastAttempt) throw unavailable();
        await sleep(backoff(attempt));
        continue;
      }

      if (response.status === 200) {
        try {
          const addresses = mapOfcomAnswer(JSON.parse(text));
          return addresses.length > 0 ? { isFound: true, addresses } : { isFound: false };
        } catch (error) {
          log?.error({ err: error, postcode }, 'Ofcom coverage answer could not be read');
          throw unavailable();
        }
      }
      if (response.status === 404) {
        if (isGatewayNotFound(text)) {
          // The gateway's own 404 (a wrong OFCOM_API_URL path), not "no such postcode": caching
          // it as "no data" would hide a misconfiguration for a week.
          log?.error({ postcode, url, body: text.slice(0, 200) }, 'Ofcom API path not found');
          throw unavailable();
        }
        return { isFound: false };
      }

      if (response.status === 429) {
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now());
        const delayMs = retryAfterMs ?? backoff(attempt);
        if (isLastAttempt || delayMs > maxRetryAfterSeconds * 1000) {
          throttledUntil = now() + delayMs;
          log?.warn({ postcode, retryAfterMs: delayMs }, 'Ofcom coverage API is throttling us');
          throw unavailable(Math.max(1, Math.ceil(delayMs / 1000)));
        }
        await sleep(delayMs);
        continue;
      }

      if (response.status >= 500) {
        log?.warn(
          { postcode, attempt, status: response.status, body: text.slice(0, 200) },
          'Ofcom coverage API error',
        );
        if (isLastAttempt) throw unavailable();
        await sleep(backoff(attempt));
        continue;
      }

      // 401/403 (a missing or revoked key) and other client errors will not mend by retrying.
      log?.error(
        { postcode, status: response.status, body: text.slice(0, 200) },
        'Ofcom coverage API refused the call',
      );
      throw unavailable();
    }
  }

  return {
    source: 'ofcom',
    isDemoData: false,
    cachePolicy: {
      foundSeconds: ofcomCoveragePolicy.foundSeconds,
      notFoundSeconds: ofcomCoveragePolicy.notFoundSeconds,
    },
    callsPerMinute: ofcomCoveragePolicy.callsPerMinute,
    // One lookup, its retries included, is one call: what a customer waited for (decision 071).
    lookup: (postcode) => trackProviderCall('ofcom', 'lookup', () => lookup(postcode)),
  };
}
