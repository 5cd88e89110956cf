import type { PlansResponse } from '@farmcam/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { dailyUsage, invoices, livestreams, sims, subscriptions } from '../../db/schema.ts';
import { insertCard } from '@farmcam/billing-engine';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { camerasRepository } from './cameras.repository.ts';
import { createReadCache } from './plans-cache.ts';

describe('read cache', () => {
  const deferred = <T>() => {
    let resolve!: (value: T) => void;
    const promise = new Promise<T>((settle) => (resolve = settle));
    return { promise, resolve };
  };

  it('serves within the time-out and the same day only', async () => {
    let time = 0;
    const cache = createReadCache<number>({ ttlMs: 1000, maxEntries: 10, now: () => time });
    let loads = 0;
    const load = async () => (loads += 1);
    expect(await cache.read('a', '2026-03-10', load)).toBe(1);
    expect(await cache.read('a', '2026-03-10', load)).toBe(1);
    expect(await cache.read('a', '2026-03-11', load)).toBe(2);
    time = 1001;
    expect(await cache.read('a', '2026-03-11', load)).toBe(3);
  });

  it('forgets one key or all of them', async () => {
    const cache = createReadCache<string>({ ttlMs: 1000, maxEntries: 10 });
    let version = 1;
    const load = (key: string) => async () => `${key}${version}`;
    await cache.read('a', 'd', load('a'));
    await cache.read('b', 'd', load('b'));
    version = 2;
    cache.invalidate('a');
    expect(await cache.read('a', 'd', load('a'))).toBe('a2');
    expect(await cache.read('b', 'd', load('b'))).toBe('b1');
    cache.invalidateAll();
    expect(await cache.read('b', 'd', load('b'))).toBe('b2');
  });

  it('does not keep an answer loaded before an invalidation', async () => {
    const cache = createReadCache<string>({ ttlMs: 1000, maxEntries: 10 });
    const slow = deferred<string>();
    const reading = cache.read('a', 'd', () => slow.promise);
    cache.invalidate('a');
    slow.resolve('stale');
    expect(await reading).toBe('stale');
    expect(await cache.read('a', 'd', async () => 'fresh')).toBe('fresh');
  });

  it('shares one load between concurrent misses', async () => {
    const cache = createReadCache<string>({ ttlMs: 1000, maxEntries: 10 });
    const slow = deferred<string>();
    const load = vi.fn(() => slow.promise);
    const readers = [cache.read('a', 'd', load), cache.read('a', 'd', load)];
    slow.resolve('value');
    expect(await Promise.all(readers)).toEqual(['value', 'value']);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('drops the least recently used entry when full', async () => {
    const cache = createReadCache<string>({ ttlMs: 1000, maxEntries: 2 });
    const load = vi.fn(async () => 'value');
    await cache.read('a', 'd', load);
    await cache.read('b', 'd', load);
    await cache.read('a', 'd', load);
    await cache.read('c', 'd', load);
    load.mockClear();
    await cache.read('a', 'd', load);
    expect(load).not.toHaveBeenCalled();
    await cache.read('b', 'd', load);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('serves nothing while disabled, and never with a zero time-out', async () => {
    const cache = createReadCache<number>({ ttlMs: 1000, maxEntries: 10 });
    let loads = 0;
    const load = async () => (loads += 1);
    await cache.read('a', 'd', load);
    cache.setEnabled(false);
    expect(await cache.read('a', 'd', load)).toBe(2);
    cache.setEnabled(true);
    expect(await cache.read('a', 'd', load)).toBe(3);
    expect(await cache.read('a', 'd', load)).toBe(3);
    const off = createReadCache<number>({ ttlMs: 0, maxEntries: 10 });
    off.setEnabled(true);
    expect(off.isEnabled).toBe(false);
  });
});

describe('camera list cache in the app, invalidated by database notifications', () => {
  let context: TestContext;
  let demoHeaders: Record<string, string>;
  let secondHeaders: Record<string, string>;
  beforeAll(async () => {
    context = await createTestContext({ plansCacheSeconds: 60 });
    await seedDemoData(context.database.db, context.clock);
    demoHeaders = bearer(await signInCustomer(context, 'demo@example.com'));
    secondHeaders = bearer(await signInCustomer(context, 'second@example.com'));
  });
  afterAll(() => context.close());
  afterEach(() => vi.restoreAllMocks());

  const plans = async (headers: Record<string, string>) =>
    (
      await context.app.inject({ method: 'GET', url: '/api/cameras/plansV2', headers })
    ).json<PlansResponse>();
  const subStatusOf = (response: PlansResponse, serial: number) =>
    response.cameras.find((camera) => camera.SIM_ICCID === demoIccid(serial))?.SubStatus;

  it('reads the database once, then from memory', async () => {
    const listCameras = vi.spyOn(camerasRepository, 'listCameras');
    await plans(demoHeaders);
    await plans(demoHeaders);
    expect(listCameras).toHaveBeenCalledTimes(1);
  });

  it("drops a customer's list when their subscription changes, and only theirs", async () => {
    await plans(secondHeaders);
    const listCameras = vi.spyOn(camerasRepository, 'listCameras');
    await context.database.db
      .update(subscriptions)
      .set({ status: 'past_due' })
      .where(eq(subscriptions.simIccid, demoIccid(101)));
    // On PostgreSQL the notification arrives on another connection, a moment later.
    await vi.waitFor(async () =>
      expect(subStatusOf(await plans(demoHeaders), 101)).toBe('past_due'),
    );
    const reads = listCameras.mock.calls.length;
    await plans(secondHeaders);
    expect(listCameras.mock.calls.length).toBe(reads);
    await context.database.db
      .update(subscriptions)
      .set({ status: 'active' })
      .where(eq(subscriptions.simIccid, demoIccid(101)));
    await vi.waitFor(async () => expect(subStatusOf(await plans(demoHeaders), 101)).toBe('active'));
  });

  it('drops every list when usage is recorded', async () => {
    const before = await plans(secondHeaders);
    await context.database.db
      .insert(dailyUsage)
      .values({ simIccid: demoIccid(201), day: '2026-03-10', bytes: 9e9 })
      .onConflictDoUpdate({
        target: [dailyUsage.simIccid, dailyUsage.day],
        set: { bytes: 9e9 },
      });
    await vi.waitFor(async () =>
      expect((await plans(secondHeaders)).cameras[0]!.dataUsageGB).toBeGreaterThan(
        before.cameras[0]!.dataUsageGB,
      ),
    );
  });

  const billingCustomerOf = async (serial: number) =>
    (
      await context.database.db
        .select()
        .from(sims)
        .where(eq(sims.iccid, demoIccid(serial)))
    )[0]?.billingCustomerId;

  it("drops a customer's list when a card is saved or an unpaid invoice is paid (decision 113)", async () => {
    const unpaidOf = async (serial: number) =>
      (await plans(demoHeaders)).cameras.find((camera) => camera.SIM_ICCID === demoIccid(serial))
        ?.unpaid;
    expect((await unpaidOf(107))?.cause).toBe('card_expired');
    await insertCard(context.database.db, {
      billingCustomerId: (await billingCustomerOf(107))!,
      brand: 'visa',
      last4: '4242',
      expMonth: 1,
      expYear: context.clock.now().getUTCFullYear() + 4,
      makeDefault: true,
      createdAt: context.clock.now(),
    });
    await vi.waitFor(async () => expect((await unpaidOf(107))?.cause).toBe('not_collected'));

    // Bottom field owes £12.00 on one invoice; a part paid (its status unchanged) shows too.
    expect((await unpaidOf(108))?.amountDue).toBe(1200);
    await context.database.db
      .update(invoices)
      .set({ amountPaid: 200 })
      .where(
        and(
          eq(invoices.billingCustomerId, (await billingCustomerOf(108))!),
          eq(invoices.status, 'open'),
        ),
      );
    await vi.waitFor(async () => expect((await unpaidOf(108))?.amountDue).toBe(1000));
  });

  it('shows a rename at once', async () => {
    await plans(demoHeaders);
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/cameras/update-nickname',
      headers: demoHeaders,
      payload: { simIccid: demoIccid(102), nickname: 'Ewes' },
    });
    expect(response.statusCode).toBe(200);
    const after = await plans(demoHeaders);
    expect(
      after.cameras.find((camera) => camera.SIM_ICCID === demoIccid(102))?.nicknameInDatabase,
    ).toBe('Ewes');
  });

  it("drops a customer's list when a livestream is switched on or off (decision 140)", async () => {
    const isStreaming = async () =>
      (await plans(demoHeaders)).cameras.find((camera) => camera.SIM_ICCID === demoIccid(103))
        ?.isLivestreaming;
    expect(await isStreaming()).toBe(false);
    await context.database.db
      .insert(livestreams)
      .values({ simIccid: demoIccid(103), publicId: 'cache-test-stream', isActive: true });
    await vi.waitFor(async () => expect(await isStreaming()).toBe(true));
    await context.database.db
      .update(livestreams)
      .set({ isActive: false })
      .where(eq(livestreams.simIccid, demoIccid(103)));
    await vi.waitFor(async () => expect(await isStreaming()).toBe(false));
  });
});
