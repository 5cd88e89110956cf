/**
 * Two real server processes on one PostgreSQL database (docs/decisions/065): both cold-start at
 * once on an empty database (migrations, demo seed and job queues under advisory locks), and a logout
 * on one is refused by the other at once (session cache evicted by NOTIFY session_changes), not
 * after the cache's few seconds.
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
import { authPolicy } from './modules/auth/auth.service.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const serverEntry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.ts');
const customerEmail = 'demo@example.com';

interface Portal {
  baseUrl: string;
  child: ChildProcess;
  output: () => string;
}

/** A port nothing listens on right now: bind port 0, read it, let it go. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startPortal(databaseUrl: string): Promise<Portal> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-processes-'));
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
    // Both seed: the demo seed is serialised too, the second finds it done.
    DEMO_DATA: 'true',
  };
  delete env.TEST_DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.once('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  return { baseUrl, child, output: () => output };
}

async function waitUntilHealthy(portal: Portal, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (portal.child.exitCode !== null) {
      throw new Error(`The server exited with ${portal.child.exitCode}:\n${portal.output()}`);
    }
    try {
      const response = await fetch(`${portal.baseUrl}/api/healthz`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(200);
  }
  throw new Error(`The server did not become healthy:\n${portal.output()}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function stopPortal(portal: Portal): Promise<void> {
  if (portal.child.exitCode !== null || portal.child.signalCode !== null) return;
  const exited = new Promise((resolve) => portal.child.once('exit', resolve));
  portal.child.kill('SIGTERM');
  const timer = setTimeout(() => portal.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

describe.skipIf(!serverUrl)(
  'two server processes on one PostgreSQL database (needs TEST_DATABASE_URL: npm run test:pg)',
  () => {
    const databaseName = `farmcam_processes_${randomBytes(6).toString('hex')}`;
    let database: pg.Client;
    const portals: Portal[] = [];

    beforeAll(async () => {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`create database ${databaseName}`);
      await admin.end();
      const url = new URL(serverUrl as string);
      url.pathname = `/${databaseName}`;
      // Both at once on the empty database: the race this test is about.
      portals.push(
        ...(await Promise.all([startPortal(url.toString()), startPortal(url.toString())])),
      );
      database = new pg.Client({ connectionString: url.toString() });
      await database.connect();
    });

    afterAll(async () => {
      await Promise.all(portals.map(stopPortal));
      await database?.end();
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${databaseName} with (force)`);
      await admin.end();
    });

    it('both come up when they start at once on an empty database', async () => {
      await Promise.all(portals.map((portal) => waitUntilHealthy(portal, 50_000)));
    }, 60_000);

    it('refuses a session on the other process as soon as it is logged out', async () => {
      const [first, second] = portals as [Portal, Portal];
      const requestedAt = new Date();
      const requested = await fetch(`${first.baseUrl}/api/auth/request-login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: customerEmail }),
      });
      expect(requested.status).toBe(200);

      // The login mail may be sent by a queued job in either process: poll the outbox.
      let loginToken: string | undefined;
      for (let attempt = 0; attempt < 50 && !loginToken; attempt += 1) {
        const { rows } = await database.query<{ text: string }>(
          'select text from outbox where "to" = $1 and created_at >= $2 order by created_at desc limit 1',
          [customerEmail, new Date(requestedAt.getTime() - 2_000)],
        );
        loginToken = /\/login\/([A-Za-z0-9_-]+)/.exec(rows[0]?.text ?? '')?.[1];
        if (!loginToken) await sleep(200);
      }
      expect(loginToken, 'a login link in the outbox').toBeDefined();

      const exchanged = await fetch(
        `${first.baseUrl}/api/auth/login?token=${encodeURIComponent(loginToken as string)}`,
      );
      expect(exchanged.status).toBe(200);
      const { token } = (await exchanged.json()) as { token: string };
      const authorization = { authorization: `Bearer ${token}` };

      // The second process resolves the session and keeps it in its cache.
      for (let call = 0; call < 3; call += 1) {
        const userData = await fetch(`${second.baseUrl}/api/auth/user-data`, {
          headers: authorization,
        });
        expect(userData.status).toBe(200);
      }

      const loggedOut = await fetch(`${first.baseUrl}/api/auth/logout`, {
        method: 'POST',
        headers: authorization,
      });
      expect(loggedOut.status).toBe(204);
      const loggedOutAt = performance.now();

      let status = 200;
      while (status !== 401 && performance.now() - loggedOutAt < 1_000) {
        status = (await fetch(`${second.baseUrl}/api/auth/user-data`, { headers: authorization }))
          .status;
        if (status !== 401) await sleep(20);
      }
      expect(status, 'user-data on the other process within 1 s of the logout').toBe(401);
      expect(1_000).toBeLessThan(authPolicy.sessionCacheSeconds * 1000);
    }, 30_000);
  },
);
