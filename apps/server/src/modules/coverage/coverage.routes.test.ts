import type { SignalAvailabilityResponse } from '@farmcam/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createTestContext,
  insertCustomer,
  nextIp,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { coveragePolicy } from './coverage.service.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
});
afterAll(() => context.close());

const checkSignal = (postcode: string, remoteAddress = nextIp(), headers = {}) =>
  context.app.inject({
    method: 'GET',
    url: `/api/ofcom-signal/${encodeURIComponent(postcode)}`,
    remoteAddress,
    headers,
  });

describe('GET /api/ofcom-signal/{postCode} with the bundled demo data', () => {
  it('answers every address of a demo postcode, anonymously, marked as demo data', async () => {
    const response = await checkSignal('EX363LH');
    expect(response.statusCode).toBe(200);
    const body = response.json<SignalAvailabilityResponse>();
    expect(body.PostCode).toBe('EX363LH');
    expect(body.source).toBe('bundled');
    expect(body.isDemoData).toBe(true);
    expect(body.Availability).toHaveLength(4);
    expect(body.Availability[1]).toEqual({
      UPRN: 'DEMO-EX363LH-2',
      AddressShortDescription: 'Lower Combe Barn, Twitchen',
      VodafoneOutdoor: 3,
      VodafoneIndoor: 0,
      O2Outdoor: 0,
      O2Indoor: 0,
      EEOutdoor: 4,
      EEIndoor: 0,
      ThreeOutdoor: 3,
      ThreeIndoor: 0,
      MaxOutdoorFarm4: 4,
      MaxIndoorFarm4: 0,
      SignalBoosterRequiredForInside: true,
    });
  });

  it('normalises the postcode: any case, spaces and punctuation', async () => {
    for (const written of ['ex36 3lh', 'Ex36-3LH', ' EX36  3LH ']) {
      const response = await checkSignal(written);
      expect(response.statusCode, written).toBe(200);
      expect(response.json<SignalAvailabilityResponse>().PostCode).toBe('EX363LH');
    }
  });

  it('refuses a postcode that is not in the UK format with a 400 that says so', async () => {
    const response = await checkSignal('ABC 123');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'VALIDATION_FAILED',
      message:
        '"ABC 123" is not a valid UK postcode. Check it and try again, for example SW1A 1AA.',
    });
  });

  it('asks for a postcode when there is nothing but spaces and punctuation', async () => {
    const response = await checkSignal(' - ');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'Please enter a postcode',
    });
  });

  it('asks for a postcode when the path has none', async () => {
    const response = await checkSignal('');
    expect(response.statusCode).toBe(400);
    expect(response.json<{ message: string }>().message).toBe('Please enter a postcode');
  });

  it('refuses an absurdly long postcode', async () => {
    const response = await checkSignal('A'.repeat(41));
    expect(response.statusCode).toBe(400);
    expect(response.json<{ code: string }>().code).toBe('VALIDATION_FAILED');
  });

  it('answers 404 "no coverage data" for a valid postcode outside the demo data', async () => {
    const response = await checkSignal('SW1A 1AA');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      code: 'NOT_FOUND',
      message:
        'No coverage data for this postcode (SW1A 1AA). The demo data covers only the demo postcodes.',
    });
  });

  it('works the same for a signed-in customer', async () => {
    await insertCustomer(context, 'farmer@example.com');
    const token = await signInCustomer(context, 'farmer@example.com');
    const response = await checkSignal('GL71AN', nextIp(), bearer(token));
    expect(response.statusCode).toBe(200);
    expect(response.json<SignalAvailabilityResponse>().Availability[0]?.MaxIndoorFarm4).toBe(4);
  });

  it('limits lookups per client address with 429 and Retry-After', async () => {
    const ip = nextIp();
    const { limit } = coveragePolicy.lookupsPerIp;
    for (let index = 0; index < limit; index += 1) {
      expect((await checkSignal('EX363LH', ip)).statusCode).toBe(200);
    }
    const limited = await checkSignal('EX363LH', ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json<{ code: string }>().code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another client is not affected, and the window passes.
    expect((await checkSignal('EX363LH')).statusCode).toBe(200);
    context.clock.advance(coveragePolicy.lookupsPerIp.windowSeconds * 1000);
    expect((await checkSignal('EX363LH', ip)).statusCode).toBe(200);
  });
});

describe('GET /api/coverage/source', () => {
  it('names the demo postcodes to try when the bundled data is in use', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/coverage/source' });
    expect(response.statusCode).toBe(200);
    const body = response.json<{
      source: string;
      isDemoData: boolean;
      demoPostcodes: { postcode: string; area: string; shows: string }[];
    }>();
    expect(body.source).toBe('bundled');
    expect(body.isDemoData).toBe(true);
    expect(body.demoPostcodes.map((entry) => entry.postcode)).toContain('EX363LH');
    for (const entry of body.demoPostcodes) {
      expect((await checkSignal(entry.postcode)).statusCode, entry.postcode).toBe(200);
    }
  });
});
