/**
 * `npm run restore -- <backup set> [--force]`: puts a backup set (docs/decisions/074) back into
 * the configured database and clip storage, then proves it: every table's row count and checksum
 * and every clip file's hash must equal the manifest's. The program is src/restore.ts; this is
 * its testable body. The portal must be stopped (every process, API and workers) while it runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { acquireDirectoryLock, DatabaseLockedError } from '../db/client.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { compareObjects, listBucketObjects, type S3Settings } from './backup-s3.ts';
import {
  backupFormat,
  BackupError,
  checksumTables,
  compareTables,
  copyFileWithHash,
  isDatabaseFolder,
  knownMigrationCount,
  manifestFileName,
  openPgliteFolder,
  runTool,
  tablesWithRows,
  toolConnection,
  toolMajorVersion,
  withPostgresSnapshot,
  type BackupManifest,
  type RunQuery,
  type TableChecksum,
} from './backup-set.ts';
import { configForCommand, parseCommandLine, type CommandOutput } from './command.ts';
import {
  checkLocalBilling,
  readBillingState,
  writeRestoreFence,
  type BillingState,
} from './local-billing-restore.ts';
import type { Config } from '../config/config.ts';

const usage = `Usage: npm run restore -- <backup folder> [--force] [--fence-billing]

Restores a set written by npm run backup into the configured database (DATABASE_URL, or the
embedded one in DATA_DIR) and clip storage, then checks every table and clip against the set's
manifest. Stop the portal first (every API and worker process).

It refuses a database that already holds data unless --force (or --wipe) is given, which first
deletes everything in it. The embedded database's old folder is kept beside it, renamed.

With BILLING=local it refuses a backup holding the local billing engine's subscriptions or
unpaid invoices unless --fence-billing is given: the engine then charges nothing automatically
that fell due before the restore, so nothing charged after the backup is charged twice
(docs/decisions/109).`;

export interface RestoreDependencies {
  clock?: Clock;
}

/** Runs the restore; returns the exit code (1 when it failed or the check found differences). */
export async function runRestoreCommand(
  argv: string[],
  print: CommandOutput,
  environment?: Record<string, string | undefined>,
  dependencies: RestoreDependencies = {},
): Promise<number> {
  const parsed = parseCommandLine(
    argv,
    print,
    usage,
    { force: { type: 'boolean' }, wipe: { type: 'boolean' }, 'fence-billing': { type: 'boolean' } },
    { allowPositionals: true },
  );
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length !== 1) {
    print.error(usage);
    return 2;
  }
  const setFolder = path.resolve(parsed.positionals[0]!);
  const isForced = Boolean(parsed.values.force || parsed.values.wipe);
  const isFenceAsked = Boolean(parsed.values['fence-billing']);

  const config = configForCommand(print, environment);
  if (!config) return 1;

  try {
    const manifest = readManifest(setFolder);
    checkCompatible(manifest, config);
    checkLocalBilling(manifest, config.billing.mode, isFenceAsked);
    const clock = dependencies.clock ?? systemClock;

    const { tables: restoredTables, replaced } = config.databaseUrl
      ? await restorePostgres(config.databaseUrl, setFolder, manifest, isForced, clock)
      : await restorePglite(config.dataDir, setFolder, manifest, isForced, clock, print);
    const problems = compareTables(manifest.tables, restoredTables);

    if (manifest.clips.kind === 'fs') {
      problems.push(
        ...(await restoreClipFiles(
          path.join(setFolder, manifest.clips.folder),
          path.join(config.dataDir, 'clips'),
          manifest.clips.files,
        )),
      );
    } else {
      const current = await listBucketObjects(config.storage as S3Settings);
      problems.push(...compareObjects(manifest.clips.objects, current));
    }

    if (problems.length > 0) {
      print.error(
        `The restore does not match the backup (${problems.length} difference${problems.length === 1 ? '' : 's'}):`,
      );
      for (const problem of problems.slice(0, 50)) print.error(`  - ${problem}`);
      if (problems.length > 50) print.error(`  … and ${problems.length - 50} more`);
      print.error(
        'Do not start the portal on this data; see docs/operations.md, "Backups and restore".',
      );
      return 1;
    }
    const rows = manifest.tables
      .filter((table) => table.kind === 'table')
      .reduce((sum, table) => sum + table.rows, 0);
    if (config.billing.mode === 'local' && isFenceAsked) {
      // After the check: the fence is the one row the restore adds to what the backup held.
      const fenced = await withRestoredDatabase(config, (query) =>
        writeRestoreFence(query, { manifest, replaced, realNow: clock.now() }),
      );
      print.out(
        `Billing fence at ${fenced.until.toISOString()}: the local billing engine charges nothing automatically that fell due before it. ` +
          `${fenced.restored?.openInvoices ?? 0} unpaid invoice(s) will not be retried (they can still be paid on their page), and renewals due before it roll on unbilled. ` +
          `Check them against the charges made since the backup of ${manifest.createdAt} (docs/decisions/109).`,
      );
    }
    const clipCount =
      manifest.clips.kind === 'fs' ? manifest.clips.files.length : manifest.clips.objects.length;
    print.out(
      `Restored the backup of ${manifest.createdAt}: ${manifest.tables.length} tables and sequences (${rows} rows) and ${clipCount} clip${clipCount === 1 ? '' : 's'}, each checked against the manifest.`,
    );
    print.out('Start the portal; it applies any newer migrations at start.');
    return 0;
  } catch (error) {
    if (error instanceof BackupError || error instanceof DatabaseLockedError) {
      print.error(error.message);
      return 1;
    }
    throw error;
  }
}

