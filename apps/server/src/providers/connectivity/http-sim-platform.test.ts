import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../errors.ts';
import { describeConnectivityPlatform } from '../../../test/contracts/connectivity.contract-cases.ts';
import {
  startFakeSimPlatform,
  type FakeSimPlatform,
} from '../../../test/fakes/fake-sim-platform-server.ts';
import { createHttpSimPlatform, type HttpSimPlatformOptions } from './http-sim-platform.ts';

const apiKey = 'test-platform-key';
let fake: FakeSimPlatform;
const retries: { path: string; attempt: number; reason: string }[] = [];
const adapter = (overrides: Partial<HttpSimPlatformOptions> = {}) =>
  createHttpSimPlatform({
    url: fake.url,
    apiKey,
    timeoutMs: 300,
    retryDelayMs: 5,
    onRetry: (detail) => retries.push(detail),
    ...overrides,
  });

beforeAll(async () => {
  fake = await startFakeSimPlatform({ apiKey });
});
afterAll(() => fake.close());
beforeEach(() => {
  retries.length = 0;
  fake.requests.length = 0;
});

describeConnectivityPlatform('HTTP SIM platform against the fake server', () => ({
  platform: adapter(),
  addSim: async (sim) => {
    fake.addSim({
      iccid: sim.iccid,
      state: sim.state,
      barred: sim.isBarred ?? false,
      activatedAt: sim.state === 'stock' ? null : '2025-09-01T00:00:00.000Z',
    });
  },
  setUsage: async (iccid, day, bytes) => fake.setUsage(iccid, day, bytes),
}));

const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
};

describe('HTTP SIM platform: the wire', () => {
  it('sends the API key and batches ICCIDs in one query', async () => {
    fake.addSim({ iccid: '8944990000000000011' });
    fake.addSim({ iccid: '8944990000000000029' });
    await adapter().getSims(['8944990000000000011', '8944990000000000029']);
    expect(fake.requests).toEqual([
      {
        method: 'GET',
        path: '/v1/sims?iccids=8944990000000000011,8944990000000000029',
        idempotencyKey: undefined,
        authorization: `Bearer ${apiKey}`,
      },
    ]);
  });

  it('maps the router and usage answers', async () => {
    fake.addSim({ iccid: '8944990000000000037' });
    fake.setRouter('8944990000000000037', { signalDbm: -93, networkProvider: 'O2 - UK' });
    const [router] = await adapter().getRouterStatuses(['8944990000000000037']);
    expect(router).toMatchObject({
      networkName: 'Farmcam-0037',
      networkProvider: 'O2 - UK',
      signalStrength: 'Fair',
      signalDbm: -93,
    });
  });
});

describe('HTTP SIM platform: failures', () => {
  it('retries a 503 and a 500, then succeeds', async () => {
    fake.addSim({ iccid: '8944990000000000045' });
    fake.failNext(2, { status: 503, pathPrefix: '/v1/sims' });
    const sims = await adapter().getSims(['8944990000000000045']);
    expect(sims).toHaveLength(1);
    expect(retries.map((retry) => retry.reason)).toEqual(['HTTP 503', 'HTTP 503']);
  });

  it('gives up after the last attempt with PROVIDER_UNAVAILABLE', async () => {
    fake.failNext(3, { status: 500 });
    const error = await failure(adapter().getSims(['8944990000000000045']));
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('PROVIDER_UNAVAILABLE');
    expect((error as AppError).message).toContain('HTTP 500');
    expect(fake.requests).toHaveLength(3);
  });

  it('waits as long as Retry-After says on 429', async () => {
    fake.failNext(1, { status: 429, retryAfterSeconds: 1 });
    const started = performance.now();
    await adapter().getSims(['8944990000000000045']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(retries).toEqual([{ path: expect.any(String), attempt: 1, reason: 'HTTP 429' }]);
  });

  it('times out a slow answer and tries again', async () => {
    fake.failNext(1, { delayMs: 1_000 });
    const sims = await adapter().getSims(['8944990000000000045']);
    expect(sims).toHaveLength(1);
    expect(retries[0]?.reason).toBe('no answer within 300 ms');
  });

  it('does not retry a wrong key, and says the platform is unavailable', async () => {
    const error = await failure(adapter({ apiKey: 'wrong' }).getSims(['8944990000000000045']));
    expect((error as AppError).code).toBe('PROVIDER_UNAVAILABLE');
    expect((error as AppError).message).toContain('401');
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses answers that are not JSON or not the documented shape', async () => {
    fake.failNext(1, { status: 200, body: 'not json' });
    expect(((await failure(adapter().getSims(['8944990000000000045']))) as AppError).code).toBe(
      'PROVIDER_UNAVAILABLE',
    );
    fake.failNext(1, { status: 200, body: JSON.stringify({ sims: [{ iccid: 1 }] }) });
    const error = (await failure(adapter().getSims(['8944990000000000045']))) as AppError;
    expect(error.message).toContain('unexpected answer');
  });

  it('cannot reach a closed port: retried, then unavailable', async () => {
    const closed = await startFakeSimPlatform({ apiKey });
    const url = closed.url;
    await closed.close();
    const error = await failure(adapter({ url }).getSims(['8944990000000000045']));
    expect((error as AppError).code).toBe('PROVIDER_UNAVAILABLE');
    expect(retries.map((retry) => retry.reason)).toEqual(['network error', 'network error']);
  });

  it('keeps the Idempotency-Key across retries, so a change is applied once', async () => {
    fake.addSim({ iccid: '8944990000000000052', state: 'active' });
    // The platform applies the pause but the answer never reaches us in time.
    fake.failNext(1, { delayMs: 1_000, pathPrefix: '/v1/sims/8944990000000000052' });
    const sim = await adapter().pauseSim('8944990000000000052', { idempotencyKey: 'pause-52' });
    expect(sim.state).toBe('paused');
    // At least one retry, every try with the one key (on a busy machine a retry may time out too).
    const posts = fake.requests.filter((request) => request.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(posts.map((request) => request.idempotencyKey))).toEqual(new Set(['pause-52']));
    expect(fake.appliedChanges.filter((change) => change.iccid === '8944990000000000052')).toEqual([
      { iccid: '8944990000000000052', action: 'pause' },
    ]);
  });

  it('passes NOT_FOUND and CONFLICT through without retrying', async () => {
    const unknown = (await failure(adapter().pauseSim('8944990000000000060'))) as AppError;
    expect(unknown.code).toBe('NOT_FOUND');
    fake.addSim({ iccid: '8944990000000000078', state: 'terminated' });
    const conflict = (await failure(adapter().resumeSim('8944990000000000078'))) as AppError;
    expect(conflict.code).toBe('CONFLICT');
    expect(conflict.message).toContain('cannot be resumed');
    expect(retries).toEqual([]);
  });
});
