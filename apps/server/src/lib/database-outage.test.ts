/**
 * What counts as "the database cannot be reached" (on the errors the drivers really raise, and
 * PostgreSQL's codes) and the outage log: one line per cause per 10 s, one when it ends.
 */
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../test/helpers/server-processes.ts';
import { databaseUnreachableCause } from './database-errors.ts';
import { createDatabaseOutage } from './database-outage.ts';

describe('databaseUnreachableCause', () => {
  it('finds a refused connection through drizzle’s wrapper and Node’s AggregateError', async () => {
    const pool = new pg.Pool({
      connectionString: `postgres://x:y@localhost:${await freePort()}/z`,
      connectionTimeoutMillis: 1000,
    });
    pool.on('error', () => undefined);
    const error = await drizzle(pool)
      .execute(sql`select ${'value'}`)
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    await pool.end();
    expect(error?.constructor.name).toBe('DrizzleQueryError');
    expect(databaseUnreachableCause(error)).toBe('ECONNREFUSED');
  });

  it('knows PostgreSQL’s codes for a server going away or full, and class 08', () => {
    for (const code of ['57P01', '57P02', '57P03', '53300', '08006', '08001']) {
      expect(databaseUnreachableCause(Object.assign(new Error('x'), { code }))).toBe(code);
    }
    expect(databaseUnreachableCause(new Error('timeout exceeded when trying to connect'))).toBe(
      'connect timeout',
    );
    expect(databaseUnreachableCause(new Error('Connection terminated unexpectedly'))).toBe(
      'connection terminated',
    );
  });

  it('leaves every other error alone: a bad query, a constraint, a bug', () => {
    for (const code of ['23505', '42P01', '42601', '40001', '57014', '28P01']) {
      expect(databaseUnreachableCause(Object.assign(new Error('x'), { code }))).toBeUndefined();
    }
    expect(databaseUnreachableCause(new Error('Cannot read properties of undefined'))).toBe(
      undefined,
    );
    expect(databaseUnreachableCause(undefined)).toBeUndefined();
  });
});

describe('the outage log', () => {
  function outageWithLog() {
    let now = Date.parse('2026-05-01T10:00:00Z');
    const lines: { level: string; details: Record<string, unknown>; message: string }[] = [];
    const log = {
      error: (details: object, message: string) =>
        void lines.push({ level: 'error', details: details as Record<string, unknown>, message }),
      warn: (details: object, message: string) =>
        void lines.push({ level: 'warn', details: details as Record<string, unknown>, message }),
    };
    const outage = createDatabaseOutage({ now: () => now, log });
    return { outage, lines, advance: (ms: number) => void (now += ms) };
  }

  it('writes one line per cause per 10 s, saying how many it left out', () => {
    const { outage, lines, advance } = outageWithLog();
    for (let failure = 0; failure < 100; failure += 1) {
      outage.noteUnreachable('ECONNREFUSED', { source: 'request' });
      advance(90);
    }
    // 9 s of failures: one line.
    expect(lines).toHaveLength(1);
    outage.noteUnreachable('57P01', { source: 'heartbeat' });
    expect(lines).toHaveLength(2);
    advance(1_000);
    outage.noteUnreachable('ECONNREFUSED', { source: 'job queue' });
    expect(lines).toHaveLength(3);
    expect(lines[2]!.details).toMatchObject({
      cause: 'ECONNREFUSED',
      source: 'job queue',
      notLoggedSinceLastLine: 99,
      since: '2026-05-01T10:00:00.000Z',
    });
    expect(outage.state()).toMatchObject({ state: 'unreachable', cause: 'ECONNREFUSED' });
  });

  it('says once when the database answers again, and how long it was gone', () => {
    const { outage, lines, advance } = outageWithLog();
    outage.noteReachable();
    expect(lines).toEqual([]);
    outage.noteUnreachable('ECONNREFUSED', { source: 'request' });
    advance(42_000);
    outage.noteReachable();
    outage.noteReachable();
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['error', expect.stringMatching(/^Database unreachable \(ECONNREFUSED\)/)],
      ['warn', 'Database reachable again after 42 s'],
    ]);
    expect(outage.state()).toMatchObject({ state: 'reachable' });
    // A new outage logs at once, whatever the window of the last one.
    outage.noteUnreachable('ECONNREFUSED', { source: 'request' });
    expect(lines).toHaveLength(3);
  });
});
