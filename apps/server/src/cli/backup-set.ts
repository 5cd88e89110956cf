/**
 * What `npm run backup` writes and `npm run restore` reads (docs/decisions/074): a folder holding
 * manifest.json, the database (a pg_dump custom-format archive, or PGlite's data-directory
 * tarball) and, for STORAGE=fs, a copy of every clip file. The manifest records each table's row
 * count and checksum so a restore can prove it got back exactly what was saved.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export const manifestFileName = 'manifest.json';
export const postgresDumpFileName = 'database.dump';
export const pgliteDumpFileName = 'database.pglite.tar.gz';
export const clipsFolderName = 'clips';
/** Bumped when the layout changes in a way an older restore could not read. */
export const backupFormat = 1;

export interface TableChecksum {
  /** schema.name, e.g. public.customers or pgboss.job. */
  table: string;
  kind: 'table' | 'sequence';
  rows: number;
  checksum: string;
}

export interface ClipFile {
  key: string;
  sizeBytes: number;
  sha256: string;
}

export interface S3Object {
  key: string;
  sizeBytes: number;
  etag: string;
}

export interface BackupManifest {
  format: number;
  createdAt: string;
  appVersion: string;
  /** Migrations applied to the saved database; a restore refuses code that knows fewer. */
  migrationCount: number;
  database:
    | { kind: 'postgres'; file: string; serverVersion: string; pgDumpVersion: string }
    | { kind: 'pglite'; file: string; pgliteVersion: string };
  tables: TableChecksum[];
  /** True once backups record billing (decision 109): then no `billing` means none to fence. */
  billingChecked?: boolean;
  /** Where the local billing engine's ledger stood, when it had anything to charge. */
  billing?: LocalBillingMark;
  clips:
    | { kind: 'fs'; folder: string; files: ClipFile[] }
    | { kind: 's3'; bucket: string; objects: S3Object[] };
}

/** What a backup records of the local engine's billing (docs/decisions/109). */
export interface LocalBillingMark {
  engine: 'local';
  /** Subscriptions the engine would renew or dun (active, paused, past_due, overdue). */
  liveSubscriptions: number;
  /** Invoices the engine would retry. */
  openInvoices: number;
  /** The engine's time at the backup: real time plus the test clock's offset. */
  billingTime: string;
  /** The newest payment in the ledger (its high-water mark), or null. */
  lastPaymentAt: string | null;
}

/** Runs one SQL statement and returns its rows: the part of a driver the checksums need. */
export type RunQuery = (text: string) => Promise<Record<string, unknown>[]>;

const moduleFolder = path.dirname(fileURLToPath(import.meta.url));

