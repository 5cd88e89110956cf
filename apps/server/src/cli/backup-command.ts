/**
 * `npm run backup [-- --out DIR]`: writes one backup set (docs/decisions/074). The program is
 * src/backup.ts; this is its testable body.
 *
 * PostgreSQL (DATABASE_URL) is saved with `pg_dump -Fc` while the portal runs: the checksums and
 * the dump read one exported snapshot, so they describe the same data. The embedded database is
 * saved with PGlite's data-directory dump, which needs the server stopped: PGlite is one process,
 * and copying its files under a running server gives a torn copy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { acquireDirectoryLock, DatabaseLockedError } from '../db/client.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { listBucketObjects } from './backup-s3.ts';
import {
  appliedMigrationCount,
  appVersion,
  BackupError,
  checksumTables,
  clipsFolderName,
  copyFileWithHash,
  backupFormat,
  isDatabaseFolder,
  listClipFiles,
  manifestFileName,
  openPgliteFolder,
  pgliteDumpFileName,
  postgresDumpFileName,
  postgresServerVersion,
  runTool,
  toolConnection,
  toolMajorVersion,
  withPostgresSnapshot,
  type BackupManifest,
  type ClipFile,
} from './backup-set.ts';
import { configForCommand, parseCommandLine, type CommandOutput } from './command.ts';
import { billingMark, readBillingState } from './local-billing-restore.ts';

const usage = `Usage: npm run backup [-- --out DIR]

Writes one backup set, a folder named farmcam-backup-<time>, into DIR (default: backups, beside
the repository's package.json when run through npm). It holds the database (pg_dump of
DATABASE_URL, or the embedded database in DATA_DIR), the clip files under DATA_DIR/clips (with
STORAGE=s3, the bucket's object list) and manifest.json with every table's row count and checksum.

With PostgreSQL the portal may keep running. With the embedded database, stop the server first.
Copy the set off this machine afterwards (docs/operations.md, "Backups and restore").`;

export interface BackupDependencies {
  clock?: Clock;
}

/** Runs the backup; returns the exit code. Tests pass the environment and a clock. */
export async function runBackupCommand(
  argv: string[],
  print: CommandOutput,
  environment?: Record<string, string | undefined>,
  dependencies: BackupDependencies = {},
): Promise<number> {
  const parsed = parseCommandLine(argv, print, usage, { out: { type: 'string' } });
  if (typeof parsed === 'number') return parsed;
  const config = configForCommand(print, environment);
  if (!config) return 1;

  const clock = dependencies.clock ?? systemClock;
  const createdAt = clock.now();
  const outFolder = path.resolve(parsed.values.out ?? 'backups');
  const setName = `farmcam-backup-${createdAt
    .toISOString()
    .replaceAll(':', '')
    .replace(/\.\d+Z$/, 'Z')}`;
  const setFolder = path.join(outFolder, setName);
  // Written under another name and renamed when complete: a set named farmcam-backup-… is whole.
  const partialFolder = `${setFolder}.partial`;
  if (fs.existsSync(setFolder)) {
    print.error(`${setFolder} already exists; not overwriting it.`);
    return 1;
  }
  await fs.promises.rm(partialFolder, { recursive: true, force: true });
  await fs.promises.mkdir(partialFolder, { recursive: true });

  try {
    const database = config.databaseUrl
      ? await backUpPostgres(config.databaseUrl, partialFolder, createdAt)
      : await backUpPglite(config.dataDir, partialFolder, createdAt);
    const clips =
      config.storage.mode === 's3'
        ? {
            kind: 's3' as const,
            bucket: config.storage.bucket,
            objects: await listBucketObjects(config.storage),
          }
        : await backUpClipFiles(path.join(config.dataDir, 'clips'), partialFolder, print);
    const manifest: BackupManifest = {
      format: backupFormat,
      createdAt: createdAt.toISOString(),
      appVersion: appVersion(),
      migrationCount: database.migrationCount,
      database: database.description,
      tables: database.tables,
      billingChecked: true,
      ...(database.billing && { billing: database.billing }),
      clips,
    };
    await fs.promises.writeFile(
      path.join(partialFolder, manifestFileName),
      `${JSON.stringify(manifest, null, 2)}\n`,
    );
    await fs.promises.rename(partialFolder, setFolder);

    const rows = manifest.tables
      .filter((table) => table.kind === 'table')
      .reduce((sum, table) => sum + table.rows, 0);
    const clipSummary =
      clips.kind === 'fs'
        ? `${clips.files.length} clip file${clips.files.length === 1 ? '' : 's'} (${megabytes(clips.files.reduce((sum, file) => sum + file.sizeBytes, 0))})`
        : `the list of ${clips.objects.length} clip${clips.objects.length === 1 ? '' : 's'} in bucket ${clips.bucket} (the bucket's versioning keeps the clips themselves)`;
    print.out(
      `Backed up the ${database.description.kind === 'postgres' ? 'PostgreSQL' : 'embedded'} database (${manifest.tables.length} tables and sequences, ${rows} rows) and ${clipSummary}.`,
    );
    print.out(`  ${setFolder}`);
    if (manifest.billing) {
      print.out(
        `It holds the local billing engine's ledger as of ${manifest.billing.billingTime}; restoring it with BILLING=local takes --fence-billing (docs/decisions/109).`,
      );
    }
    print.out(
      'Copy it off this machine. Restore with: npm run restore -- <that folder> (docs/operations.md, "Backups and restore").',
    );
    return 0;
  } catch (error) {
    await fs.promises.rm(partialFolder, { recursive: true, force: true });
    if (error instanceof BackupError || error instanceof DatabaseLockedError) {
      print.error(`No backup was written. ${error.message}`);
      return 1;
    }
    throw error;
  }
}

