import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts';

/**
 * A fresh database per test file: in-memory PGlite by default (loaded from the run's migrated
 * template), or a new PostgreSQL database when TEST_DATABASE_URL is set (`npm run test:pg`),
 * dropped again on close.
 */
export async function openTestDatabase(): Promise<DatabaseHandle> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    // The run's migrated template (pglite-template.ts), loaded instead of migrating again.
    const templateFile = inject('pgliteTemplate');
    return openDatabase({
      kind: 'memory',
      ...(templateFile ? { template: new Blob([await readFile(templateFile)]) } : {}),
    });
  }

  const name = `farmcam_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ kind: 'postgres', url: url.toString() });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      // The pool has closed its connections; dropping without force lets any still closing
      // finish instead of being terminated under them.
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      for (let attempt = 0; ; attempt += 1) {
        try {
          await cleanup.query(
            `drop database if exists ${name}${attempt >= 50 ? ' with (force)' : ''}`,
          );
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      await cleanup.end();
    },
  };
}
