/**
 * The S3 adapter (official AWS SDK) against s3rver, an S3 implementation we did not write
 * (test/helpers/s3-server.ts says what it checks; docs/decisions/080).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestS3Server, type TestS3Server } from '../../../test/helpers/s3-server.ts';
import { ManualClock } from '../../lib/clock.ts';
import { createS3Storage } from './s3-storage.ts';
import { StoredObjectMissingError } from './storage.ts';

describe('S3 storage', () => {
  let s3: TestS3Server;
  let folder: string;
  let clipPath: string;
  const clip = Buffer.from('\0\0\0 ftypisom fake mp4 body '.repeat(200));
  // A fixed time one minute into a 10-minute signing step (s3-storage.ts), so moving a few
  // seconds on never crosses into the next step whenever the suite runs. s3rver judges request
  // times and presigned URLs by `Date`, so the machine's clock is held at the app's clock.
  const clock = new ManualClock('2026-03-10T12:01:00Z');
  const advance = (milliseconds: number) => {
    clock.advance(milliseconds);
    vi.setSystemTime(clock.now());
  };

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: clock.now() });
    s3 = await startTestS3Server();
    folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-s3-'));
    clipPath = path.join(folder, 'clip.mp4');
    await fs.promises.writeFile(clipPath, clip);
  });

  afterAll(async () => {
    await s3?.close();
    await fs.promises.rm(folder, { recursive: true, force: true });
    vi.useRealTimers();
  });

  const storage = () =>
    createS3Storage({
      bucket: s3.bucket,
      region: s3.region,
      endpoint: s3.endpoint,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      clock,
    });

  /** A plain SDK client, to look at what the bucket holds. */
  const bucketClient = () =>
    new S3Client({
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });

  // A HEAD answer has no body, so the SDK knows the refusal only by its status.
  const notFound = { $metadata: { httpStatusCode: 404 } };
  const headObject = (key: string) =>
    bucketClient().send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));

  it('uploads a clip byte for byte with its type and plays it back through a presigned URL', async () => {
    const key = 'livestreams/abc/2026-03-10T09-one.mp4';
    const { sizeBytes } = await storage().putFile(key, clipPath, 'video/mp4');
    expect(sizeBytes).toBe(clip.length);
    const stored = await bucketClient().send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    expect(stored).toMatchObject({
      ContentType: 'video/mp4',
      CacheControl: 'public, max-age=86400, immutable',
      ContentLength: clip.length,
    });
    // The stored body is the file, not an aws-chunked framing of it (s3-storage.ts).
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(clip)).toBe(true);

    const url = await storage().playbackUrl(key, 3600);
    expect(url.startsWith(`${s3.endpoint}/${s3.bucket}/${key}?`)).toBe(true);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(clip)).toBe(true);

    const ranged = await fetch(url, { headers: { range: 'bytes=0-9' } });
    expect(ranged.status).toBe(206);
    expect((await ranged.arrayBuffer()).byteLength).toBe(10);
    expect(storage().mediaOrigins).toEqual([s3.endpoint]);
  });

  it('reads a stored clip back into a file, and serves a download under its signed name', async () => {
    const key = 'timelapses/ls-1/2026-03-09-abc.mp4';
    await storage().putFile(key, clipPath, 'video/mp4');
    const copy = path.join(folder, 'copy.mp4');
    await storage().copyToFile(key, copy);
    expect(await fs.promises.readFile(copy)).toEqual(clip);
    const url = await storage().playbackUrl(key, 3600, {
      downloadName: 'Top-gate-2026-03-09-timelapse.mp4',
    });
    const answer = await fetch(url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-disposition')).toBe(
      'attachment; filename="Top-gate-2026-03-09-timelapse.mp4"',
    );
    // A missing object is told apart from storage that cannot answer.
    await expect(storage().copyToFile('timelapses/missing.mp4', copy)).rejects.toBeInstanceOf(
      StoredObjectMissingError,
    );
    s3.setUnreachable(true);
    try {
      await expect(storage().copyToFile(key, copy)).rejects.toMatchObject({
        code: 'PROVIDER_UNAVAILABLE',
      });
      await expect(storage().putFile(key, clipPath, 'video/mp4')).rejects.toMatchObject({
        code: 'PROVIDER_UNAVAILABLE',
      });
    } finally {
      s3.setUnreachable(false);
    }
  });

  it('gives the same URL for calls close together, and it expires', async () => {
    const key = 'livestreams/abc/expiring.mp4';
    await storage().putFile(key, clipPath, 'video/mp4');
    const first = await storage().playbackUrl(key, 60);
    advance(5_000);
    expect(await storage().playbackUrl(key, 60)).toBe(first);

    const expires = Number(new URL(first).searchParams.get('X-Amz-Expires'));
    const signedAt = new URL(first).searchParams.get('X-Amz-Date')!;
    const signedAtMs = Date.UTC(
      Number(signedAt.slice(0, 4)),
      Number(signedAt.slice(4, 6)) - 1,
      Number(signedAt.slice(6, 8)),
      Number(signedAt.slice(9, 11)),
      Number(signedAt.slice(11, 13)),
    );
    // At least the asked lifetime from now, at most one rounding step more.
    expect(signedAtMs + expires * 1000).toBeGreaterThanOrEqual(clock.now().getTime() + 55_000);
    expect(signedAtMs + expires * 1000).toBeLessThanOrEqual(
      clock.now().getTime() + 60_000 + 600_000 + 1000,
    );
    expect((await fetch(first)).status).toBe(200);

    const now = clock.now();
    vi.setSystemTime(signedAtMs + expires * 1000 + 1000);
    try {
      const expired = await fetch(first);
      expect(expired.status).toBe(403);
      expect(await expired.text()).toContain('Request has expired');
    } finally {
      vi.setSystemTime(now);
    }
  });

  it("gives a public link's clip a presigned URL of five minutes at most, answered private", async () => {
    const key = 'livestreams/abc/public.mp4';
    await storage().putFile(key, clipPath, 'video/mp4');
    const issuedAt = clock.now().getTime();
    const { url, expiresAt } = await storage().publicPlaybackUrl(key);
    advance(5_000);
    expect((await storage().publicPlaybackUrl(key)).url).toBe(url);

    const params = new URL(url).searchParams;
    const signedAt = params.get('X-Amz-Date')!;
    const signedAtMs = Date.UTC(
      Number(signedAt.slice(0, 4)),
      Number(signedAt.slice(4, 6)) - 1,
      Number(signedAt.slice(6, 8)),
      Number(signedAt.slice(9, 11)),
      Number(signedAt.slice(11, 13)),
      Number(signedAt.slice(13, 15)),
    );
    const validUntil = signedAtMs + Number(params.get('X-Amz-Expires')) * 1000;
    // What the bucket will honour is what the port says, and never more than five minutes.
    expect(validUntil).toBe(expiresAt.getTime());
    expect(validUntil - issuedAt).toBeLessThanOrEqual(300_000);
    expect(validUntil - issuedAt).toBeGreaterThanOrEqual(240_000);

    // The object is stored `public, immutable`; this URL's answer says private instead.
    const answer = await fetch(url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('private, max-age=240');
    expect(Buffer.from(await answer.arrayBuffer()).equals(clip)).toBe(true);

    const now = clock.now();
    vi.setSystemTime(validUntil + 1000);
    try {
      const expired = await fetch(url);
      expect(expired.status).toBe(403);
      expect(await expired.text()).toContain('Request has expired');
    } finally {
      vi.setSystemTime(now);
    }
  });

  it('answers PROVIDER_UNAVAILABLE when the bucket refuses the credentials, and stores nothing', async () => {
    const stranger = createS3Storage({
      bucket: s3.bucket,
      region: s3.region,
      endpoint: s3.endpoint,
      accessKeyId: 'NOT-A-KNOWN-KEY',
      secretAccessKey: 'not-the-secret',
      clock,
    });
    await expect(
      stranger.putFile('livestreams/abc/nope.mp4', clipPath, 'video/mp4'),
    ).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
    await expect(headObject('livestreams/abc/nope.mp4')).rejects.toMatchObject(notFound);
  });

  it('answers PROVIDER_UNAVAILABLE when the bucket does not exist', async () => {
    const elsewhere = createS3Storage({
      bucket: 'no-such-bucket',
      region: s3.region,
      endpoint: s3.endpoint,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      clock,
    });
    await expect(
      elsewhere.putFile('livestreams/abc/nope.mp4', clipPath, 'video/mp4'),
    ).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
  });

  it('deletes objects, and deleting again is fine', async () => {
    const key = 'livestreams/abc/old.mp4';
    await storage().putFile(key, clipPath, 'video/mp4');
    expect((await headObject(key)).ContentLength).toBe(clip.length);
    await storage().delete(key);
    await expect(headObject(key)).rejects.toMatchObject(notFound);
    await expect(storage().delete(key)).resolves.toBeUndefined();
  });

  it("names the bucket's origin for the pages' media policy, where its URLs point", async () => {
    const aws = createS3Storage({
      bucket: 'farm-clips',
      region: 'eu-west-2',
      accessKeyId: 'AKIAEXAMPLE',
      secretAccessKey: 'example',
      clock,
    });
    expect(aws.mediaOrigins).toEqual(['https://farm-clips.s3.eu-west-2.amazonaws.com']);
    const url = new URL(await aws.playbackUrl('livestreams/abc/clip.mp4', 60));
    expect(url.origin).toBe(aws.mediaOrigins[0]);
  });

  it('refuses keys that could escape their folder', async () => {
    await expect(storage().putFile('../etc/passwd', clipPath, 'video/mp4')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(storage().playbackUrl('a//b.mp4', 60)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
