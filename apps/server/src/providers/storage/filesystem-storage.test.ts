import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { securityHeadersPlugin } from '../../plugins/security-headers.ts';
import {
  createFilesystemStorage,
  filesystemMediaRoutes,
  parseRange,
  type FilesystemStorage,
} from './filesystem-storage.ts';
import { StoredObjectMissingError } from './storage.ts';

describe('filesystem storage and its signed media URLs', () => {
  const clock = new ManualClock('2026-03-10T12:00:00Z');
  let folder: string;
  let storage: FilesystemStorage;
  let app: FastifyInstance;
  const clip = Buffer.from(Array.from({ length: 5000 }, (_, index) => index % 251));

  beforeAll(async () => {
    folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-fs-storage-'));
    storage = createFilesystemStorage({
      root: path.join(folder, 'clips'),
      publicUrl: 'http://portal.test',
      secret: 'test-secret',
      clock,
    });
    await fs.promises.writeFile(path.join(folder, 'source.mp4'), clip);
    app = Fastify();
    await app.register(securityHeadersPlugin, { isHttps: false });
    await app.register(filesystemMediaRoutes, { storage, clock });
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    await fs.promises.rm(folder, { recursive: true, force: true });
  });

  const pathOf = (url: string) => url.replace('http://portal.test', '');

  it('stores a clip and serves it, whole and in ranges, to any origin', async () => {
    const key = 'livestreams/one/clip.mp4';
    const { sizeBytes } = await storage.putFile(key, path.join(folder, 'source.mp4'), 'video/mp4');
    expect(sizeBytes).toBe(clip.length);
    const url = await storage.playbackUrl(key, 3600);
    expect(url).toMatch(
      /^http:\/\/portal\.test\/media\/clips\/livestreams\/one\/clip\.mp4\?expires=\d+&signature=/,
    );

    const whole = await app.inject({ method: 'GET', url: pathOf(url) });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(clip)).toBe(true);
    expect(whole.headers).toMatchObject({
      'content-type': 'video/mp4',
      'accept-ranges': 'bytes',
      'access-control-allow-origin': '*',
    });
    // Playable inside other sites: no same-origin resource policy, no frame ban.
    expect(whole.headers['cross-origin-resource-policy']).toBeUndefined();

    // HEAD says the real size (players and CDNs read it before fetching), without a body.
    const head = await app.inject({ method: 'HEAD', url: pathOf(url) });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(clip.length));
    expect(head.rawPayload.length).toBe(0);

    const part = await app.inject({
      method: 'GET',
      url: pathOf(url),
      headers: { range: 'bytes=100-199' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${clip.length}`);
    expect(part.rawPayload.equals(clip.subarray(100, 200))).toBe(true);

    const tail = await app.inject({
      method: 'GET',
      url: pathOf(url),
      headers: { range: 'bytes=-10' },
    });
    expect(tail.rawPayload.equals(clip.subarray(clip.length - 10))).toBe(true);

    const outside = await app.inject({
      method: 'GET',
      url: pathOf(url),
      headers: { range: 'bytes=9000-' },
    });
    expect(outside.statusCode).toBe(416);
  });

  it('refuses unsigned, tampered and expired URLs', async () => {
    const key = 'livestreams/one/guarded.mp4';
    await storage.putFile(key, path.join(folder, 'source.mp4'), 'video/mp4');
    const url = pathOf(await storage.playbackUrl(key, 60));

    expect((await app.inject({ method: 'GET', url: `/media/clips/${key}` })).statusCode).toBe(403);
    const tampered = url.replace('guarded.mp4', 'clip.mp4');
    expect((await app.inject({ method: 'GET', url: tampered })).body).toBe('The link is not valid');
    const extended = url.replace(
      /expires=(\d+)/,
      (_, value: string) => `expires=${Number(value) + 600}`,
    );
    expect((await app.inject({ method: 'GET', url: extended })).statusCode).toBe(403);

    clock.advance(11 * 60_000);
    const expired = await app.inject({ method: 'GET', url });
    expect(expired.statusCode).toBe(403);
    expect(expired.body).toBe('The link has expired');
  });

  it("gives a public link's clip an address that lives five minutes, served private, never immutable", async () => {
    const key = 'livestreams/one/public.mp4';
    await storage.putFile(key, path.join(folder, 'source.mp4'), 'video/mp4');
    const issuedAt = clock.now().getTime();
    const { url, expiresAt } = await storage.publicPlaybackUrl(key);
    expect(url).toMatch(/\?expires=\d+&signature=[^&]+&cache=private$/);
    expect(expiresAt.getTime() - issuedAt).toBeLessThanOrEqual(300_000);
    expect(expiresAt.getTime() - issuedAt).toBeGreaterThanOrEqual(240_000);
    expect(Number(new URL(url).searchParams.get('expires')) * 1000).toBe(expiresAt.getTime());
    // Calls in the same minute give the same address (a player's cache and ours can reuse it).
    clock.advance(1000);
    expect((await storage.publicPlaybackUrl(key)).url).toBe(url);

    const served = await app.inject({ method: 'GET', url: pathOf(url) });
    expect(served.statusCode).toBe(200);
    expect(served.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
    expect(
      Number(/max-age=(\d+)/.exec(String(served.headers['cache-control']))![1]),
    ).toBeLessThanOrEqual(300);
    // Its `cache=private` is signed: dropped or changed, the address is refused.
    for (const tampered of [
      url.replace('&cache=private', ''),
      url.replace('cache=private', 'cache=public'),
    ]) {
      const answer = await app.inject({ method: 'GET', url: pathOf(tampered) });
      expect(answer.statusCode).toBe(403);
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    // Five minutes on, it is refused, and the refusal is not kept.
    clock.advance(expiresAt.getTime() - clock.now().getTime());
    const expired = await app.inject({ method: 'GET', url: pathOf(url) });
    expect(expired.statusCode).toBe(403);
    expect(expired.body).toBe('The link has expired');
    expect(expired.headers['cache-control']).toBe('no-store');
  });

  it('answers 404 for a deleted clip, and deleting twice is fine', async () => {
    const key = 'livestreams/one/deleted.mp4';
    await storage.putFile(key, path.join(folder, 'source.mp4'), 'video/mp4');
    const url = pathOf(await storage.playbackUrl(key, 60));
    await storage.delete(key);
    await storage.delete(key);
    expect((await app.inject({ method: 'GET', url })).statusCode).toBe(404);
    // Read back, a deleted clip is missing (not storage failing: decision 105).
    await expect(storage.copyToFile(key, path.join(folder, 'copy.mp4'))).rejects.toBeInstanceOf(
      StoredObjectMissingError,
    );
  });

  it('keeps keys inside the folder', async () => {
    await expect(
      storage.putFile('../outside.mp4', path.join(folder, 'source.mp4'), 'video/mp4'),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    const escape = await app.inject({
      method: 'GET',
      url: '/media/clips/..%2F..%2Fetc%2Fpasswd?expires=1&signature=x',
    });
    expect(escape.statusCode).toBe(403);
  });

  it('parses byte ranges', () => {
    expect(parseRange('bytes=0-', 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=2-4', 10)).toEqual({ start: 2, end: 4 });
    expect(parseRange('bytes=5-100', 10)).toEqual({ start: 5, end: 9 });
    expect(parseRange('bytes=-3', 10)).toEqual({ start: 7, end: 9 });
    expect(parseRange('bytes=4-2', 10)).toBeNull();
    expect(parseRange('bytes=-0', 10)).toBeNull();
    expect(parseRange('items=0-1', 10)).toBeNull();
  });
});
