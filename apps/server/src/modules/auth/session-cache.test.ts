import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DatabaseHandle, NotificationHandlers } from '../../db/client.ts';
import { customers, sessions, staff } from '../../db/schema.ts';
import { hashToken } from '../../lib/tokens.ts';
import {
  bearer,
  createTestContext,
  insertCustomer,
  insertStaff,
  signInCustomer,
  signInStaff,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { openTestDatabase } from '../../../test/helpers/test-database.ts';
import { authRepository } from './auth.repository.ts';
import {
  createSessionCache,
  evictOnSessionChanges,
  sessionChangesChannel,
} from './session-cache.ts';

describe('session cache', () => {
  it('serves within the time-out only', () => {
    let time = 0;
    const cache = createSessionCache<string>({ ttlMs: 1000, maxEntries: 10, now: () => time });
    cache.set('a', 'alice', cache.generation());
    expect(cache.get('a')).toBe('alice');
    time = 999;
    expect(cache.get('a')).toBe('alice');
    time = 1000;
    expect(cache.get('a')).toBeUndefined();
  });

  it('evicts one session or all of them', () => {
    const cache = createSessionCache<string>({ ttlMs: 1000, maxEntries: 10 });
    cache.set('a', 'alice', cache.generation());
    cache.set('b', 'bob', cache.generation());
    cache.evict('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe('bob');
    cache.evictAll();
    expect(cache.get('b')).toBeUndefined();
  });

  it('does not store a read that an eviction overtook', () => {
    const cache = createSessionCache<string>({ ttlMs: 1000, maxEntries: 10 });
    const generation = cache.generation();
    // The read of the still-valid row is under way when the revocation's notice arrives.
    cache.evict('a');
    cache.set('a', 'stale', generation);
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 'fresh', cache.generation());
    expect(cache.get('a')).toBe('fresh');
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const cache = createSessionCache<number>({ ttlMs: 1000, maxEntries: 2 });
    for (const [index, key] of ['a', 'b', 'c'].entries()) cache.set(key, index, 0);
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c')]).toEqual([1, 2]);
  });

  it('trusts nothing while notifications may be missed, and forgets what it had', async () => {
    let handlers: NotificationHandlers | undefined;
    const database: Pick<DatabaseHandle, 'listen'> = {
      listen: async (channel, given) => {
        expect(channel).toBe(sessionChangesChannel);
        handlers = given;
        return async () => undefined;
      },
    };
    const cache = createSessionCache<string>({ ttlMs: 1000, maxEntries: 10 });
    await evictOnSessionChanges(database, cache);
    cache.set('a', 'alice', cache.generation());
    cache.set('b', 'bob', cache.generation());
    handlers?.onNotification('a');
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, 'bob']);
    handlers?.onNotification('*');
    expect(cache.get('b')).toBeUndefined();

    cache.set('b', 'bob', cache.generation());
    handlers?.onGap(false);
    expect(cache.get('b')).toBeUndefined();
    cache.set('b', 'bob', cache.generation());
    expect(cache.get('b')).toBeUndefined();
    handlers?.onGap(true);
    cache.set('b', 'bob', cache.generation());
    expect(cache.get('b')).toBe('bob');
  });
});

