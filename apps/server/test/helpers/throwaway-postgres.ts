/**
 * A PostgreSQL server of the test's own (initdb into a temporary folder, `postgres` on a free
 * port), so a test can stop the database for real under running portal processes and start it
 * again, without touching the machine's shared cluster other engineers and suites use.
 *
 * Binaries: `initdb` and `postgres` on PATH, else the newest /usr/lib/postgresql/N/bin (Debian's
 * postgresql packages). As root (CI, the development machine), the server runs as the `postgres`
 * user, which initdb requires.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './server-processes.ts';

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres (trust authentication, local only). */
  url: string;
  port: number;
  /** Fast shutdown (SIGINT): sessions are terminated (57P01), then connections are refused. */
  stop(): Promise<void>;
  /** Starts the server again on the same data and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (if running) and deletes its data. */
  destroy(): Promise<void>;
}

function which(binary: string): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(folder, binary);
    if (fs.existsSync(candidate)) return candidate;
  }
  const debian = '/usr/lib/postgresql';
  if (!fs.existsSync(debian)) return undefined;
  const versions = fs
    .readdirSync(debian)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const candidate = path.join(debian, version, 'bin', binary);
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The PostgreSQL binaries a throwaway server needs, or undefined when they are not installed. */
export function postgresBinaries(): { initdb: string; postgres: string } | undefined {
  const initdb = which('initdb');
  const postgres = which('postgres');
  return initdb && postgres ? { initdb, postgres } : undefined;
}

/** As root, the ids of the `postgres` user (initdb and the server refuse to run as root). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const binaries = postgresBinaries();
  if (!binaries) throw new Error('initdb and postgres are not installed');
  const user = serverUser();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-throwaway-pg-'));
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  if (user) {
    fs.chownSync(root, user.uid, user.gid);
    fs.chownSync(dataDir, user.uid, user.gid);
  }
  execFileSync(
    binaries.initdb,
    ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'],
    { stdio: 'pipe', ...(user ?? {}) },
  );
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let server: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  async function start(): Promise<void> {
    const child = spawn(
      binaries!.postgres,
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-k',
        root,
        '-c',
        'listen_addresses=127.0.0.1',
        // A scratch server: durability is not the point, speed on a shared machine is.
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=100',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], ...(user ?? {}) },
    );
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server = child;
    exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = performance.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`postgres exited at start:\n${output}`);
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('select 1');
        await client.end();
        return;
      } catch {
        await client.end().catch(() => undefined);
        if (performance.now() > deadline) throw new Error(`postgres did not start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  async function stop(): Promise<void> {
    if (!server || server.exitCode !== null) return;
    server.kill('SIGINT');
    await exited;
  }

  await start();
  return {
    url,
    port,
    stop,
    start,
    async destroy() {
      await stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