function readManifest(setFolder: string): BackupManifest {
  let text: string;
  try {
    text = fs.readFileSync(path.join(setFolder, manifestFileName), 'utf8');
  } catch {
    throw new BackupError(
      `${setFolder} is not a backup set: it has no ${manifestFileName}. Give the farmcam-backup-… folder npm run backup wrote.`,
    );
  }
  const manifest = JSON.parse(text) as BackupManifest;
  if (manifest.format !== backupFormat) {
    throw new BackupError(
      `${setFolder} was written in backup format ${manifest.format}; this portal reads format ${backupFormat}.`,
    );
  }
  return manifest;
}

/** Refuses what would leave the portal unable to start or pointing at the wrong place. */
function checkCompatible(manifest: BackupManifest, config: Config): void {
  const target = config.databaseUrl ? 'postgres' : 'pglite';
  if (manifest.database.kind !== target) {
    throw new BackupError(
      manifest.database.kind === 'postgres'
        ? 'This backup is of a PostgreSQL database; set DATABASE_URL to the PostgreSQL database to restore it into.'
        : 'This backup is of the embedded database; unset DATABASE_URL to restore it into DATA_DIR (moving data from the embedded database to PostgreSQL is not a restore).',
    );
  }
  if (manifest.migrationCount > knownMigrationCount()) {
    throw new BackupError(
      `This backup was made by a newer portal (${manifest.migrationCount} database migrations; this one knows ${knownMigrationCount()}). Restore it with that version.`,
    );
  }
  if (manifest.clips.kind === 'fs' && config.storage.mode === 's3') {
    throw new BackupError(
      'This backup holds clip files, but this portal keeps clips in S3 (STORAGE=s3). Restore with STORAGE=fs, or upload the files to the bucket yourself.',
    );
  }
  if (manifest.clips.kind === 's3' && config.storage.mode !== 's3') {
    throw new BackupError(
      `This backup's clips are in the S3 bucket ${manifest.clips.bucket}; set STORAGE=s3 and S3_BUCKET to check them.`,
    );
  }
}

function refuseData(holding: string[]): never {
  const named = holding.slice(0, 5).join(', ') + (holding.length > 5 ? ', …' : '');
  throw new BackupError(
    `The database already holds data (${named}). Restoring would replace it: run again with --force to delete it first, or restore into an empty database.`,
  );
}

async function restorePostgres(
  url: string,
  setFolder: string,
  manifest: BackupManifest,
  isForced: boolean,
  clock: Clock,
): Promise<RestoredDatabase> {
  if (manifest.database.kind !== 'postgres') throw new Error('not a PostgreSQL backup');
  const pgRestore = await toolMajorVersion('pg_restore');
  const dumpMajor = Number(/\(PostgreSQL\)\s+(\d+)/.exec(manifest.database.pgDumpVersion)?.[1]);
  if (pgRestore.major < dumpMajor) {
    throw new BackupError(
      `pg_restore is version ${pgRestore.major} but the backup was written by pg_dump ${dumpMajor}; install postgresql-client-${dumpMajor} or newer.`,
    );
  }
  const { holding, replaced } = await withPostgresSnapshot(url, async (query) => ({
    holding: await tablesWithRows(query),
    // Read before it is wiped: how far its billing got (decision 109).
    replaced: await readBillingState(query, clock.now()),
  }));
  if (holding.length > 0 && !isForced) refuseData(holding);
  if (holding.length > 0 || isForced) await wipePostgres(url);
  const connection = await toolConnection(url);
  try {
    // One transaction: a failed restore leaves the (now empty) database as it was, not half-filled.
    await runTool('pg_restore', [
      '--clean',
      '--if-exists',
      '--no-owner',
      '--single-transaction',
      `--dbname=${connection.dbname}`,
      path.join(setFolder, manifest.database.file),
    ]);
  } finally {
    await connection.remove();
  }
  return { tables: await withPostgresSnapshot(url, (query) => checksumTables(query)), replaced };
}

interface RestoredDatabase {
  tables: TableChecksum[];
  /** The billing state of the database the restore replaced, when there was one. */
  replaced: BillingState | null;
}

