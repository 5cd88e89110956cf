/**
 * A database outage at the route tier (docs/decisions/102), with the errors node-postgres and
 * drizzle really raise: a refused connection (nothing listens), a connection the server drops, and
 * a server that accepts but never answers (connect time-out). Each answers 503 in the one error
 * model with Retry-After; the log gets one line per cause per 10 s and no SQL or bound value; the
 * probes and /metrics answer without the database, /metrics without looking its token up as a
 * session; probe answers stay out of the customer-facing HTTP series.
 */
import net from 'node:net';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../test/helpers/server-processes.ts';
import { bearer, createTestContext, type TestContext } from '../../test/helpers/test-app.ts';
import { startJobs, type JobRunner } from '../jobs/job-runner.ts';
import { databaseOutage } from '../lib/database-outage.ts';
import { registry } from '../lib/metrics.ts';
import { databaseRetryAfterSeconds, databaseUnavailableAnswer } from './error-handler.ts';

const metricsToken = 'a-metrics-token-of-more-than-32-characters-for-the-test';
/** A bound value that must never reach a log line. */
const secretEmail = 'a-private-farmer@example.com';

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

let context: TestContext;
let jobs: JobRunner | undefined;
const lines: string[] = [];
const pools: pg.Pool[] = [];
const servers: net.Server[] = [];
let refusedPort: number;
let droppingPort: number;
let silentPort: number;

/** drizzle on a pool to a port, as the app's own database is built (db/client.ts). */
function databaseAt(port: number) {
  const pool = new pg.Pool({
    connectionString: `postgres://portal:pw@127.0.0.1:${port}/portal`,
    connectionTimeoutMillis: 300,
  });
  pool.on('error', () => undefined);
  pools.push(pool);
  return drizzle(pool);
}

