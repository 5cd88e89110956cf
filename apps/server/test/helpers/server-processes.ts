/**
 * Real server processes (`server.ts` under tsx) on a scratch PostgreSQL database, for the tests
 * that prove what only several processes can show: cold starts racing on one database
 * (docs/decisions/065), the roles (070), and several API and worker instances with crashes (076).
 *
 * Each process runs in its own process group, so a kill takes its children with it (the local
 * camera's GStreamer server, ffmpeg), as a lost container or machine would, and nothing is left
 * holding a port after the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const serverEntry = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'src',
  'server.ts',
);

export interface ServerProcess {
  /** What the test calls it (also its PostgreSQL application_name). */
  name: string;
  baseUrl: string;
  child: ChildProcess;
  dataDir: string;
  /** Everything it wrote on stdout and stderr so far. */
  output: () => string;
  /** Resolves with the exit code (null after a signal) once it has exited. */
  exited: Promise<number | null>;
}

/** A port nothing listens on right now: bind port 0, read it, let it go. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A new, empty database on the TEST_DATABASE_URL server; `drop` removes it (forcefully). */
export async function createScratchDatabase(
  serverUrl: string,
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

/** The database URL with an application_name, so pg_stat_activity tells the processes apart. */
export function withApplicationName(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', name);
  return url.toString();
}

export interface StartOptions {
  name?: string;
  /** Environment on top of the defaults (development, outbox mail, demo data, warn JSON logs). */
  environment?: NodeJS.ProcessEnv;
  /** Kept across a restart (its temporary files are swept at start); a fresh one otherwise. */
  dataDir?: string;
  port?: number;
}

/**
 * Starts `server.ts` on the database. Without `options.dataDir` the process gets a fresh data
 * directory, deleted when it exits; a given one is left for the caller.
 */
export async function startServerProcess(
  databaseUrl: string,
  options: StartOptions = {},
): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const isOwnDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-process-'));
  const name = options.name ?? `farmcam-${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: baseUrl,
    LOG_LEVEL: 'warn',
    // JSON, as in production, whatever development's default (decision 106).
    LOG_FORMAT: 'json',
    MAIL: 'outbox',
    DEMO_DATA: 'true',
    ...options.environment,
  };
  delete env.TEST_DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a kill reaches its GStreamer and ffmpeg children too.
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      if (isOwnDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
      resolve(code);
    }),
  );
  return { name, baseUrl, child, dataDir, output: () => output, exited };
}

/**
 * How long a server process may take to come up: tsx compiles the server as it starts, and in CI
 * four test files share two cores while other processes start too (the API took over 40 s there
 * once). One budget for every start-up wait, so a slower machine changes one number, not one per
 * file; a failure still fails, the deadline only bounds how long it takes to say so. A test that
 * starts a process inside it gives itself this much on top of its own work (a literal, which the
 * formatter keeps beside the test; decision 177).
 */
export const START_UP_MS = 150_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const hasExited = (server: ServerProcess) =>
  server.child.exitCode !== null || server.child.signalCode !== null;

/**
 * Polls until `probe` gives a value other than undefined/false; the deadline only bounds a
 * failure. Throws at once if a watched process exits, with its output.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  options: { timeoutMs: number; watch?: ServerProcess[]; intervalMs?: number },
): Promise<T> {
  const deadline = performance.now() + options.timeoutMs;
  let lastError: unknown;
  while (performance.now() < deadline) {
    for (const server of options.watch ?? []) {
      if (hasExited(server)) {
        throw new Error(
          `${server.name} exited (${server.child.exitCode ?? server.child.signalCode}) while waiting for ${what}:\n${server.output()}`,
        );
      }
    }
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(options.intervalMs ?? 200);
  }
  const outputs = (options.watch ?? []).map((server) => `--- ${server.name}:\n${server.output()}`);
  throw new Error(
    `${what}: not within ${options.timeoutMs} ms${lastError ? ` (last error: ${String(lastError)})` : ''}\n${outputs.join('\n')}`,
  );
}

/** /api/readyz answers 200: database migrated, job queue there (decision 070). */
export async function waitUntilReady(
  server: ServerProcess,
  timeoutMs = START_UP_MS,
): Promise<void> {
  await waitFor(
    `${server.name} ready`,
    async () => (await fetch(`${server.baseUrl}/api/readyz`)).status === 200,
    { timeoutMs, watch: [server] },
  );
}

/** /api/healthz answers 200 (the process is up; says nothing of the database). */
export async function waitUntilHealthy(
  server: ServerProcess,
  timeoutMs = START_UP_MS,
): Promise<void> {
  await waitFor(
    `${server.name} healthy`,
    async () => (await fetch(`${server.baseUrl}/api/healthz`)).ok,
    { timeoutMs, watch: [server] },
  );
}

/** kill -9 of the whole process group: the process and its children die at once. */
export async function killServerProcess(server: ServerProcess): Promise<void> {
  if (hasExited(server)) return;
  try {
    process.kill(-(server.child.pid as number), 'SIGKILL');
  } catch {
    // Already gone.
  }
  await server.exited;
}

/** SIGTERM (a graceful shutdown), then the group's SIGKILL if it has not exited in time. */
export async function stopServerProcess(
  server: ServerProcess | undefined,
  timeoutMs = 15_000,
): Promise<void> {
  if (!server || hasExited(server)) {
    // Its children may outlive a process that died (or was killed) alone.
    if (server?.child.pid) killGroupQuietly(server.child.pid);
    return;
  }
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => killGroupQuietly(server.child.pid as number), timeoutMs);
  await server.exited;
  clearTimeout(timer);
  killGroupQuietly(server.child.pid as number);
}

function killGroupQuietly(pid: number) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // No such group left: nothing to do.
  }
}