/** Runs `work` on the restored database (PostgreSQL, or the embedded one in DATA_DIR). */
async function withRestoredDatabase<T>(
  config: Config,
  work: (query: RunQuery) => Promise<T>,
): Promise<T> {
  if (config.databaseUrl) return withWritableConnection(config.databaseUrl, work);
  const release = acquireDirectoryLock(config.dataDir);
  try {
    const { client, query } = await openPgliteFolder(path.join(config.dataDir, 'pglite'));
    try {
      return await work(query);
    } finally {
      await client.close();
    }
  } finally {
    release();
  }
}

/**
 * Deletes everything the portal keeps in the database: its own schemas (drizzle's, pg-boss's)
 * and every object in public, which PostgreSQL owns and pg_dump does not recreate. Extensions'
 * own objects are left to their extensions.
 */
async function wipePostgres(url: string): Promise<void> {
  await withWritableConnection(url, (query) =>
    query(`do $$
      declare item record;
      begin
        for item in select nspname from pg_namespace
                     where nspname not in ('public', 'information_schema') and nspname not like 'pg\\_%'
        loop
          execute format('drop schema %I cascade', item.nspname);
        end loop;
        for item in select c.relname, c.relkind from pg_class c
                     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
                       and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('e', 'a', 'i'))
        loop
          execute format(
            case item.relkind when 'v' then 'drop view if exists public.%I cascade'
                              when 'm' then 'drop materialized view if exists public.%I cascade'
                              when 'f' then 'drop foreign table if exists public.%I cascade'
                              when 'S' then 'drop sequence if exists public.%I cascade'
                              else 'drop table if exists public.%I cascade' end,
            item.relname);
        end loop;
        for item in select p.oid::regprocedure as routine from pg_proc p
                     where p.pronamespace = 'public'::regnamespace
                       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
        loop
          execute format('drop routine if exists %s cascade', item.routine);
        end loop;
        for item in select t.oid::regtype as type from pg_type t
                     where t.typnamespace = 'public'::regnamespace and t.typtype in ('e', 'd', 'c', 'r')
                       and (t.typtype <> 'c' or (select relkind from pg_class where oid = t.typrelid) = 'c')
                       and not exists (select 1 from pg_depend d where d.objid = t.oid and d.deptype = 'e')
        loop
          execute format('drop type if exists %s cascade', item.type);
        end loop;
      end $$`),
  );
}

async function withWritableConnection<T>(
  url: string,
  work: (query: RunQuery) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(async (text) => (await client.query(text)).rows as Record<string, unknown>[]);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function restorePglite(
  dataDir: string,
  setFolder: string,
  manifest: BackupManifest,
  isForced: boolean,
  clock: Clock,
  print: CommandOutput,
): Promise<RestoredDatabase> {
  const folder = path.join(dataDir, 'pglite');
  // Throws DatabaseLockedError ("stop it first") while a server uses DATA_DIR.
  const release = acquireDirectoryLock(dataDir);
  try {
    let replaced: BillingState | null = null;
    if (isDatabaseFolder(folder)) {
      const existing = await openPgliteFolder(folder);
      let holding: string[];
      try {
        holding = await tablesWithRows(existing.query);
        replaced = await readBillingState(existing.query, clock.now());
      } finally {
        await existing.client.close();
      }
      if (holding.length > 0 && !isForced) refuseData(holding);
    }
    if (fs.existsSync(folder)) {
      // Kept, not deleted: the way back if this restore was a mistake.
      const keptAs = `${folder}.before-restore-${clock
        .now()
        .toISOString()
        .replaceAll(':', '')
        .replace(/\.\d+Z$/, 'Z')}`;
      await fs.promises.rename(folder, keptAs);
      print.out(`The embedded database that was there is kept in ${keptAs}.`);
    }
    const dump = await fs.promises.readFile(path.join(setFolder, manifest.database.file));
    const restored = await openPgliteFolder(folder, { loadDataDir: new Blob([dump]) });
    try {
      return { tables: await checksumTables(restored.query), replaced };
    } finally {
      await restored.client.close();
    }
  } finally {
    release();
  }
}

/** Copies the set's clip files into place, checking each copy's hash against the manifest. */
async function restoreClipFiles(
  from: string,
  to: string,
  files: { key: string; sizeBytes: number; sha256: string }[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const file of files) {
    const parts = file.key.split('/');
    if (parts.some((part) => part === '' || part === '..' || part === '.')) {
      problems.push(`clip ${file.key} has a key that is not a storage path; skipped`);
      continue;
    }
    try {
      const copied = await copyFileWithHash(path.join(from, ...parts), path.join(to, ...parts));
      if (copied.sha256 !== file.sha256 || copied.sizeBytes !== file.sizeBytes) {
        problems.push(`clip ${file.key} differs from the one the backup recorded`);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      problems.push(`clip ${file.key} is missing from ${path.join(from)}`);
    }
  }
  return problems;
}
