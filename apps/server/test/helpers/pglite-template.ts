/**
 * Vitest global set-up for the server project: one in-memory PGlite migrated once per run and
 * dumped to a file, so each test file's fresh database loads it (test-database.ts) instead of
 * running initdb and every migration again (docs/decisions/150). Not used on PostgreSQL
 * (`npm run test:pg`), where each file gets a new database of its own.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated PGlite data directory's dump ('' on PostgreSQL). */
    pgliteTemplate: string;
  }
}

const migrationsFolder = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../src/db/migrations',
);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('pgliteTemplate', '');
    return async () => {};
  }
  const folder = await mkdtemp(path.join(os.tmpdir(), 'farmcam-pglite-template-'));
  const client = await PGlite.create();
  await migrate(drizzle(client) as never, { migrationsFolder });
  const dump = await client.dumpDataDir('none');
  await client.close();
  const file = path.join(folder, 'template.tar');
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  return () => rm(folder, { recursive: true, force: true });
}
