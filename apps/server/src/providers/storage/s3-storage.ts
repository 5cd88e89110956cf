/**
 * Clips in an S3 bucket (STORAGE=s3) through the official AWS SDK: PutObject from the recorded
 * file, presigned GetObject URLs for playback (served by the bucket, not by us), DeleteObject when
 * a clip leaves the history. Works with AWS and S3-compatible services (S3_ENDPOINT, path-style).
 */
import fs from 'node:fs';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../errors.ts';
import { trackProviderCall } from '../../lib/provider-calls.ts';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import {
  assertDownloadName,
  assertStorageKey,
  publicPlaybackCacheControl,
  publicPlaybackWindow,
  roundedExpiry,
  StoredObjectMissingError,
  type ClipStorage,
} from './storage.ts';

/** The bucket refused or could not be reached: the recording job retries later. */
function storageUnavailable(action: string, cause: unknown): AppError {
  const detail = cause instanceof Error ? cause.name : 'unknown error';
  const error = new AppError(
    'PROVIDER_UNAVAILABLE',
    `Could not ${action} in the S3 bucket (${detail}). Please try again later.`,
  );
  error.cause = cause;
  return error;
}

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible service's address; AWS's own when absent. */
  endpoint?: string;
  /** Static credentials; without them the SDK's default chain (environment, role) is used. */
  accessKeyId?: string;
  secretAccessKey?: string;
  clock: Clock;
}

/** The SDK client for a bucket's settings, the same for the portal and the backup's listing. */
export function createS3Client(
  options: Pick<S3StorageOptions, 'region' | 'endpoint' | 'accessKeyId' | 'secretAccessKey'>,
): S3Client {
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    // Custom endpoints (MinIO, R2, local fakes) rarely have per-bucket host names.
    forcePathStyle: Boolean(options.endpoint),
    credentials:
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
    // Newer SDKs add CRC checksums (and aws-chunked bodies) by default, which many
    // S3-compatible services refuse; S3 itself does not need them for a plain PutObject.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    // The SDK would print each failed call on the console, outside our log (and a PutObject's
    // streamed file it cannot resend, with a warning): the failure reaches our code as an error,
    // which says what it means; our own retries resend the file (upload-spool.ts, decision 105).
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
}

export function createS3Storage(options: S3StorageOptions): ClipStorage & { kind: 's3' } {
  const client = createS3Client(options);
  const mediaOrigin = options.endpoint
    ? new URL(options.endpoint).origin
    : `https://${options.bucket}.s3.${options.region}.amazonaws.com`;

  return {
    kind: 's3',
    mediaOrigins: [mediaOrigin],

    async putFile(key, filePath, contentType) {
      assertStorageKey(key);
      const { size } = await fs.promises.stat(filePath);
      try {
        const command = new PutObjectCommand({
          Bucket: options.bucket,
          Key: key,
          Body: fs.createReadStream(filePath),
          ContentLength: size,
          ContentType: contentType,
          // A key is never overwritten with other content, so caches may keep it.
          CacheControl: 'public, max-age=86400, immutable',
        });
        await trackProviderCall('s3', 'put-object', () => client.send(command));
      } catch (error) {
        throw storageUnavailable('store the clip', error);
      }
      return { sizeBytes: size };
    },

    async playbackUrl(key, minimumLifetimeSeconds, playback = {}) {
      assertStorageKey(key);
      const { downloadName } = playback;
      if (downloadName !== undefined) assertDownloadName(downloadName);
      const now = options.clock.now();
      const expires = roundedExpiry(now, minimumLifetimeSeconds);
      // Signing at the start of the expiry step makes every URL within the step identical.
      const signingDate = new Date(Math.floor(now.getTime() / 600_000) * 600_000);
      const command = new GetObjectCommand({
        Bucket: options.bucket,
        Key: key,
        ResponseContentDisposition:
          downloadName === undefined ? undefined : `attachment; filename="${downloadName}"`,
      });
      return getSignedUrl(client, command, {
        signingDate,
        expiresIn: expires - Math.floor(signingDate.getTime() / 1000),
      });
    },

    async publicPlaybackUrl(key) {
      assertStorageKey(key);
      // Signed at the start of the minute for five minutes: the bucket refuses it after that,
      // whatever the object's own Cache-Control; the answer says `private` instead of the
      // stored `public, immutable` (response-cache-control is part of the signed URL).
      const { signedAt, expiresAt } = publicPlaybackWindow(options.clock.now());
      const command = new GetObjectCommand({
        Bucket: options.bucket,
        Key: key,
        ResponseCacheControl: publicPlaybackCacheControl,
      });
      const url = await getSignedUrl(client, command, {
        signingDate: new Date(signedAt * 1000),
        expiresIn: expiresAt - signedAt,
      });
      return { url, expiresAt: new Date(expiresAt * 1000) };
    },

    async copyToFile(key, filePath) {
      assertStorageKey(key);
      try {
        const command = new GetObjectCommand({ Bucket: options.bucket, Key: key });
        const answer = await trackProviderCall('s3', 'get-object', () => client.send(command));
        await pipeline(answer.Body as Readable, fs.createWriteStream(filePath));
      } catch (error) {
        const { name, $metadata } = (error ?? {}) as {
          name?: string;
          $metadata?: { httpStatusCode?: number };
        };
        if (name === 'NoSuchKey' || $metadata?.httpStatusCode === 404) {
          throw new StoredObjectMissingError(key);
        }
        throw storageUnavailable('read the clip', error);
      }
    },

    async delete(key) {
      assertStorageKey(key);
      try {
        const command = new DeleteObjectCommand({ Bucket: options.bucket, Key: key });
        await trackProviderCall('s3', 'delete-object', () => client.send(command));
      } catch (error) {
        throw storageUnavailable('delete the clip', error);
      }
    },
  };
}