/** The server package's version; "unknown" where the build was copied without package.json. */
export function appVersion(): string {
  try {
    const packageFile = path.join(moduleFolder, '..', '..', 'package.json');
    return (JSON.parse(fs.readFileSync(packageFile, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** Migrations this code knows: the journal drizzle applies from (copied beside the build too). */
export function knownMigrationCount(): number {
  const journal = JSON.parse(
    fs.readFileSync(
      path.join(moduleFolder, '..', 'db', 'migrations', 'meta', '_journal.json'),
      'utf8',
    ),
  ) as { entries: unknown[] };
  return journal.entries.length;
}

/**
 * Settings that make `row::text` come out the same on every connection (time zone, date and
 * float formats), so a checksum taken at backup equals one taken after restore.
 */
export const deterministicTextSettings = [
  "set timezone to 'UTC'",
  "set datestyle to 'ISO, MDY'",
  "set intervalstyle to 'postgres'",
  'set extra_float_digits to 1',
  "set bytea_output to 'hex'",
];

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Every ordinary table and sequence outside PostgreSQL's own schemas: the app's, drizzle's, pg-boss's. */
export async function listTables(
  query: RunQuery,
): Promise<{ schema: string; name: string; kind: 'table' | 'sequence' }[]> {
  const rows = await query(
    `select n.nspname as schema, c.relname as name, c.relkind as kind
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'S')
        and n.nspname not in ('pg_catalog', 'information_schema')
        and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'
      order by n.nspname, c.relname`,
  );
  return rows.map((row) => ({
    schema: String(row.schema),
    name: String(row.name),
    kind: row.kind === 'S' ? 'sequence' : 'table',
  }));
}

/**
 * Row count and checksum of every table (and each sequence's position). The checksum is a sum,
 * over rows, of each row's md5 read as two 64-bit numbers: it does not depend on row order, so
 * PostgreSQL reads each table once without sorting or holding it in memory (one sequential scan
 * per table: the cost at 100,000 cameras is a few minutes, docs/decisions/074). Run it inside the
 * transaction (snapshot) the dump reads, or on a database nothing else writes to.
 */
export async function checksumTables(query: RunQuery): Promise<TableChecksum[]> {
  const result: TableChecksum[] = [];
  for (const table of await listTables(query)) {
    const qualified = `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
    if (table.kind === 'sequence') {
      const [row] = await query(`select last_value::text as value, is_called from ${qualified}`);
      result.push({
        table: `${table.schema}.${table.name}`,
        kind: 'sequence',
        rows: 1,
        checksum: `${String(row?.value)}${row?.is_called ? '' : ' (not called)'}`,
      });
      continue;
    }
    const [row] = await query(
      `select count(*)::text as rows,
              coalesce(sum(('x' || substr(hash, 1, 16))::bit(64)::bigint::numeric), 0)::text as high,
              coalesce(sum(('x' || substr(hash, 17, 16))::bit(64)::bigint::numeric), 0)::text as low
         from (select md5(t::text) as hash from ${qualified} t) hashed`,
    );
    result.push({
      table: `${table.schema}.${table.name}`,
      kind: 'table',
      rows: Number(row?.rows),
      checksum: createHash('sha256')
        .update(`${String(row?.high)}:${String(row?.low)}`)
        .digest('hex')
        .slice(0, 32),
    });
  }
  return result;
}

/** Migrations recorded in the database (0 when it was never migrated). */
export async function appliedMigrationCount(query: RunQuery): Promise<number> {
  const [exists] = await query(
    `select to_regclass('drizzle.__drizzle_migrations') is not null as e`,
  );
  if (!exists?.e) return 0;
  const [row] = await query('select count(*)::int as count from drizzle.__drizzle_migrations');
  return Number(row?.count ?? 0);
}

/**
 * Tables that hold rows, other than drizzle's record of migrations: a freshly migrated database
 * counts as empty, one the portal has used does not.
 */
export async function tablesWithRows(query: RunQuery): Promise<string[]> {
  const holding: string[] = [];
  for (const table of await listTables(query)) {
    if (table.kind !== 'table' || table.schema === 'drizzle') continue;
    const [row] = await query(
      `select exists (select 1 from ${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}) as e`,
    );
    if (row?.e) holding.push(`${table.schema}.${table.name}`);
  }
  return holding;
}

/** Differences between the saved and the restored tables, one sentence each. */
export function compareTables(saved: TableChecksum[], restored: TableChecksum[]): string[] {
  const problems: string[] = [];
  const restoredByName = new Map(restored.map((table) => [table.table, table]));
  for (const table of saved) {
    const found = restoredByName.get(table.table);
    if (!found) problems.push(`${table.table} is missing after the restore`);
    else if (found.rows !== table.rows) {
      problems.push(`${table.table} has ${found.rows} rows; the backup had ${table.rows}`);
    } else if (found.checksum !== table.checksum) {
      problems.push(
        table.kind === 'sequence'
          ? `${table.table} stands at ${found.checksum}; the backup had ${table.checksum}`
          : `${table.table} has the same number of rows (${table.rows}) but different contents`,
      );
    }
  }
  const savedNames = new Set(saved.map((table) => table.table));
  for (const table of restored) {
    if (!savedNames.has(table.table) && table.rows > 0 && table.kind === 'table') {
      problems.push(`${table.table} holds ${table.rows} rows that are not in the backup`);
    }
  }
  return problems;
}

/** Clip files under `root` (relative keys with /), skipping a recorder's half-copied `.partial`. */
export async function listClipFiles(root: string): Promise<string[]> {
  const keys: string[] = [];
  const walk = async (folder: string, prefix: string) => {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const key = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path.join(folder, entry.name), key);
      else if (entry.isFile() && !entry.name.endsWith('.partial')) keys.push(key);
    }
  };
  await walk(root, '');
  return keys;
}

/**
 * Copies a file, hashing it on the way; writes beside the destination and renames, so a reader
 * (or a later run) never takes half a file for a whole one.
 */
export async function copyFileWithHash(
  source: string,
  destination: string,
): Promise<{ sizeBytes: number; sha256: string }> {
  await fs.promises.mkdir(path.dirname(destination), { recursive: true });
  const hash = createHash('sha256');
  let sizeBytes = 0;
  const partial = `${destination}.${process.pid}.partial`;
  await pipeline(
    fs.createReadStream(source),
    async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        sizeBytes += chunk.length;
        yield chunk;
      }
    },
    fs.createWriteStream(partial),
  );
  await fs.promises.rename(partial, destination);
  return { sizeBytes, sha256: hash.digest('hex') };
}

export async function hashFile(file: string): Promise<{ sizeBytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    sizeBytes += chunk.length;
  }
  return { sizeBytes, sha256: hash.digest('hex') };
}

/**
 * A connection string for PostgreSQL's tools with the password moved into a password file
 * (libpq's `passfile` parameter, readable by this user only), so it never shows in the process
 * list. Call `remove` when the tool has finished.
 */
export async function toolConnection(
  url: string,
): Promise<{ dbname: string; remove(): Promise<void> }> {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  if (!password) return { dbname: url, remove: async () => undefined };
  const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-pgpass-'));
  const passfile = path.join(folder, 'pgpass');
  const escaped = password.replaceAll('\\', '\\\\').replaceAll(':', '\\:');
  await fs.promises.writeFile(passfile, `*:*:*:*:${escaped}\n`, { mode: 0o600 });
  parsed.password = '';
  parsed.searchParams.set('passfile', passfile);
  return {
    dbname: parsed.toString(),
    remove: () => fs.promises.rm(folder, { recursive: true, force: true }),
  };
}

/** A backup or restore could not go on; its message says why in words an operator acts on. */
export class BackupError extends Error {}

/** Runs pg_dump, pg_restore and friends; rejects with their own error output. */
export function runTool(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new BackupError(
          error.code === 'ENOENT'
            ? `${command} is not installed. On Debian: sudo apt-get install postgresql-client (its major version must be at least the server's).`
            : `${command} could not be started: ${error.message}`,
        ),
      );
    });
    child.once('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new BackupError(`${command} failed (exit ${code}):\n${stderr.trim()}`));
    });
  });
}

