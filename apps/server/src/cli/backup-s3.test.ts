import { ListObjectsV2Command, type ListObjectsV2CommandOutput } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { compareObjects, listBucketObjects, type ListObjectsClient } from './backup-s3.ts';

const settings = {
  mode: 's3' as const,
  bucket: 'farmcam-clips',
  region: 'eu-west-2',
  endpoint: undefined,
  accessKeyId: undefined,
  secretAccessKey: undefined,
};

/**
 * s3rver answers one page only (its continuation tokens use DES, which Node 24 refuses;
 * docs/decisions/080), so the paging is checked here with S3's documented answers: a truncated
 * page carries NextContinuationToken, which the next request sends back.
 */
function pagedBucket(pages: ListObjectsV2CommandOutput[]) {
  const tokensSent: (string | undefined)[] = [];
  let destroyed = false;
  const client = {
    send: async (command: ListObjectsV2Command) => {
      expect(command).toBeInstanceOf(ListObjectsV2Command);
      expect(command.input.Bucket).toBe('farmcam-clips');
      tokensSent.push(command.input.ContinuationToken);
      const page = pages[tokensSent.length - 1];
      if (!page) throw new Error('asked for a page after the last one');
      return page;
    },
    destroy: () => {
      destroyed = true;
    },
  } as unknown as ListObjectsClient;
  return { client, tokensSent, isDestroyed: () => destroyed };
}

const object = (key: string, size: number, etag: string) => ({
  Key: key,
  Size: size,
  ETag: `"${etag}"`,
});
const metadata = { $metadata: {} };

describe('listBucketObjects', () => {
  it('follows the continuation token to the last page and lists every object once', async () => {
    const bucket = pagedBucket([
      {
        ...metadata,
        Contents: [object('a/0001.mp4', 10, 'e1'), object('a/0002.mp4', 20, 'e2')],
        IsTruncated: true,
        NextContinuationToken: 'page-2',
      },
      {
        ...metadata,
        Contents: [object('b/0001.mp4', 30, 'e3')],
        IsTruncated: true,
        NextContinuationToken: 'page-3',
      },
      { ...metadata, Contents: [object('c/0001.mp4', 40, 'e4')], IsTruncated: false },
    ]);
    const objects = await listBucketObjects(settings, bucket.client);
    expect(bucket.tokensSent).toEqual([undefined, 'page-2', 'page-3']);
    expect(objects).toEqual([
      { key: 'a/0001.mp4', sizeBytes: 10, etag: 'e1' },
      { key: 'a/0002.mp4', sizeBytes: 20, etag: 'e2' },
      { key: 'b/0001.mp4', sizeBytes: 30, etag: 'e3' },
      { key: 'c/0001.mp4', sizeBytes: 40, etag: 'e4' },
    ]);
    expect(bucket.isDestroyed()).toBe(true);
  });

  it('lists an empty bucket in one request, and closes the client when a page fails', async () => {
    const empty = pagedBucket([{ ...metadata, KeyCount: 0, IsTruncated: false }]);
    expect(await listBucketObjects(settings, empty.client)).toEqual([]);
    expect(empty.tokensSent).toEqual([undefined]);

    const failing = pagedBucket([
      {
        ...metadata,
        Contents: [object('a', 1, 'e')],
        IsTruncated: true,
        NextContinuationToken: 't',
      },
    ]);
    await expect(listBucketObjects(settings, failing.client)).rejects.toThrow(/after the last/);
    expect(failing.isDestroyed()).toBe(true);
  });
});

describe('compareObjects', () => {
  it('names objects that are gone or differ, and nothing else', () => {
    const saved = [
      { key: 'kept', sizeBytes: 1, etag: 'a' },
      { key: 'gone', sizeBytes: 1, etag: 'b' },
      { key: 'changed', sizeBytes: 1, etag: 'c' },
    ];
    const current = [
      { key: 'kept', sizeBytes: 1, etag: 'a' },
      { key: 'changed', sizeBytes: 2, etag: 'd' },
      { key: 'new', sizeBytes: 1, etag: 'e' },
    ];
    expect(compareObjects(saved, current)).toEqual([
      'clip gone is not in the bucket',
      'clip changed in the bucket differs from the one the backup listed',
    ]);
  });
});
