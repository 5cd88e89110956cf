/**
 * ROLE=api and ROLE=worker as real processes on one PostgreSQL database (docs/decisions/070):
 * the API serves the portal and queues a login mail that only the worker sends; the worker
 * answers its probes and metrics and no customer route; SIGTERM drains (readyz 503 `draining`
 * while the process still serves) and the process exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const serverUrl = process.env.TEST_DATABASE_URL;
const serverEntry = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'server.ts');
const customerEmail = 'demo@example.com';
const metricsToken = randomBytes(32).toString('hex');

interface Portal {
  baseUrl: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startPortal(databaseUrl: string, environment: NodeJS.ProcessEnv): Promise<Portal> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-roles-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    LOG_LEVEL: 'warn',
    MAIL: 'outbox',
    DEMO_DATA: 'true',
    ...environment,
  };
  delete env.TEST_DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      resolve(code);
    }),
  );
  return { baseUrl, child, output: () => output, exited };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `probe` holds; the deadline only bounds a failure. */
async function until(
  portal: Portal,
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (portal.child.exitCode !== null) {
      throw new Error(`The server exited with ${portal.child.exitCode}:\n${portal.output()}`);
    }
    if (await probe().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms\n${portal.output()}`);
}

const isReady = (portal: Portal) => async () =>
  (await fetch(`${portal.baseUrl}/api/readyz`)).status === 200;

async function stopPortal(portal: Portal | undefined): Promise<void> {
  if (!portal || portal.child.exitCode !== null || portal.child.signalCode !== null) return;
  portal.child.kill('SIGTERM');
  const timer = setTimeout(() => portal.child.kill('SIGKILL'), 10_000);
  await portal.exited;
  clearTimeout(timer);
}

describe.skipIf(!serverUrl)(
  'ROLE=api and ROLE=worker processes on PostgreSQL (needs TEST_DATABASE_URL: npm run test:pg)',
  () => {
    const databaseName = `farmcam_roles_${randomBytes(6).toString('hex')}`;
    let databaseUrl: string;
    let database: pg.Client;
    let api: Portal;
    let worker: Portal | undefined;

    beforeAll(async () => {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`create database ${databaseName}`);
      await admin.end();
      const url = new URL(serverUrl as string);
      url.pathname = `/${databaseName}`;
      databaseUrl = url.toString();
      // Long enough to see the draining answer; the worker drains at once.
      api = await startPortal(databaseUrl, { ROLE: 'api', SHUTDOWN_GRACE_SECONDS: '2' });
      database = new pg.Client({ connectionString: databaseUrl });
      await database.connect();
      await until(api, 'the API ready', isReady(api), 40_000);
    }, 45_000);

    afterAll(async () => {
      await Promise.all([stopPortal(api), stopPortal(worker)]);
      await database?.end();
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${databaseName} with (force)`);
      await admin.end();
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
      worker = await startPortal(databaseUrl, {
        ROLE: 'worker',
        METRICS_TOKEN: metricsToken,
        SHUTDOWN_GRACE_SECONDS: '0',
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
        40_000,
      );
      expect(sent).toHaveLength(1);
      // Sent after the worker came, though the API had it queued all along.
      expect(sent[0]!.created_at.getTime()).toBeGreaterThanOrEqual(workerStartedAt.getTime());
      const schedulesNow = await database.query('select name from pgboss.schedule');
      expect(schedulesNow.rowCount).toBeGreaterThan(0);
    }, 50_000);

    it('serves the probes and metrics on the worker, and no customer route', async () => {
      const running = worker as Portal;
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

      (worker as Portal).child.kill('SIGTERM');
      expect(await (worker as Portal).exited).toBe(0);
    }, 20_000);
  },
);
