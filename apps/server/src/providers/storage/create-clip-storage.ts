import path from 'node:path';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { ensureDatabaseSecret } from '../../lib/database-secret.ts';
import { createFilesystemStorage } from './filesystem-storage.ts';
import { withStorageMetrics } from './instrumented-storage.ts';
import type { ClipStorage } from './storage.ts';

const secretKey = 'media-url-secret';

/**
 * The secret that signs /media URLs, made once and kept in the database so that every process
 * (and a restart) accepts the URLs the others made.
 */
export function ensureMediaUrlSecret(db: Database): Promise<string> {
  return ensureDatabaseSecret(db, secretKey);
}

/** The storage STORAGE names: files under `dataDir/clips` (default) or an S3 bucket. */
export async function createClipStorage(
  config: Config['storage'],
  deps: { db: Database; clock: Clock; dataDir: string; publicUrl: string },
): Promise<ClipStorage> {
  if (config.mode === 's3') {
    // Loaded only when used: the AWS SDK is large and warns about Node versions at import.
    const { createS3Storage } = await import('./s3-storage.ts');
    return withStorageMetrics(createS3Storage({ ...config, clock: deps.clock }));
  }
  // Every operation counted by outcome, for the storage alert (decision 103).
  return withStorageMetrics(
    createFilesystemStorage({
      root: path.join(deps.dataDir, 'clips'),
      publicUrl: deps.publicUrl,
      secret: await ensureMediaUrlSecret(deps.db),
      clock: deps.clock,
    }),
  );
}
