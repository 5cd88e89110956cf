/**
 * Clips in S3 are not copied into a backup set (docs/decisions/074): the bucket's versioning and
 * replication keep them. The backup records the bucket's object list, and a restore checks that
 * every listed object is still there, so a restored database never points at clips that are gone
 * without the operator being told.
 */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config/config.ts';
import { createS3Client } from '../providers/storage/s3-storage.ts';
import type { S3Object } from './backup-set.ts';

export type S3Settings = Extract<Config['storage'], { mode: 's3' }>;

/** The one call of the S3 client the listing makes (a test gives pages of its own). */
export type ListObjectsClient = Pick<S3Client, 'send' | 'destroy'>;

/**
 * Every object in the bucket (1,000 per request, page after page by the continuation token),
 * with its size and ETag.
 */
export async function listBucketObjects(
  settings: S3Settings,
  client: ListObjectsClient = createS3Client(settings),
): Promise<S3Object[]> {
  const objects: S3Object[] = [];
  let continuationToken: string | undefined;
  try {
    do {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket: settings.bucket,
          ContinuationToken: continuationToken,
        }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        objects.push({
          key: object.Key,
          sizeBytes: object.Size ?? 0,
          etag: (object.ETag ?? '').replaceAll('"', ''),
        });
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken);
  } finally {
    client.destroy();
  }
  return objects;
}

/** Objects the backup listed that the bucket no longer has (or has with other contents). */
export function compareObjects(saved: S3Object[], current: S3Object[]): string[] {
  const currentByKey = new Map(current.map((object) => [object.key, object]));
  const problems: string[] = [];
  for (const object of saved) {
    const found = currentByKey.get(object.key);
    if (!found) problems.push(`clip ${object.key} is not in the bucket`);
    else if (found.sizeBytes !== object.sizeBytes || found.etag !== object.etag) {
      problems.push(`clip ${object.key} in the bucket differs from the one the backup listed`);
    }
  }
  return problems;
}
