import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../errors.ts';
import { startFakeOfcomApi, type FakeOfcomApi } from '../../../test/fakes/fake-ofcom-api.ts';
import {
  createOfcomCoverageProvider,
  mapOfcomAnswer,
  parseRetryAfter,
  type OfcomCoverageOptions,
} from './ofcom-coverage.ts';

let fake: FakeOfcomApi;
/** Waits the adapter asked for, instead of sleeping through them. */
let sleeps: number[] = [];
let nowMs = Date.parse('2026-03-10T12:00:00Z');

function provider(overrides: Partial<OfcomCoverageOptions> = {}) {
  return createOfcomCoverageProvider({
    apiUrl: fake.url,
    apiKey: fake.apiKey,
    baseDelayMs: 100,
    // The middle of the jitter's spread: the waits are the plain doubling (lib/back-off.ts).
    random: () => 0.5,
    now: () => nowMs,
    sleep: async (milliseconds) => {
      sleeps.push(milliseconds);
      nowMs += milliseconds;
    },
    ...overrides,
  });
}

async function expectUnavailable(promise: Promise<unknown>, retryAfter?: string) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('PROVIDER_UNAVAILABLE');
  expect((error as AppError).statusCode).toBe(503);
  expect((error as AppError).headers['retry-after']).toBe(retryAfter);
}

beforeAll(async () => {
  fake = await startFakeOfcomApi();
  fake.setAddresses('EX363LH', [
    {
      uprn: 100040212345,
      description: 'Higher Combe Farm, Twitchen',
      data: { VO: [4, 3], TF: [3, 0], EE: [4, 3], H3: [0, 0] },
    },
    {
      uprn: 100040212346,
      description: 'Lower Combe Barn, Twitchen',
      data: { VO: [3, 0], EE: [null, null] },
    },
  ]);
});
afterAll(() => fake.close());
afterEach(() => {
  fake.calls.length = 0;
  sleeps = [];
  fake.answerAsArray(false);
});

