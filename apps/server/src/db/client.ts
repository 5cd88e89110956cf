/**
 * Opens the database: PGlite in DATA_DIR (default), an in-memory PGlite (tests), or a PostgreSQL
 * server (DATABASE_URL). Applies migrations. Drizzle sees one schema and one SQL dialect on all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Executor } from '@farmcam/db';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePostgres } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import * as schema from './schema.ts';

export type { Database, Executor } from '@farmcam/db';

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Raw SQL for pg-boss. With no values, several statements may be sent at once. */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /** Connection string for libraries that open their own pool (PostgreSQL only). */
  connectionString: string | undefined;
  /**
   * LISTEN on a channel (a plain identifier). Resolves to a stop function once listening. If the
   * listening connection drops, `onGap(false)` says notifications may be missed from now on; it
   * reconnects by itself and then calls `onGap(true)`.
   */
  listen(channel: string, handlers: NotificationHandlers): Promise<() => Promise<void>>;
  /**
   * Runs `work` while holding a PostgreSQL advisory lock (one of advisoryLockKeys) on a dedicated
   * connection, so processes sharing the database do it one at a time. PGlite is one process:
   * it just runs `work`.
   */
  withAdvisoryLock<T>(key: string, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface NotificationHandlers {
  onNotification(payload: string): void;
  onGap(isListening: boolean): void;
}

export type DatabaseLocation =
  /**
   * In memory (tests). `template` is a data directory PGlite dumped after migrating (tests make
   * one per run, test/helpers/pglite-template.ts): loading it skips initdb and the migrations.
   */
  | { kind: 'memory'; template?: Blob }
  | { kind: 'directory'; dataDir: string }
  | { kind: 'postgres'; url: string };

const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export class DatabaseLockedError extends Error {}

/** How long the app's pool waits to connect (or for a free connection) before failing. */
export const connectTimeoutMs = 5_000;

/**
 * PGlite is single-process: two processes on one directory silently lose writes. A lock file
 * holding our pid keeps a second process out; a stale lock (its process gone) is taken over.
 * Exported for the backup and restore commands, which read and replace the directory directly.
 */
export function acquireDirectoryLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'portal.lock');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(lockPath, 'utf8') === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(lockPath, 'utf8'));
      if (holder && holder !== process.pid && isProcessAlive(holder)) {
        throw new DatabaseLockedError(
          `Another Farmcam Portal process (pid ${holder}) is using the embedded database in ${dataDir}. ` +
            'Stop it first, or set DATA_DIR to another folder (or DATABASE_URL for a shared PostgreSQL).',
        );
      }
      fs.unlinkSync(lockPath);
    }
  }
  throw new DatabaseLockedError(`Could not lock ${dataDir}`);
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function openDatabase(
  location: DatabaseLocation,
  options: {
    /** An idle pooled connection failed (e.g. the server restarted); the pool replaces it. */
    onConnectionError?: (error: Error) => void;
  } = {},
): Promise<DatabaseHandle> {
  if (location.kind === 'postgres') {
    // A connection that cannot be made within 5 s fails (node-postgres waits for ever by
    // default): a request answers 503 in time, not after the client's own time-out (decision 102).
    const pool = new pg.Pool({
      connectionString: location.url,
      max: 10,
      connectionTimeoutMillis: connectTimeoutMs,
    });
    // Without a listener, an idle connection's error would crash the process.
    pool.on('error', (error) => options.onConnectionError?.(error));
    const db = drizzleNodePostgres(pool, { schema }) as unknown as Database;
    try {
      await withPostgresAdvisoryLock(location.url, advisoryLockKeys.migrations, (client) =>
        migrateNodePostgres(drizzleNodePostgres(client, { schema }), { migrationsFolder }),
      );
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return {
      db,
      kind: 'postgres',
      connectionString: location.url,
      executeSql: async (text, values) => {
        const result = await pool.query(text, values as unknown[]);
        return { rows: result.rows };
      },
      listen: (channel, handlers) => listenOnPostgres(location.url, channel, handlers),
      withAdvisoryLock: (key, work) => withPostgresAdvisoryLock(location.url, key, () => work()),
      close: () => pool.end(),
    };
  }

  const release =
    location.kind === 'directory' ? acquireDirectoryLock(location.dataDir) : () => undefined;
  try {
    const client =
      location.kind === 'directory'
        ? await PGlite.create(path.join(location.dataDir, 'pglite'))
        : await PGlite.create(location.template ? { loadDataDir: location.template } : {});
    const db = drizzlePglite(client, { schema }) as unknown as Database;
    await migratePglite(db as never, { migrationsFolder });
    return {
      db,
      kind: 'pglite',
      connectionString: undefined,
      executeSql: async (text, values) => {
        if (values && values.length > 0) {
          const result = await client.query(text, values as unknown[]);
          return { rows: result.rows };
        }
        const results = await client.exec(text);
        return { rows: results.at(-1)?.rows ?? [] };
      },
      // PGlite is one session: a NOTIFY is delivered before the statement's promise resolves.
      listen: async (channel, handlers) => {
        assertChannelName(channel);
        const unlisten = await client.listen(channel, handlers.onNotification);
        return () => unlisten();
      },
      withAdvisoryLock: (_key, work) => work(),
      close: async () => {
        await client.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * Keys of the advisory locks that serialise start-up work between processes sharing one
 * database (docs/decisions/065): "farmcam" in ASCII, then counting up.
 */
export const advisoryLockKeys = {
  /** Migrations: N processes starting at once on an empty database migrate one at a time. */
  migrations: '28817591713882477',
  /** Demo data: seeded by the first process only, the others wait and find it done. */
  demoSeed: '28817591713882478',
  /** pg-boss set-up: its concurrent createQueue calls deadlock on the job table's partitions. */
  jobQueues: '28817591713882479',
  /** The billing cycle's replay of billing time (docs/decisions/025): one process at a time. */
  billingCycle: '28817591713882480',
} as const;

/**
 * Holds a session-level advisory lock on a dedicated connection (not a pooled one, which could
 * be handed to someone else) while `work` runs. If the process dies, the lock goes with the
 * connection, so a crashed start never blocks the next.
 */
async function withPostgresAdvisoryLock<T>(
  url: string,
  key: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  // An error on this short-lived connection surfaces through the query that fails.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [key]);
    const result = await work(client);
    await client.query('select pg_advisory_unlock($1)', [key]);
    return result;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function assertChannelName(channel: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`Bad channel name: ${channel}`);
}

/** A dedicated connection for LISTEN (pooled ones come and go), reconnecting after a drop. */
async function listenOnPostgres(
  url: string,
  channel: string,
  handlers: NotificationHandlers,
): Promise<() => Promise<void>> {
  assertChannelName(channel);
  let client: pg.Client | undefined;
  let isStopped = false;
  let retryTimer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotification(message.payload ?? '');
    });
    next.on('error', () => reconnectLater(next));
    next.on('end', () => reconnectLater(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    if (isStopped) await next.end().catch(() => undefined);
    else client = next;
  };
  const reconnectLater = (failed: pg.Client) => {
    if (isStopped || client !== failed) return;
    client = undefined;
    handlers.onGap(false);
    failed.end().catch(() => undefined);
    retryTimer = setTimeout(function retry() {
      if (isStopped) return;
      connect().then(
        () => handlers.onGap(true),
        () => {
          retryTimer = setTimeout(retry, 1000);
        },
      );
    }, 1000);
  };

  await connect();
  return async () => {
    isStopped = true;
    clearTimeout(retryTimer);
    await client?.end().catch(() => undefined);
  };
}

/** Runs raw SQL and returns its rows: the one place the two drivers' result shapes meet. */
export async function queryRows<Row>(executor: Executor, query: SQL): Promise<Row[]> {
  const result = (await executor.execute(query)) as unknown as { rows: Row[] };
  return result.rows;
}
