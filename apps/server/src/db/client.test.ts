import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { startJobs } from '../jobs/job-runner.ts';
import {
  DatabaseLockedError,
  advisoryLockKeys,
  openDatabase,
  type DatabaseHandle,
} from './client.ts';

const serverEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../server.ts');
const directories: string[] = [];
const temporaryDirectory = () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-lock-'));
  directories.push(directory);
  return directory;
};
afterEach(() => {
  for (const directory of directories.splice(0))
    fs.rmSync(directory, { recursive: true, force: true });
});

describe('embedded database lock', () => {
  it('refuses a data directory locked by a live process and takes over a stale lock', async () => {
    const dataDir = temporaryDirectory();
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      fs.writeFileSync(path.join(dataDir, 'portal.lock'), String(sleeper.pid));
      await expect(openDatabase({ kind: 'directory', dataDir })).rejects.toBeInstanceOf(
        DatabaseLockedError,
      );
    } finally {
      sleeper.kill();
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
    const handle = await openDatabase({ kind: 'directory', dataDir });
    expect(fs.readFileSync(path.join(dataDir, 'portal.lock'), 'utf8')).toBe(String(process.pid));
    await handle.close();
    expect(fs.existsSync(path.join(dataDir, 'portal.lock'))).toBe(false);
    // Each step waits on a state (the rejection, the exit, the open); the time-out only bounds
    // a failure. Opening and migrating the embedded database twice took 48 s on a busy machine
    // (load average 20), past the 30 s default.
  }, 120_000);

  it('makes a second server process on the same directory exit with a clear message', async () => {
    const dataDir = temporaryDirectory();
    const handle = await openDatabase({ kind: 'directory', dataDir });
    const child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' },
    });
    // Also when the test fails or times out: no server is left running on the directory.
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    // The refusal is a JSON line on stdout where logs are JSON (tests, production), a plain
    // line on stderr for a person (decision 106): either way it says why.
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(exitCode, output).toBe(1);
      expect(output).toMatch(
        /Another Farmcam Portal process \(pid \d+\) is using the embedded database/,
      );
    } finally {
      await handle.close();
    }
    // The wait is for the child's exit (a state); loading server.ts through tsx took 37 s on a
    // busy machine, past the 30 s default: the time-out only bounds a failure.
  }, 120_000);
});

const serverUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!serverUrl)(
  'several processes on one empty PostgreSQL database (needs TEST_DATABASE_URL: npm run test:pg)',
  () => {
    /** A fresh empty database; each handle opened on it is a process's pool of its own. */
    async function withEmptyDatabase(test: (url: string) => Promise<void>): Promise<void> {
      const name = `farmcam_start_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`create database ${name}`);
      try {
        const url = new URL(serverUrl as string);
        url.pathname = `/${name}`;
        await test(url.toString());
      } finally {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    }

    it('migrates once when several start at once, and every one comes up', async () => {
      await withEmptyDatabase(async (url) => {
        const handles = await Promise.all(
          Array.from({ length: 4 }, () => openDatabase({ kind: 'postgres', url })),
        );
        try {
          const { rows } = await handles[0]!.executeSql(
            'select count(*)::int as count from drizzle.__drizzle_migrations',
          );
          const migrations = fs
            .readdirSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'))
            .filter((file) => file.endsWith('.sql'));
          expect(rows).toEqual([{ count: migrations.length }]);
        } finally {
          await Promise.all(handles.map((handle) => handle.close()));
        }
      });
    });

    it('sets the job queues up when several start at once', async () => {
      await withEmptyDatabase(async (url) => {
        const handles: DatabaseHandle[] = [];
        for (let index = 0; index < 3; index += 1) {
          handles.push(await openDatabase({ kind: 'postgres', url }));
        }
        const definitions = ['alpha', 'beta', 'gamma', 'delta'].map((name) => ({
          name,
          payload: z.object({}),
          handle: async () => undefined,
        }));
        const errors: Error[] = [];
        try {
          const runners = await Promise.all(
            handles.map((handle, index) =>
              // Each in its own order: unserialised, crossing createQueue calls deadlock.
              startJobs(handle, index % 2 ? [...definitions].reverse() : definitions, {
                onError: (error) => errors.push(error),
              }),
            ),
          );
          await Promise.all(runners.map((runner) => runner.stop()));
          const { rows } = await handles[0]!.executeSql(
            "select name from pgboss.queue where name not like '\\_\\_pgboss%' order by name",
          );
          expect(rows).toEqual(['alpha', 'beta', 'delta', 'gamma'].map((name) => ({ name })));
          expect(errors).toEqual([]);
        } finally {
          await Promise.all(handles.map((handle) => handle.close()));
        }
      });
    }, 60_000);

    it('runs work under an advisory lock one process at a time', async () => {
      await withEmptyDatabase(async (url) => {
        const handles = [
          await openDatabase({ kind: 'postgres', url }),
          await openDatabase({ kind: 'postgres', url }),
        ];
        try {
          const events: string[] = [];
          const work = (name: string) => async () => {
            events.push(`${name} in`);
            await new Promise((resolve) => setTimeout(resolve, 50));
            events.push(`${name} out`);
          };
          await Promise.all([
            handles[0]!.withAdvisoryLock(advisoryLockKeys.jobQueues, work('a')),
            handles[1]!.withAdvisoryLock(advisoryLockKeys.jobQueues, work('b')),
          ]);
          expect([
            ['a in', 'a out', 'b in', 'b out'],
            ['b in', 'b out', 'a in', 'a out'],
          ]).toContainEqual(events);
        } finally {
          await Promise.all(handles.map((handle) => handle.close()));
        }
      });
    });
  },
);