describe('session change notifications from the database', () => {
  let database: DatabaseHandle;
  const received: string[] = [];
  let stop: () => Promise<void>;
  beforeAll(async () => {
    database = await openTestDatabase();
    stop = await database.listen(sessionChangesChannel, {
      onNotification: (payload) => received.push(payload),
      onGap: () => undefined,
    });
  });
  afterAll(async () => {
    await stop();
    await database.close();
  });

  /** What arrives after `change`; on PostgreSQL a notice comes on another connection, later. */
  const noticesOf = async (change: () => Promise<unknown>, expected: string[]) => {
    received.length = 0;
    await change();
    // A marker sent afterwards arrives after every notice of the change (one sender, in order).
    await database.executeSql(`select pg_notify('${sessionChangesChannel}', 'marker')`);
    await vi.waitFor(() => expect(received.at(-1)).toBe('marker'));
    expect(received.slice(0, -1).sort()).toEqual([...expected].sort());
  };

  const insertSession = async (values: { customerId?: string; staffId?: string }) => {
    const tokenHash = hashToken(`token-${Math.random()}`);
    await authRepository.insertSession(database.db, {
      tokenHash,
      role: values.staffId ? 'admin' : 'customer',
      customerId: values.customerId ?? null,
      staffId: values.staffId ?? null,
      expiresAt: new Date('2099-01-01T00:00:00Z'),
      idleTimeoutSeconds: 3600,
    });
    return tokenHash;
  };

  it('names the session when it is revoked or deleted, not when it is only touched', async () => {
    const [customer] = await database.db
      .insert(customers)
      .values({ email: 'notices@example.com' })
      .returning();
    const tokenHash = await insertSession({ customerId: customer!.id });
    const byHash = eq(sessions.tokenHash, tokenHash);

    await noticesOf(
      () => database.db.update(sessions).set({ lastSeenAt: new Date() }).where(byHash),
      [],
    );
    await noticesOf(
      () => database.db.update(sessions).set({ revokedAt: new Date() }).where(byHash),
      [tokenHash],
    );
    // Deleting an already revoked session (the hourly purge) says nothing.
    await noticesOf(() => database.db.delete(sessions).where(byHash), []);

    const live = await insertSession({ customerId: customer!.id });
    const other = await insertSession({ customerId: customer!.id });
    await noticesOf(
      () =>
        database.db
          .update(customers)
          .set({ email: 'renamed@example.com' })
          .where(eq(customers.id, customer!.id)),
      [live, other],
    );
    // Deleting the customer deletes their sessions (on delete cascade).
    await noticesOf(
      () => database.db.delete(customers).where(eq(customers.id, customer!.id)),
      [live, other],
    );
  });

  it("clears every cache when a staff member's role or e-mail changes", async () => {
    const [member] = await database.db
      .insert(staff)
      .values({ email: 'staff-notices@example.com', role: 'admin', passwordHash: 'x' })
      .returning();
    await insertSession({ staffId: member!.id });
    const byId = eq(staff.id, member!.id);
    await noticesOf(() => database.db.update(staff).set({ role: 'team' }).where(byId), ['*']);
    await noticesOf(() => database.db.update(staff).set({ passwordHash: 'y' }).where(byId), []);
  });
});

describe('sessions revoked elsewhere, in the app', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await createTestContext();
    await insertCustomer(context, 'elsewhere@example.com');
    await insertStaff(context, 'boss@example.com', 'admin');
  });
  afterAll(() => context.close());

  const userData = async (token: string) =>
    (
      await context.app.inject({
        method: 'GET',
        url: '/api/auth/user-data',
        headers: bearer(token),
      })
    ).statusCode;

  it('refuses a session as soon as another process revokes it, without waiting for the cache', async () => {
    const token = await signInCustomer(context, 'elsewhere@example.com');
    expect(await userData(token)).toBe(200);
    const read = vi.spyOn(authRepository, 'findSessionByTokenHash');
    expect(await userData(token)).toBe(200);
    expect(read).not.toHaveBeenCalled();
    read.mockRestore();

    // As another process would: straight in the database. The manual clock does not move.
    await context.database.db
      .update(sessions)
      .set({ revokedAt: context.clock.now() })
      .where(eq(sessions.tokenHash, hashToken(token)));
    await vi.waitFor(async () => expect(await userData(token)).toBe(401));
  });

  it('reads the database once when many requests find the entry expired at once', async () => {
    const token = await signInCustomer(context, 'elsewhere@example.com');
    expect(await userData(token)).toBe(200);
    context.clock.advance(6_000);
    const read = vi.spyOn(authRepository, 'findSessionByTokenHash');
    const statuses = await Promise.all(Array.from({ length: 20 }, () => userData(token)));
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 200));
    expect(read).toHaveBeenCalledTimes(1);
    read.mockRestore();
  });

  it("shows a staff member's new e-mail at once", async () => {
    const token = await signInStaff(context, 'boss@example.com');
    const email = async () =>
      (
        await context.app.inject({
          method: 'GET',
          url: '/api/auth/user-data',
          headers: bearer(token),
        })
      ).json<{ data: { email: string } }>().data.email;
    expect(await email()).toBe('boss@example.com');
    await context.database.db
      .update(staff)
      .set({ email: 'chief@example.com' })
      .where(eq(staff.email, 'boss@example.com'));
    await vi.waitFor(async () => expect(await email()).toBe('chief@example.com'));
  });
});