async function tcpServer(onConnection: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer(onConnection);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

const parsedLines = () => lines.map((line) => JSON.parse(line) as LogLine);

beforeAll(async () => {
  refusedPort = await freePort();
  droppingPort = await tcpServer((socket) => socket.destroy());
  // Accepts, reads, never answers: PostgreSQL's host gone quiet behind a live address.
  const sockets: net.Socket[] = [];
  silentPort = await tcpServer((socket) => void sockets.push(socket.on('data', () => undefined)));
  servers.at(-1)!.on('close', () => sockets.forEach((socket) => socket.destroy()));

  const byPort = (port: number) => databaseAt(port);
  context = await createTestContext(
    { logLevel: 'info', metricsToken },
    (app) => {
      for (const [name, port] of [
        ['refused', () => refusedPort],
        ['dropped', () => droppingPort],
        ['silent', () => silentPort],
      ] as const) {
        const db = byPort(port());
        app.get(`/api/test-outage/${name}`, async () => {
          await db.execute(
            sql`select id from customers where email = ${secretEmail} and status = 'active'`,
          );
          return { ok: true };
        });
      }
      app.get('/api/test-outage/bug', async () => {
        throw new Error('a plain bug');
      });
    },
    () => ({ logStream: { write: (line: string) => void lines.push(line) } }),
  );
  // The job queue's tables, as every deployed process has them; then the process's readiness
  // check runs while the database answers.
  jobs = await startJobs(context.database, [], { onError: () => undefined, mode: 'send-only' });
  await context.services.readiness.refresh();
}, 60_000);

afterAll(async () => {
  await jobs?.stop();
  await context?.close();
  await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

beforeEach(() => {
  // Each test starts with the database reachable again (it ends an outage's log window).
  databaseOutage.noteReachable();
  lines.length = 0;
});

describe('requests while the database cannot be reached', () => {
  it.each([
    ['refused', 'ECONNREFUSED'],
    ['dropped', 'connection terminated'],
    ['silent', 'connect timeout'],
  ])(
    'answer 503 with Retry-After and a farmer’s sentence when the connection is %s',
    async (name, cause) => {
      const response = await context.app.inject({ method: 'GET', url: `/api/test-outage/${name}` });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe(String(databaseRetryAfterSeconds));
      expect(response.json()).toEqual(databaseUnavailableAnswer);
      expect(databaseOutage.state()).toMatchObject({ state: 'unreachable', cause });
    },
  );

  it('logs one line per cause per 10 s, with no SQL text or bound value in any line', async () => {
    for (let request = 0; request < 20; request += 1) {
      const response = await context.app.inject({ method: 'GET', url: '/api/test-outage/refused' });
      expect(response.statusCode).toBe(503);
    }
    await context.app.inject({ method: 'GET', url: '/api/test-outage/dropped' });
    const logged = parsedLines();
    const problems = logged.filter((line) => line.level >= 40);
    expect(problems.map((line) => [line.cause, line.source])).toEqual([
      ['ECONNREFUSED', 'request'],
      ['connection terminated', 'request'],
    ]);
    expect(problems[0]!.msg).toMatch(/^Database unreachable \(ECONNREFUSED\)/);
    // The access log keeps its one line per request (status 503), nothing more.
    expect(logged.filter((line) => line.msg === 'request')).toHaveLength(21);
    for (const line of lines) {
      expect(line).not.toContain(secretEmail);
      expect(line.toLowerCase()).not.toContain('select id from customers');
      expect(line).not.toContain('params:');
    }
    // The first line carries the error itself, its SQL and values taken out.
    expect(JSON.stringify(problems[0]!.err)).toContain('ECONNREFUSED');
    expect(JSON.stringify(problems[0]!.err)).toContain(
      'Failed query: [SQL and parameters not logged]',
    );
  });

  it('still answers a plain bug 500 INTERNAL', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/test-outage/bug' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ code: 'INTERNAL' });
  });

  it('answers a signed-in call 503 when its session cannot be looked up', async () => {
    const original = context.services.sessions.authenticate;
    const deadDb = databaseAt(refusedPort);
    context.services.sessions.authenticate = async () => {
      await deadDb.execute(sql`select 1 from sessions where token_hash = ${'x'.repeat(43)}`);
      throw new Error('unreachable');
    };
    try {
      const response = await context.app.inject({
        method: 'GET',
        url: '/api/auth/user-data',
        headers: bearer('s'.repeat(43)),
      });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual(databaseUnavailableAnswer);
    } finally {
      context.services.sessions.authenticate = original;
    }
  });
});

describe('probes and /metrics during the outage', () => {
  it('answer without the database: the metrics token is never looked up as a session', async () => {
    const original = context.services.sessions.authenticate;
    let lookups = 0;
    context.services.sessions.authenticate = async () => {
      lookups += 1;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
        code: 'ECONNREFUSED',
      });
    };
    try {
      // A request meets the outage; the state the probes read says so.
      await context.app.inject({ method: 'GET', url: '/api/test-outage/refused' });
      const metrics = await context.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: bearer(metricsToken),
      });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toMatch(/^farmcam_database_reachable 0$/m);
      expect(metrics.body).toMatch(
        /^farmcam_database_unreachable_errors_total\{cause="ECONNREFUSED",source="request"\} \d+$/m,
      );
      const health = await context.app.inject({
        method: 'GET',
        url: '/api/healthz',
        headers: bearer(metricsToken),
      });
      expect(health.statusCode).toBe(200);
      const ready = await context.app.inject({ method: 'GET', url: '/api/readyz' });
      // Degraded, not out of the load balancer: the API's own 503 says what is wrong.
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({
        status: 'degraded',
        checks: { database: 'failing' },
        reasons: [expect.stringMatching(/^database unreachable \(ECONNREFUSED\) since /)],
      });
      expect(lookups).toBe(0);
    } finally {
      context.services.sessions.authenticate = original;
    }
  });

  it('keeps probe answers out of the HTTP series the error-rate alert reads', async () => {
    context.services.readiness.startDraining();
    for (let probe = 0; probe < 3; probe += 1) {
      const response = await context.app.inject({ method: 'GET', url: '/api/readyz' });
      expect(response.statusCode).toBe(503);
    }
    const text = await registry.metrics();
    const routesIn = (metric: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith(`${metric}{`))
        .map((line) => /route="([^"]*)"/.exec(line)?.[1]);
    expect(routesIn('farmcam_http_requests_total')).not.toContain('/api/readyz');
    expect(routesIn('farmcam_http_requests_total')).not.toContain('/metrics');
    expect(routesIn('farmcam_http_server_errors_total')).not.toContain('/api/readyz');
    // The 5xx of the outage's customer requests are there, as they should be.
    expect(routesIn('farmcam_http_server_errors_total')).toContain('/api/test-outage/refused');
    expect(text).toMatch(
      /^farmcam_probe_requests_total\{route="\/api\/readyz",status_class="5xx"\} [3-9]\d*$/m,
    );
  });
});
