import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestS3Server } from '../../test/helpers/s3-server.ts';
import { openDatabase } from '../db/client.ts';
import { seedDemoData } from '../seed/demo.ts';
import { ManualClock } from '../lib/clock.ts';
import { runBackupCommand } from './backup-command.ts';
import {
  checksumTables,
  manifestFileName,
  openPgliteFolder,
  toolConnection,
  withPostgresSnapshot,
  type BackupManifest,
  type TableChecksum,
} from './backup-set.ts';
import { runRestoreCommand } from './restore-command.ts';

// The restore drill (docs/decisions/074): seed, back up, wipe, restore, and compare every table
// and clip file with what was there before. It runs in CI on the embedded database, and on
// PostgreSQL when TEST_DATABASE_URL is set.

const clock = new ManualClock('2026-03-10T12:00:00Z');
const clipKey = 'livestreams/demo/2026-03-10T1200.mp4';
const clipBytes = randomBytes(200_000);
const folders: string[] = [];
const temporaryFolder = (label: string) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `farmcam-${label}-`));
  folders.push(folder);
  return folder;
};
afterAll(() => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

function putClip(dataDir: string) {
  const file = path.join(dataDir, 'clips', ...clipKey.split('/'));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, clipBytes);
  // A recorder's half-copied file is not a clip and stays out of the backup.
  fs.writeFileSync(`${file}.123.partial`, 'half');
}

const readClip = (dataDir: string) =>
  fs.readFileSync(path.join(dataDir, 'clips', ...clipKey.split('/')));

async function run(
  command: typeof runBackupCommand | typeof runRestoreCommand,
  argv: string[],
  environment: Record<string, string | undefined>,
) {
  const out: string[] = [];
  const error: string[] = [];
  const code = await command(
    argv,
    { out: (line) => out.push(line), error: (line) => error.push(line) },
    { NODE_ENV: 'test', LOG_LEVEL: 'silent', ...environment },
    { clock },
  );
  return { code, out: out.join('\n'), error: error.join('\n') };
}

/** The one set a backup wrote into `outFolder`. */
function onlySet(outFolder: string): string {
  const sets = fs.readdirSync(outFolder).filter((name) => name.startsWith('farmcam-backup-'));
  expect(sets).toHaveLength(1);
  return path.join(outFolder, sets[0]!);
}

/**
 * The tables a restore gave back, less app_settings, where a restore with --fence-billing adds
 * its billing fence (decision 109).
 */
const withoutFence = (tables: TableChecksum[]) =>
  tables.filter((table) => table.table !== 'public.app_settings');

const readManifest = (setFolder: string) =>
  JSON.parse(fs.readFileSync(path.join(setFolder, manifestFileName), 'utf8')) as BackupManifest;

async function pgliteChecksums(dataDir: string): Promise<TableChecksum[]> {
  const { client, query } = await openPgliteFolder(path.join(dataDir, 'pglite'));
  try {
    return await checksumTables(query);
  } finally {
    await client.close();
  }
}

