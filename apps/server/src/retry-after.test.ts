/**
 * Every limited route answers its 429 with Retry-After (docs/decisions/063): each route is called
 * from one address until it refuses, and the refusal must say when to come back.
 */
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActors, type Actors } from '../test/helpers/authorization.ts';
import { createTestContext, nextIp, type TestContext } from '../test/helpers/test-app.ts';
import { demoIccid, demoStockIccid, seedDemoData } from './seed/demo.ts';
import { livestreams } from './db/schema.ts';
import { newPublicId } from './modules/livestream/livestream-setup.service.ts';

let context: TestContext;
let actors: Actors;
let publicId: string;
const farmyard = demoIccid(103); // Heavy monthly, active, owned by demo@example.com

beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, 'demo@example.com');
  await seedDemoData(context.database.db, context.clock);
  publicId = newPublicId();
  await context.database.db.insert(livestreams).values({ simIccid: farmyard, publicId });
}, 120_000);
afterAll(() => context.close());

/** Calls the route (a fresh request each time) until it answers 429; at most `maxCalls` times. */
async function firstRefusal(request: (call: number) => InjectOptions, maxCalls = 200) {
  for (let call = 0; call < maxCalls; call += 1) {
    const response = await context.app.inject(request(call));
    if (response.statusCode === 429) return response;
  }
  throw new Error(`no 429 after ${maxCalls} calls`);
}

const post = (url: string, payload: object, extra: Partial<InjectOptions> = {}) => {
  const remoteAddress = nextIp();
  return () => ({ method: 'POST', url, payload, remoteAddress, ...extra }) satisfies InjectOptions;
};

const limitedRoutes: [string, () => (call: number) => InjectOptions][] = [
  [
    'POST /api/activation/validate-activation-code',
    () => post('/api/activation/validate-activation-code', { activationCode: 'ZZZZ' }),
  ],
  [
    'POST /api/activation/validate-iccid',
    () => post('/api/activation/validate-iccid', { iccid: '8944110000000999999' }),
  ],
  [
    'POST /api/activation/validate',
    () => post('/api/activation/validate', { iccid: '8944110000000999999' }),
  ],
  [
    'POST /api/activation/check-solar-sim',
    () => post('/api/activation/check-solar-sim', { iccid: '8944110000000999999' }),
  ],
  [
    'POST /api/activation/checkout',
    () =>
      post('/api/activation/checkout', {
        pricing_table_id: 'local_uk',
        price_id: 'price_light_month_uk',
        client_reference_id: '8944110000000999999',
        customer_email: 'someone@example.com',
      }),
  ],
  [
    'POST /api/activation/log-price-table',
    () =>
      post('/api/activation/log-price-table', {
        'client-reference-id': demoStockIccid('KQTX'),
        'customer-email': 'someone@example.com',
      }),
  ],
  [
    'POST /api/activation/billing-customer',
    () =>
      post(
        '/api/activation/billing-customer',
        { iccid: '8944110000000999999' },
        { headers: actors.headers.owner },
      ),
  ],
  [
    'GET /api/ofcom-signal/:postCode',
    () => {
      const remoteAddress = nextIp();
      return () => ({ method: 'GET', url: '/api/ofcom-signal/EX363LH', remoteAddress });
    },
  ],
  [
    'POST /api/auth/request-login',
    () => post('/api/auth/request-login', { email: 'nobody@example.com' }),
  ],
  [
    'POST /api/livestreaming/share-code',
    () => (call) => ({
      method: 'POST',
      url: '/api/livestreaming/share-code',
      payload: { camera_id: farmyard, email_address: `manager${call}@example.com`, html_code: '' },
      headers: actors.headers.owner,
    }),
  ],
  [
    'POST /api/livestreaming/rtsp-now',
    () => () => ({
      method: 'POST',
      url: '/api/livestreaming/rtsp-now',
      payload: {
        camera_id: farmyard,
        rtsp_port: 554,
        rtsp_path: '/12',
        duration: 5,
        include_audio: false,
      },
      headers: actors.headers.owner,
    }),
  ],
  [
    'GET /api/livestreaming/livestream-url',
    () => {
      const remoteAddress = nextIp();
      return () => ({
        method: 'GET',
        url: `/api/livestreaming/livestream-url?camera_id=${publicId}`,
        remoteAddress,
      });
    },
  ],
  [
    'GET /embed/:publicId',
    () => {
      const remoteAddress = nextIp();
      return () => ({ method: 'GET', url: `/embed/${publicId}`, remoteAddress });
    },
  ],
];

describe('429 answers', () => {
  for (const [name, makeRequest] of limitedRoutes) {
    it(`${name} says when to try again`, async () => {
      const refused = await firstRefusal(makeRequest());
      const retryAfter = refused.headers['retry-after'];
      expect(retryAfter, name).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect(Number(retryAfter)).toBeLessThanOrEqual(24 * 3600);
    });
  }
});
