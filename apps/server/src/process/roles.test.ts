/**
 * ROLE=api and ROLE=worker as real processes on one PostgreSQL database (docs/decisions/070):
 * the API serves the portal and queues a login mail that only the worker sends; the worker
 * answers its probes and metrics and no customer route; SIGTERM drains (readyz 503 `draining`
 * while the process still serves) and the process exits 0.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  startServerProcess,
  stopServerProcess,
  START_UP_MS,
  waitFor,
  type ServerProcess,
} from '../../test/helpers/server-processes.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const customerEmail = 'demo@example.com';
const metricsToken = randomBytes(32).toString('hex');

/** Polls until `probe` holds, failing at once if the process exits; the deadline only bounds a failure. */
const until = (
  portal: ServerProcess,
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
) => waitFor(what, probe, { timeoutMs, watch: [portal], intervalMs: 100 });

const isReady = (portal: ServerProcess) => async () =>
  (await fetch(`${portal.baseUrl}/api/readyz`)).status === 200;

describe.skipIf(!serverUrl)(
  'ROLE=api and ROLE=worker processes on PostgreSQL (needs TEST_DATABASE_URL: npm run test:pg)',
  () => {
    let scratch: { url: string; drop: () => Promise<void> };
    let databaseUrl: string;
    let database: pg.Client;
    let api: ServerProcess;
    let worker: ServerProcess | undefined;

    beforeAll(async () => {
      scratch = await createScratchDatabase(serverUrl as string, 'farmcam_roles');
      databaseUrl = scratch.url;
      // Long enough to see the draining answer; the worker drains at once.
      api = await startServerProcess(databaseUrl, {
        name: 'the API',
        environment: { ROLE: 'api', SHUTDOWN_GRACE_SECONDS: '2' },
      });
      database = new pg.Client({ connectionString: databaseUrl });
      await database.connect();
      await until(api, 'the API ready', isReady(api), START_UP_MS);
    }, START_UP_MS + 10_000);

    afterAll(async () => {
      await Promise.all([stopServerProcess(api, 10_000), stopServerProcess(worker, 10_000)]);
      await database?.end();
      await scratch?.drop();
    });

    it('queues a login mail on the API that only the worker sends', async () => {
      const requested = await fetch(`${api.baseUrl}/api/auth/request-login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: customerEmail }),
      });
      expect(requested.status).toBe(200);
      const queued = await database.query<{ state: string }>(
        "select state from pgboss.job where name = 'send-login-mail'",
      );
      expect(queued.rows.map((row) => row.state)).toEqual(['created']);
      // The API schedules no cron jobs: those are the workers'.
      const schedules = await database.query('select name from pgboss.schedule');
      expect(schedules.rowCount).toBe(0);

      const workerStartedAt = new Date();
      worker = await startServerProcess(databaseUrl, {
        name: 'the worker',
        environment: { ROLE: 'worker', METRICS_TOKEN: metricsToken, SHUTDOWN_GRACE_SECONDS: '0' },
      });
      let sent: { created_at: Date }[] = [];
      await until(
        worker,
        'the login mail in the outbox',
        async () => {
          ({ rows: sent } = await database.query<{ created_at: Date }>(
            'select created_at from outbox where "to" = $1',
            [customerEmail],
          ));
          return sent.length > 0;
        },
        START_UP_MS,
      );
      expect(sent).toHaveLength(1);
      // Sent after the worker came, though the API had it queued all along.
      expect(sent[0]!.created_at.getTime()).toBeGreaterThanOrEqual(workerStartedAt.getTime());
      const schedulesNow = await database.query('select name from pgboss.schedule');
      expect(schedulesNow.rowCount).toBeGreaterThan(0);
    }, 200_000);

    it('serves the probes and metrics on the worker, and no customer route', async () => {
      const running = worker as ServerProcess;
      await until(running, 'the worker ready', isReady(running), 20_000);
      const health = await fetch(`${running.baseUrl}/api/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      for (const url of ['/api/auth/request-login', '/api/plansV2', '/']) {
        const response = await fetch(`${running.baseUrl}${url}`);
        expect(response.status, url).toBe(404);
        expect(await response.json()).toMatchObject({ code: 'NOT_FOUND' });
      }
      const metrics = await fetch(`${running.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${metricsToken}` },
      });
      expect(metrics.status).toBe(200);
    });

    it('drains on SIGTERM (readyz 503 draining, still serving), then exits 0', async () => {
      api.child.kill('SIGTERM');
      let draining: { status: number; body: { status?: string; reasons?: string[] } } | undefined;
      await until(
        api,
        'readyz draining',
        async () => {
          const response = await fetch(`${api.baseUrl}/api/readyz`);
          draining = { status: response.status, body: (await response.json()) as never };
          return draining.body.status === 'draining';
        },
        2_000,
      );
      expect(draining).toEqual({
        status: 503,
        body: expect.objectContaining({ reasons: ['draining: this instance is shutting down'] }),
      });
      // Within the grace the API still answers, so requests the load balancer sent still land.
      const during = await fetch(`${api.baseUrl}/api/activation/pricing-tables/local_uk`);
      expect(during.status).toBe(200);
      expect(await api.exited).toBe(0);

      (worker as ServerProcess).child.kill('SIGTERM');
      expect(await (worker as ServerProcess).exited).toBe(0);
    }, 20_000);
  },
);
