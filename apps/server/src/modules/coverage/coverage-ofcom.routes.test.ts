import type { SignalAvailabilityResponse } from '@farmcam/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, nextIp, type TestContext } from '../../../test/helpers/test-app.ts';
import { coverageCache } from '../../db/schema.ts';
import {
  ofcomProvision,
  startFakeOfcomApi,
  type FakeAddress,
  type FakeOfcomApi,
} from '../../../test/fakes/fake-ofcom-api.ts';

const day = 24 * 3600 * 1000;
let fake: FakeOfcomApi;
let context: TestContext;

const farm: FakeAddress = {
  uprn: 100040212345,
  description: 'Higher Combe Farm, Twitchen',
  data: { VO: [3, 0], TF: [0, 0], EE: [4, 0], H3: [null, null] },
};

beforeAll(async () => {
  fake = await startFakeOfcomApi();
  fake.setAddresses('EX363LH', [farm]);
  fake.setAddresses('LA229JU', [
    { uprn: 100040300001, description: 'Beckside Farm', data: { EE: [3, 3] } },
  ]);
  context = await createTestContext({
    coverage: { mode: 'ofcom', apiUrl: fake.url, apiKey: fake.apiKey },
  });
});
afterAll(async () => {
  await context.close();
  await fake.close();
});
beforeEach(() => {
  fake.calls.length = 0;
});

const checkSignal = (postcode: string) =>
  context.app.inject({
    method: 'GET',
    url: `/api/ofcom-signal/${encodeURIComponent(postcode)}`,
    remoteAddress: nextIp(),
  });

describe('GET /api/ofcom-signal/{postCode} with COVERAGE=ofcom', () => {
  it('maps Ofcom’s answer to the spec’s address fields, not marked as demo data', async () => {
    const response = await checkSignal('ex36 3lh');
    expect(response.statusCode).toBe(200);
    expect(response.json<SignalAvailabilityResponse>()).toEqual({
      PostCode: 'EX363LH',
      source: 'ofcom',
      isDemoData: false,
      Availability: [
        {
          UPRN: '100040212345',
          AddressShortDescription: 'Higher Combe Farm, Twitchen',
          VodafoneOutdoor: 3,
          VodafoneIndoor: 0,
          O2Outdoor: 0,
          O2Indoor: 0,
          EEOutdoor: 4,
          EEIndoor: 0,
          ThreeOutdoor: null,
          ThreeIndoor: null,
          MaxOutdoorFarm4: 4,
          MaxIndoorFarm4: 0,
          SignalBoosterRequiredForInside: true,
        },
      ],
    });
    expect(fake.calls).toEqual([
      { path: '/mobile/coverage/EX363LH', postcode: 'EX363LH', apiKey: fake.apiKey },
    ]);
  });

  it('answers again from the database cache, and asks Ofcom again after 30 days', async () => {
    expect((await checkSignal('EX363LH')).statusCode).toBe(200);
    expect(fake.calls).toHaveLength(0);
    const [row] = await context.database.db
      .select()
      .from(coverageCache)
      .where(eq(coverageCache.postcode, 'EX363LH'));
    expect(row?.fetchedAt).toEqual(context.clock.now());

    context.clock.advance(29 * day);
    expect((await checkSignal('EX363LH')).statusCode).toBe(200);
    expect(fake.calls).toHaveLength(0);

    context.clock.advance(2 * day);
    expect((await checkSignal('EX363LH')).statusCode).toBe(200);
    expect(fake.calls).toHaveLength(1);
  });

  it('answers 404 for a postcode Ofcom does not know, and remembers that for a week', async () => {
    const first = await checkSignal('ZE2 9XX');
    expect(first.statusCode).toBe(404);
    expect(first.json()).toEqual({
      code: 'NOT_FOUND',
      message: 'No coverage data for this postcode (ZE2 9XX).',
    });
    expect((await checkSignal('ZE29XX')).statusCode).toBe(404);
    expect(fake.calls).toHaveLength(1);

    context.clock.advance(8 * day);
    fake.setAddresses('ZE29XX', [{ uprn: 1, description: 'New croft', data: { VO: [4, 4] } }]);
    expect((await checkSignal('ZE29XX')).statusCode).toBe(200);
    expect(fake.calls).toHaveLength(2);
  });

  it('serves the expired answer when Ofcom keeps failing', async () => {
    context.clock.advance(31 * day);
    fake.script(
      { status: 500, body: { Error: 'General error' } },
      { status: 500, body: { Error: 'General error' } },
      { status: 500, body: { Error: 'General error' } },
    );
    const response = await checkSignal('EX363LH');
    expect(response.statusCode).toBe(200);
    expect(response.json<SignalAvailabilityResponse>().Availability[0]?.UPRN).toBe('100040212345');
    expect(fake.calls).toHaveLength(3);
  });

  it('answers 503 when Ofcom fails and nothing is cached', async () => {
    fake.script(
      { status: 500, body: { Error: 'General error' } },
      { status: 503, body: { Error: 'Unavailable' } },
      { status: 500, body: { Error: 'General error' } },
    );
    const response = await checkSignal('LA22 9JU');
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      code: 'PROVIDER_UNAVAILABLE',
      message: 'Signal coverage could not be checked right now. Please try again shortly.',
    });
    // Nothing half-done: the failure is not cached, so the next check asks Ofcom again.
    expect((await checkSignal('LA22 9JU')).statusCode).toBe(200);
  });

  it('sends one call to Ofcom for simultaneous checks of the same postcode', async () => {
    fake.setAddresses('TD86SZ', [{ uprn: 7, description: 'Hartshaw Farm', data: { VO: [4, 0] } }]);
    fake.script({
      status: 200,
      delayMs: 300,
      body: {
        PostCode: 'TD86SZ',
        Availability: [
          ofcomProvision('TD86SZ', { uprn: 7, description: 'Hartshaw Farm', data: { VO: [4, 0] } }),
        ],
      },
    });
    const answers = await Promise.all([checkSignal('TD8 6SZ'), checkSignal('td86sz')]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
    expect(fake.calls).toHaveLength(1);
  });

  // Last: a long 429 keeps the adapter from calling Ofcom until it has passed.
  it('passes on Ofcom’s long 429 as 503 with Retry-After', async () => {
    fake.script({ status: 429, headers: { 'Retry-After': '120' }, body: { statusCode: 429 } });
    const response = await checkSignal('BT92 1EB');
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('120');
    expect((await checkSignal('NR20 4QT')).statusCode).toBe(503);
    expect(fake.calls).toHaveLength(1);
  });
});

describe('GET /api/coverage/source with COVERAGE=ofcom', () => {
  it('says the data is Ofcom’s, with no demo postcodes', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/coverage/source' });
    expect(response.json()).toEqual({ source: 'ofcom', isDemoData: false, demoPostcodes: [] });
  });
});