/** Runs a program the way npm does: a separate node process through tsx. */
function runProgram(program: string, argv: string[], environment: Record<string, string>) {
  const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', program);
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...argv], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...environment },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('backup and restore of the embedded database', () => {
  let sourceDir: string;
  let outFolder: string;
  let setFolder: string;
  let before: TableChecksum[];

  beforeAll(async () => {
    sourceDir = temporaryFolder('backup-source');
    outFolder = temporaryFolder('backup-out');
    const database = await openDatabase({ kind: 'directory', dataDir: sourceDir });
    await seedDemoData(database.db, clock);
    await database.close();
    putClip(sourceDir);
    before = await pgliteChecksums(sourceDir);
  }, 120_000);

  it('backs up as a separate process (npm run backup), with a manifest of every table and clip', async () => {
    const result = await runProgram('backup.ts', ['--out', outFolder], { DATA_DIR: sourceDir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Backed up the embedded database \(\d+ tables and sequences/);
    setFolder = onlySet(outFolder);
    expect(result.stdout).toContain(setFolder);

    const manifest = readManifest(setFolder);
    expect(manifest.database.kind).toBe('pglite');
    expect(manifest.migrationCount).toBeGreaterThan(10);
    expect(manifest.tables).toEqual(before);
    expect(manifest.tables.find((table) => table.table === 'public.customers')?.rows).toBe(2);
    expect(manifest.clips).toEqual({
      kind: 'fs',
      folder: 'clips',
      files: [
        {
          key: clipKey,
          sizeBytes: clipBytes.length,
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      ],
    });
  }, 120_000);

  it('refuses, with the local billing engine, a backup of its ledger unless --fence-billing', async () => {
    const manifest = readManifest(setFolder);
    expect(manifest.billingChecked).toBe(true);
    // The demo's cameras: live subscriptions and the past-due ones' unpaid invoices.
    expect(manifest.billing).toMatchObject({
      engine: 'local',
      liveSubscriptions: expect.any(Number),
      openInvoices: expect.any(Number),
      // The program ran on the real clock, with no test clock moved.
      billingTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const targetDir = temporaryFolder('restore-refused-billing');
    const refused = await run(runRestoreCommand, [setFolder], { DATA_DIR: targetDir });
    expect(refused.code).toBe(1);
    expect(refused.error).toMatch(
      /^Not restored: this backup holds \d+ subscriptions and \d+ unpaid invoices? of the local billing engine, as they stood at [\d-]+T[\d:.]+Z\. .* would renew and charge again .* Run again with --fence-billing/,
    );
    expect(fs.existsSync(path.join(targetDir, 'pglite'))).toBe(false);
    // Under Stripe the local engine charges nothing: no fence is needed.
    const underStripe = await run(runRestoreCommand, [setFolder], {
      DATA_DIR: targetDir,
      BILLING: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_restore',
      STRIPE_WEBHOOK_SECRET: 'whsec_restore',
    });
    expect(underStripe.error).toBe('');
    expect(underStripe.code).toBe(0);
    expect(await pgliteChecksums(targetDir)).toEqual(before);
  }, 120_000);

  it('restores into an emptied data folder and gets back every row and clip', async () => {
    const targetDir = temporaryFolder('restore-target');
    const result = await run(runRestoreCommand, [setFolder, '--fence-billing'], {
      DATA_DIR: targetDir,
    });
    expect(result.error).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/each checked against the manifest/);
    expect(result.out).toMatch(/^Billing fence at 2026-03-10T12:00:00\.000Z: /m);
    expect(withoutFence(await pgliteChecksums(targetDir))).toEqual(withoutFence(before));
    expect(readClip(targetDir).equals(clipBytes)).toBe(true);
  }, 120_000);

  it('refuses a data folder that holds data unless --force, and keeps the old folder', async () => {
    const targetDir = temporaryFolder('restore-used');
    const database = await openDatabase({ kind: 'directory', dataDir: targetDir });
    await seedDemoData(database.db, new ManualClock('2026-05-01T00:00:00Z'));
    await database.close();

    const refused = await run(runRestoreCommand, [setFolder, '--fence-billing'], {
      DATA_DIR: targetDir,
    });
    expect(refused.code).toBe(1);
    expect(refused.error).toMatch(
      // The first five tables with rows are named (alphabetically), then "…".
      /^The database already holds data \((public\.[a-z_]+, ){5}…\)\. .*--force/,
    );

    const forced = await run(runRestoreCommand, [setFolder, '--force', '--fence-billing'], {
      DATA_DIR: targetDir,
    });
    expect(forced.code).toBe(0);
    expect(forced.out).toMatch(/is kept in .*pglite\.before-restore-2026-03-10T120000Z/);
    // The replaced database was seeded on 1 May 2026: the fence is at its newest invoice or later.
    expect(forced.out).toMatch(/^Billing fence at 2026-05-01T/m);
    expect(withoutFence(await pgliteChecksums(targetDir))).toEqual(withoutFence(before));
  }, 120_000);

  it('fails with the differences when the restored data does not match the manifest', async () => {
    const tampered = temporaryFolder('backup-tampered');
    fs.cpSync(setFolder, tampered, { recursive: true });
    const manifest = readManifest(tampered);
    const customers = manifest.tables.find((table) => table.table === 'public.customers')!;
    customers.checksum = '0'.repeat(32);
    manifest.tables.find((table) => table.table === 'public.sims')!.rows += 1;
    fs.writeFileSync(path.join(tampered, manifestFileName), JSON.stringify(manifest));
    fs.appendFileSync(path.join(tampered, 'clips', ...clipKey.split('/')), 'x');

    const result = await run(runRestoreCommand, [tampered, '--fence-billing'], {
      DATA_DIR: temporaryFolder('restore-mismatch'),
    });
    expect(result.code).toBe(1);
    expect(result.error).toContain('The restore does not match the backup (3 differences)');
    expect(result.error).toContain(
      'public.customers has the same number of rows (2) but different contents',
    );
    expect(result.error).toMatch(/public\.sims has \d+ rows; the backup had \d+/);
    expect(result.error).toContain(`clip ${clipKey} differs from the one the backup recorded`);
  }, 120_000);

  it('says to stop the server while it holds the embedded database', async () => {
    // A running server's lock file: another live process (this one's parent) holds it.
    const lockFile = path.join(sourceDir, 'portal.lock');
    fs.writeFileSync(lockFile, String(process.ppid));
    try {
      const backup = await run(runBackupCommand, ['--out', temporaryFolder('backup-locked')], {
        DATA_DIR: sourceDir,
      });
      expect(backup.code).toBe(1);
      expect(backup.error).toMatch(
        /^No backup was written\. Another Farmcam Portal process .* Stop it first/,
      );
      const restore = await run(runRestoreCommand, [setFolder, '--force', '--fence-billing'], {
        DATA_DIR: sourceDir,
      });
      expect(restore.code).toBe(1);
      expect(restore.error).toMatch(/Stop it first/);
      expect(await pgliteChecksums(sourceDir)).toEqual(before);
    } finally {
      fs.rmSync(lockFile, { force: true });
    }
  });

  it("with clips in S3, records the bucket's object list and checks it after the restore", async () => {
    // The bucket is s3rver (test/helpers/s3-server.ts), listed with ListObjectsV2 as S3 is. Its
    // continuation tokens use DES, which Node 24's OpenSSL refuses, so one page only
    // (docs/decisions/080).
    const s3 = await startTestS3Server('farmcam-clips');
    try {
      const bucket = new S3Client({
        region: s3.region,
        endpoint: s3.endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        requestChecksumCalculation: 'WHEN_REQUIRED',
      });
      const put = (key: string, body: string) =>
        bucket.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body }));
      const objects = Array.from({ length: 3 }, (_, index) => {
        const body = `clip ${index}`;
        return {
          key: `livestreams/a/${String(index).padStart(4, '0')}.mp4`,
          sizeBytes: body.length,
          etag: createHash('md5').update(body).digest('hex'),
          body,
        };
      });
      for (const { key, body } of objects) await put(key, body);
      const environment = {
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        STORAGE: 's3',
        S3_BUCKET: s3.bucket,
        S3_REGION: s3.region,
        S3_ENDPOINT: s3.endpoint,
        S3_ACCESS_KEY_ID: s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        DATA_DIR: sourceDir,
      };
      const out = temporaryFolder('backup-s3');
      const backup = await runBackupCommand(
        ['--out', out],
        { out: () => undefined, error: (line) => expect.fail(line) },
        environment,
        { clock },
      );
      expect(backup).toBe(0);
      const s3Set = onlySet(out);
      expect(readManifest(s3Set).clips).toEqual({
        kind: 's3',
        bucket: 'farmcam-clips',
        objects: objects.map(({ key, sizeBytes, etag }) => ({ key, sizeBytes, etag })),
      });
      expect(fs.existsSync(path.join(s3Set, 'clips'))).toBe(false);

      // One clip gone and one rewritten since the backup: the restore says so.
      await bucket.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: objects[0]!.key }));
      await put(objects[1]!.key, 'another clip');
      const error: string[] = [];
      const restore = await runRestoreCommand(
        [s3Set, '--fence-billing'],
        { out: () => undefined, error: (line) => error.push(line) },
        { ...environment, DATA_DIR: temporaryFolder('restore-s3') },
        { clock },
      );
      expect(restore).toBe(1);
      expect(error).toContain('The restore does not match the backup (2 differences):');
      expect(error).toContain('  - clip livestreams/a/0000.mp4 is not in the bucket');
      expect(error).toContain(
        '  - clip livestreams/a/0001.mp4 in the bucket differs from the one the backup listed',
      );
      bucket.destroy();
    } finally {
      await s3.close();
    }
  }, 120_000);

  it('refuses a folder that is not a backup set and a backup of the other database kind', async () => {
    const notASet = await run(runRestoreCommand, [outFolder], {
      DATA_DIR: temporaryFolder('restore-none'),
    });
    expect(notASet).toMatchObject({ code: 1 });
    expect(notASet.error).toMatch(/is not a backup set: it has no manifest\.json/);
    const otherKind = await run(runRestoreCommand, [setFolder], {
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    });
    expect(otherKind.code).toBe(1);
    expect(otherKind.error).toMatch(/backup is of the embedded database; unset DATABASE_URL/);
    expect((await run(runRestoreCommand, [], {})).code).toBe(2);
  });
});

const serverUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!serverUrl)(
  'backup and restore of PostgreSQL (needs TEST_DATABASE_URL: npm run test:pg)',
  () => {
    const created: string[] = [];
    async function freshDatabase(): Promise<string> {
      const name = `farmcam_backup_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      created.push(name);
      const url = new URL(serverUrl!);
      url.pathname = `/${name}`;
      return url.toString();
    }
    afterAll(async () => {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      for (const name of created) await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    });

    const postgresChecksums = (url: string) =>
      withPostgresSnapshot(url, (query) => checksumTables(query));

    it('refuses to back up with a pg_dump older than the server, naming the package to install', async () => {
      const sourceUrl = await freshDatabase();
      // A pg_dump 9 first on PATH, as on a machine with an old client.
      const tools = temporaryFolder('old-pg-dump');
      fs.writeFileSync(
        path.join(tools, 'pg_dump'),
        '#!/bin/sh\necho "pg_dump (PostgreSQL) 9.6.24"\n',
        { mode: 0o755 },
      );
      const originalPath = process.env.PATH;
      process.env.PATH = `${tools}${path.delimiter}${originalPath}`;
      try {
        const out = temporaryFolder('pg-backup-old');
        const result = await run(runBackupCommand, ['--out', out], {
          DATABASE_URL: sourceUrl,
          DATA_DIR: temporaryFolder('pg-backup-old-data'),
        });
        expect(result.code).toBe(1);
        expect(result.error).toMatch(
          /^No backup was written\. pg_dump is version 9 but the database runs PostgreSQL \d+; .*Install postgresql-client-\d+/,
        );
        expect(fs.readdirSync(out)).toEqual([]);
      } finally {
        process.env.PATH = originalPath;
      }
    });

    it('backs up a seeded database with its job queue, restores it into a fresh one and a used one', async () => {
      const sourceUrl = await freshDatabase();
      const database = await openDatabase({ kind: 'postgres', url: sourceUrl });
      await seedDemoData(database.db, clock);
      await database.close();
      // Queued jobs are part of the state (a login e-mail not yet sent): pg-boss's schema too.
      const boss = new PgBoss({ connectionString: sourceUrl });
      boss.on('error', () => undefined);
      await boss.start();
      await boss.createQueue('backup-drill');
      await boss.send('backup-drill', { camera: 'demo' });
      await boss.stop({ graceful: false });
      const sourceDir = temporaryFolder('pg-backup-source');
      putClip(sourceDir);
      const before = await postgresChecksums(sourceUrl);
      expect(before.some((table) => table.table.startsWith('pgboss.') && table.rows > 0)).toBe(
        true,
      );

      const outFolder = temporaryFolder('pg-backup-out');
      const backup = await run(runBackupCommand, ['--out', outFolder], {
        DATABASE_URL: sourceUrl,
        DATA_DIR: sourceDir,
      });
      expect(backup.error).toBe('');
      expect(backup.code).toBe(0);
      const setFolder = onlySet(outFolder);
      const manifest = readManifest(setFolder);
      expect(manifest.database).toMatchObject({ kind: 'postgres', file: 'database.dump' });
      expect(manifest.tables).toEqual(before);

      const targetUrl = await freshDatabase();
      const targetDir = temporaryFolder('pg-restore-target');
      const restored = await run(runRestoreCommand, [setFolder, '--fence-billing'], {
        DATABASE_URL: targetUrl,
        DATA_DIR: targetDir,
      });
      expect(restored.error).toBe('');
      expect(restored.code).toBe(0);
      expect(withoutFence(await postgresChecksums(targetUrl))).toEqual(withoutFence(before));
      expect(readClip(targetDir).equals(clipBytes)).toBe(true);

      // A used database (migrated, seeded on another day, one table more) is refused, then wiped.
      const usedUrl = await freshDatabase();
      const used = await openDatabase({ kind: 'postgres', url: usedUrl });
      await seedDemoData(used.db, new ManualClock('2026-05-01T00:00:00Z'));
      await used.executeSql('create table public.left_over (id int)');
      await used.close();
      const refused = await run(runRestoreCommand, [setFolder, '--fence-billing'], {
        DATABASE_URL: usedUrl,
        DATA_DIR: targetDir,
      });
      expect(refused.code).toBe(1);
      expect(refused.error).toMatch(/^The database already holds data/);
      const forced = await run(runRestoreCommand, [setFolder, '--wipe', '--fence-billing'], {
        DATABASE_URL: usedUrl,
        DATA_DIR: targetDir,
      });
      expect(forced.error).toBe('');
      expect(forced.code).toBe(0);
      const after = await postgresChecksums(usedUrl);
      expect(withoutFence(after)).toEqual(withoutFence(before));
      expect(after.some((table) => table.table === 'public.left_over')).toBe(false);
    }, 120_000);
  },
);

describe("PostgreSQL tools' connection", () => {
  it('moves the password into a password file only this user reads', async () => {
    const connection = await toolConnection('postgres://farm:se:cr\\et@db.example:5432/portal');
    try {
      const url = new URL(connection.dbname);
      expect(url.password).toBe('');
      // The password's own text, not a fragment a random folder name may hold.
      expect(decodeURIComponent(connection.dbname)).not.toContain('se:cr');
      const passfile = url.searchParams.get('passfile')!;
      expect(fs.readFileSync(passfile, 'utf8')).toBe('*:*:*:*:se\\:cr\\\\et\n');
      expect(fs.statSync(passfile).mode & 0o777).toBe(0o600);
    } finally {
      await connection.remove();
    }
    expect((await toolConnection('postgres://farm@db.example/portal')).dbname).toBe(
      'postgres://farm@db.example/portal',
    );
  });
});