/** The major version in `pg_dump --version`'s "pg_dump (PostgreSQL) 15.20 (Debian …)". */
export async function toolMajorVersion(command: string): Promise<{ major: number; text: string }> {
  const text = (await runTool(command, ['--version'])).trim();
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(text);
  if (!match) throw new BackupError(`Could not read ${command}'s version from "${text}".`);
  return { major: Number(match[1]), text };
}

/**
 * Runs `work` in one read-only, repeatable-read transaction on its own connection, with the
 * text settings the checksums need; `snapshot` names the transaction's snapshot so pg_dump can
 * read exactly the same data (`pg_dump --snapshot`).
 */
export async function withPostgresSnapshot<T>(
  url: string,
  work: (query: RunQuery, snapshot: string) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  // An error on this connection surfaces through the query that fails.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const { rows } = await client.query<{ snapshot: string }>(
      'select pg_export_snapshot() as snapshot',
    );
    for (const setting of deterministicTextSettings) {
      await client.query(setting.replace(/^set /, 'set local '));
    }
    const result = await work(
      async (text) => (await client.query(text)).rows as Record<string, unknown>[],
      rows[0]!.snapshot,
    );
    await client.query('commit');
    return result;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The PostgreSQL server's major version and full version text. */
export async function postgresServerVersion(
  query: RunQuery,
): Promise<{ major: number; text: string }> {
  const [row] = await query(
    "select current_setting('server_version_num')::int as number, current_setting('server_version') as text",
  );
  return { major: Math.floor(Number(row?.number) / 10000), text: String(row?.text) };
}

/** Opens the embedded database's folder as it is (no migrations), for reading or checking. */
export async function openPgliteFolder(
  folder: string,
  options: { loadDataDir?: Blob } = {},
): Promise<{ client: PGlite; query: RunQuery }> {
  const client = await PGlite.create(folder, options);
  for (const setting of deterministicTextSettings) await client.exec(setting);
  return {
    client,
    query: async (text) => (await client.query<Record<string, unknown>>(text)).rows,
  };
}

/** Whether `folder` holds a PostgreSQL data directory (PGlite writes PG_VERSION first). */
export function isDatabaseFolder(folder: string): boolean {
  return fs.existsSync(path.join(folder, 'PG_VERSION'));
}
