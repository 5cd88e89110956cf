import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import { appSettings } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { createFilesystemStorage } from './filesystem-storage.ts';
import type { ClipStorage } from './storage.ts';

const secretKey = 'media-url-secret';

/**
 * The secret that signs /media URLs, made once and kept in the database so that every process
 * (and a restart) accepts the URLs the others made.
 */
export async function ensureMediaUrlSecret(db: Database): Promise<string> {
  await db
    .insert(appSettings)
    .values({ key: secretKey, value: randomBytes(32).toString('base64url') })
    .onConflictDoNothing();
  const [row] = await db.select().from(appSettings).where(eq(appSettings.key, secretKey));
  return String(row!.value);
}

/** The storage STORAGE names: files under `dataDir/clips` (default) or an S3 bucket. */
export async function createClipStorage(
  config: Config['storage'],
  deps: { db: Database; clock: Clock; dataDir: string; publicUrl: string },
): Promise<ClipStorage> {
  if (config.mode === 's3') {
    // Loaded only when used: the AWS SDK is large and warns about Node versions at import.
    const { createS3Storage } = await import('./s3-storage.ts');
    return createS3Storage({ ...config, clock: deps.clock });
  }
  return createFilesystemStorage({
    root: path.join(deps.dataDir, 'clips'),
    publicUrl: deps.publicUrl,
    secret: await ensureMediaUrlSecret(deps.db),
    clock: deps.clock,
  });
}
