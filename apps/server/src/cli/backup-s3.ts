/**
 * Clips in S3 are not copied into a backup set (docs/decisions/074): the bucket's versioning and
 * replication keep them. The backup records the bucket's object list, and a restore checks that
 * every listed object is still there, so a restored database never points at clips that are gone
 * without the operator being told.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { Config } from '../config/config.ts';
import { createS3Client } from '../providers/storage/s3-storage.ts';
import type { S3Object } from './backup-set.ts';

export type S3Settings = Extract<Config['storage'], { mode: 's3' }>;

/** Every object in the bucket (1,000 per request), with its size and ETag. */
export async function listBucketObjects(settings: S3Settings): Promise<S3Object[]> {
  const client = createS3Client(settings);
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