describe('Ofcom coverage adapter against the fake API', () => {
  it('reads the data levels (not voice or No4g) of every address, sending the key', async () => {
    const lookup = await provider().lookup('EX363LH');
    expect(lookup).toEqual({
      isFound: true,
      addresses: [
        {
          uprn: '100040212345',
          description: 'Higher Combe Farm, Twitchen',
          networks: {
            vodafone: { outdoor: 4, indoor: 3 },
            o2: { outdoor: 3, indoor: 0 },
            ee: { outdoor: 4, indoor: 3 },
            three: { outdoor: 0, indoor: 0 },
          },
        },
        {
          uprn: '100040212346',
          description: 'Lower Combe Barn, Twitchen',
          networks: {
            vodafone: { outdoor: 3, indoor: 0 },
            o2: { outdoor: 0, indoor: 0 },
            ee: { outdoor: null, indoor: null },
            three: { outdoor: 0, indoor: 0 },
          },
        },
      ],
    });
    expect(fake.calls).toEqual([
      { path: '/mobile/coverage/EX363LH', postcode: 'EX363LH', apiKey: fake.apiKey },
    ]);
  });

  it('also accepts the array of envelopes that Ofcom’s OpenAPI document describes', async () => {
    fake.answerAsArray(true);
    const lookup = await provider().lookup('EX363LH');
    expect(lookup.isFound && lookup.addresses.map((address) => address.uprn)).toEqual([
      '100040212345',
      '100040212346',
    ]);
  });

  it('answers "no data" for a postcode Ofcom does not know (404), without retrying', async () => {
    expect(await provider().lookup('ZE29XX')).toEqual({ isFound: false });
    expect(fake.calls).toHaveLength(1);
  });

  it('retries a 500 with exponential back-off, then succeeds', async () => {
    fake.script(
      { status: 500, body: { Error: 'General error' } },
      { status: 500, body: { Error: 'General error' } },
    );
    const lookup = await provider().lookup('EX363LH');
    expect(lookup.isFound).toBe(true);
    expect(fake.calls).toHaveLength(3);
    expect(sleeps).toEqual([100, 200]);
  });

  it('gives up after three 500s with 503 PROVIDER_UNAVAILABLE', async () => {
    fake.script(
      { status: 500, body: { Error: 'General error' } },
      { status: 502, body: { Error: 'Bad gateway' } },
      { status: 500, body: { Error: 'General error' } },
    );
    await expectUnavailable(provider().lookup('EX363LH'));
    expect(fake.calls).toHaveLength(3);
  });

  it('waits out a short 429 Retry-After, then asks again', async () => {
    fake.script({ status: 429, headers: { 'Retry-After': '2' }, body: { statusCode: 429 } });
    const lookup = await provider().lookup('EX363LH');
    expect(lookup.isFound).toBe(true);
    expect(sleeps).toEqual([2000]);
    expect(fake.calls).toHaveLength(2);
  });

  it('does not wait out a long 429: fails fast, and sends nothing until it has passed', async () => {
    const adapter = provider();
    fake.script({ status: 429, headers: { 'Retry-After': '60' }, body: { statusCode: 429 } });
    await expectUnavailable(adapter.lookup('EX363LH'), '60');
    expect(fake.calls).toHaveLength(1);

    nowMs += 30_000;
    await expectUnavailable(adapter.lookup('EX363LH'), '30');
    expect(fake.calls).toHaveLength(1);

    nowMs += 30_000;
    expect((await adapter.lookup('EX363LH')).isFound).toBe(true);
    expect(fake.calls).toHaveLength(2);
  });

  it('treats a refused key (401) as unavailable without retrying', async () => {
    await expectUnavailable(provider({ apiKey: 'wrong-key' }).lookup('EX363LH'));
    expect(fake.calls).toHaveLength(1);
  });

  it('does not mistake the gateway’s own 404 (wrong API path) for "no data"', async () => {
    await expectUnavailable(provider({ apiUrl: `${fake.url}/wrong` }).lookup('EX363LH'));
    expect(fake.calls).toHaveLength(1);
  });

  it('abandons a call that takes too long and retries it', async () => {
    fake.script({ status: 200, body: {}, delayMs: 500 });
    const lookup = await provider({ attemptTimeoutMs: 100 }).lookup('EX363LH');
    expect(lookup.isFound).toBe(true);
    expect(fake.calls).toHaveLength(2);
  });

  it('reports an unreadable 200 answer as unavailable', async () => {
    fake.script({ status: 200, body: 'not an envelope' });
    await expectUnavailable(provider().lookup('EX363LH'));
  });

  it('reports a host that does not answer as unavailable after its retries', async () => {
    await expectUnavailable(provider({ apiUrl: 'http://127.0.0.1:9' }).lookup('EX363LH'));
    expect(sleeps).toEqual([100, 200]);
  });
});

describe('mapping Ofcom answers', () => {
  it('treats missing and out-of-range scores as no prediction', () => {
    const [address] = mapOfcomAnswer({
      PostCode: 'LA229JU',
      Availability: [
        {
          UPRN: 10002,
          AddressShortDescription: ' Beckside Farm ',
          VODataOutdoor: 3,
          VODataIndoor: 7,
          TFDataOutdoor: '4',
          EEDataOutdoor: 2,
          EEDataIndoor: 1,
        },
      ],
    });
    expect(address).toEqual({
      uprn: '10002',
      description: 'Beckside Farm',
      networks: {
        vodafone: { outdoor: 3, indoor: null },
        o2: { outdoor: null, indoor: null },
        ee: { outdoor: 2, indoor: 1 },
        three: { outdoor: null, indoor: null },
      },
    });
  });

  it('finds no addresses in an empty answer', () => {
    expect(mapOfcomAnswer({ PostCode: 'LA229JU', Availability: [] })).toEqual([]);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Tue, 10 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