const megabytes = (bytes: number) =>
  bytes < 100_000 ? `${bytes} bytes` : `${(bytes / 1_000_000).toFixed(1)} MB`;

interface SavedDatabase {
  description: BackupManifest['database'];
  tables: BackupManifest['tables'];
  migrationCount: number;
  billing: BackupManifest['billing'];
}

async function backUpPostgres(
  url: string,
  setFolder: string,
  createdAt: Date,
): Promise<SavedDatabase> {
  const pgDump = await toolMajorVersion('pg_dump');
  return withPostgresSnapshot(url, async (query, snapshot) => {
    const server = await postgresServerVersion(query);
    if (pgDump.major < server.major) {
      throw new BackupError(
        `pg_dump is version ${pgDump.major} but the database runs PostgreSQL ${server.major}; pg_dump cannot save a newer server. ` +
          `Install postgresql-client-${server.major} (on Debian from apt.postgresql.org) and run the backup again.`,
      );
    }
    const tables = await checksumTables(query);
    const migrationCount = await appliedMigrationCount(query);
    // In the same snapshot: where the local billing engine's ledger stood (decision 109).
    const billing = billingMark(await readBillingState(query, createdAt));
    const connection = await toolConnection(url);
    try {
      // The dump reads the snapshot this transaction exported, so it holds what was checksummed.
      await runTool('pg_dump', [
        '--format=custom',
        `--snapshot=${snapshot}`,
        `--file=${path.join(setFolder, postgresDumpFileName)}`,
        `--dbname=${connection.dbname}`,
      ]);
    } finally {
      await connection.remove();
    }
    return {
      description: {
        kind: 'postgres',
        file: postgresDumpFileName,
        serverVersion: server.text,
        pgDumpVersion: pgDump.text,
      },
      tables,
      migrationCount,
      billing,
    };
  });
}

async function backUpPglite(
  dataDir: string,
  setFolder: string,
  createdAt: Date,
): Promise<SavedDatabase> {
  const folder = path.join(dataDir, 'pglite');
  if (!isDatabaseFolder(folder)) {
    throw new BackupError(`There is no embedded database in ${folder} to back up.`);
  }
  // Throws DatabaseLockedError (with its "stop it first" message) while the server runs.
  const release = acquireDirectoryLock(dataDir);
  try {
    const { client, query } = await openPgliteFolder(folder);
    try {
      const tables = await checksumTables(query);
      const migrationCount = await appliedMigrationCount(query);
      const billing = billingMark(await readBillingState(query, createdAt));
      const [version] = await query('select version() as text');
      const dump = await client.dumpDataDir('gzip');
      await fs.promises.writeFile(
        path.join(setFolder, pgliteDumpFileName),
        Buffer.from(await dump.arrayBuffer()),
      );
      return {
        description: {
          kind: 'pglite',
          file: pgliteDumpFileName,
          pgliteVersion: String(version?.text),
        },
        tables,
        migrationCount,
        billing,
      };
    } finally {
      await client.close();
    }
  } finally {
    release();
  }
}

/**
 * Copies every clip file, hashing it. Runs after the database is saved: a clip recorded since
 * is an extra file the restored database does not name (harmless); one deleted since (the
 * history keeps the newest clips) is skipped and said.
 */
async function backUpClipFiles(
  root: string,
  setFolder: string,
  print: CommandOutput,
): Promise<Extract<BackupManifest['clips'], { kind: 'fs' }>> {
  const files: ClipFile[] = [];
  let vanished = 0;
  for (const key of await listClipFiles(root)) {
    try {
      const copied = await copyFileWithHash(
        path.join(root, ...key.split('/')),
        path.join(setFolder, clipsFolderName, ...key.split('/')),
      );
      files.push({ key, ...copied });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      vanished += 1;
    }
  }
  if (vanished > 0) {
    print.out(
      `${vanished} clip file(s) were deleted while copying (older clips leaving the history).`,
    );
  }
  return { kind: 'fs', folder: clipsFolderName, files };
}
