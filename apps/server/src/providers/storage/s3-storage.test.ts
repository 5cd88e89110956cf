/**
 * The S3 adapter (official AWS SDK) against a local S3-compatible server that checks SigV4
 * signatures and presigned-URL expiry like S3 does.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { startFakeS3Server, type FakeS3Server } from './fake-s3-server.ts';
import { createS3Storage } from './s3-storage.ts';

describe('S3 storage', () => {
  let s3: FakeS3Server;
  let folder: string;
  let clipPath: string;
  const clip = Buffer.from('\0\0\0 ftypisom fake mp4 body '.repeat(200));
  // A fixed time one minute into a 10-minute signing step (s3-storage.ts), so moving a few
  // seconds on never crosses into the next step whenever the suite runs. The bucket judges
  // presigned URLs by the same clock unless a test moves it on.
  const clock = new ManualClock('2026-03-10T12:01:00Z');
  let serverNow: Date | undefined;

  beforeAll(async () => {
    s3 = await startFakeS3Server({ now: () => serverNow ?? clock.now() });
    folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-s3-'));
    clipPath = path.join(folder, 'clip.mp4');
    await fs.promises.writeFile(clipPath, clip);
  });

  afterAll(async () => {
    await s3.close();
    await fs.promises.rm(folder, { recursive: true, force: true });
  });

  const storage = () =>
    createS3Storage({
      bucket: s3.bucket,
      region: 'eu-west-2',
      endpoint: s3.endpoint,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      clock,
    });

  it('uploads a clip with its type and plays it back through a presigned URL', async () => {
    const key = 'livestreams/abc/2026-03-10T09-one.mp4';
    const { sizeBytes } = await storage().putFile(key, clipPath, 'video/mp4');
    expect(sizeBytes).toBe(clip.length);
    expect(s3.objects.get(key)).toMatchObject({ contentType: 'video/mp4' });
    expect(s3.objects.get(key)?.body.equals(clip)).toBe(true);

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

  it('gives the same URL for calls close together, and it expires', async () => {
    const key = 'livestreams/abc/expiring.mp4';
    await storage().putFile(key, clipPath, 'video/mp4');
    const first = await storage().playbackUrl(key, 60);
    clock.advance(5_000);
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

    serverNow = new Date(signedAtMs + expires * 1000 + 1000);
    const expired = await fetch(first);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
    serverNow = undefined;
  });

  it('refuses a tampered URL and wrong credentials', async () => {
    const key = 'livestreams/abc/tampered.mp4';
    await storage().putFile(key, clipPath, 'video/mp4');
    const url = await storage().playbackUrl(key, 600);
    const otherKey = url.replace('tampered.mp4', 'other.mp4');
    expect((await fetch(otherKey)).status).toBe(403);

    const wrong = createS3Storage({
      bucket: s3.bucket,
      region: 'eu-west-2',
      endpoint: s3.endpoint,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: 'not-the-secret',
      clock,
    });
    await expect(
      wrong.putFile('livestreams/abc/nope.mp4', clipPath, 'video/mp4'),
    ).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
    });
    expect(s3.objects.has('livestreams/abc/nope.mp4')).toBe(false);
  });

  it('deletes objects, and deleting again is fine', async () => {
    const key = 'livestreams/abc/old.mp4';
    await storage().putFile(key, clipPath, 'video/mp4');
    await storage().delete(key);
    expect(s3.objects.has(key)).toBe(false);
    await storage().delete(key);
    expect(s3.requests.filter((request) => request === `DELETE /${s3.bucket}/${key}`)).toHaveLength(
      2,
    );
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
