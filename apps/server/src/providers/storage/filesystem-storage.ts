/**
 * Clips as files under a folder (DATA_DIR/clips by default), served by this app at
 * `/media/clips/<key>?expires=…&signature=…`. The signature is an HMAC of the key and expiry
 * with a secret every process shares, so a URL cannot be made up or extended, and it expires.
 * Addresses handed out under public links end in `&cache=private` (signed too): they live at most
 * five minutes and are served `private`, never `public, immutable` (docs/decisions/101).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import {
  assertDownloadName,
  assertStorageKey,
  publicPlaybackWindow,
  roundedExpiry,
  StoredObjectMissingError,
  type ClipStorage,
} from './storage.ts';

export const mediaRoutePrefix = '/media/clips/';

export interface FilesystemStorageOptions {
  root: string;
  publicUrl: string;
  secret: string;
  clock: Clock;
}

export interface FilesystemStorage extends ClipStorage {
  readonly kind: 'fs';
  readonly root: string;
  /** The file behind a signed URL's key, or why the URL is refused. */
  resolveSignedPath(
    key: string,
    expires: string | undefined,
    signature: string | undefined,
    download?: string,
    cache?: string,
  ):
    | { filePath: string; expiresAt: number; downloadName?: string; isPublic: boolean }
    | { refusal: string };
}

/**
 * A download name is signed with the key: a URL cannot be turned into another download; nor can
 * a public link's short address lose its `cache=private` to be served as `public, immutable`.
 */
function sign(
  secret: string,
  key: string,
  expires: number,
  download?: string,
  isPublic = false,
): string {
  const parts = [key, String(expires)];
  if (download !== undefined) parts.push(download);
  if (isPublic) parts.push('cache=private');
  return createHmac('sha256', secret).update(parts.join('\n')).digest('base64url');
}

export function createFilesystemStorage(options: FilesystemStorageOptions): FilesystemStorage {
  const root = path.resolve(options.root);
  const filePathOf = (key: string) => {
    assertStorageKey(key);
    return path.join(root, ...key.split('/'));
  };

  return {
    kind: 'fs',
    root,
    // Served by this app: the portal's own origin, which every policy allows as 'self'.
    mediaOrigins: [],

    async putFile(key, sourcePath) {
      const destination = filePathOf(key);
      await fs.promises.mkdir(path.dirname(destination), { recursive: true });
      // Copy beside the destination, then rename: a reader never sees half a clip.
      const partial = `${destination}.${process.pid}.partial`;
      await fs.promises.copyFile(sourcePath, partial);
      await fs.promises.rename(partial, destination);
      const { size } = await fs.promises.stat(destination);
      return { sizeBytes: size };
    },

    async playbackUrl(key, minimumLifetimeSeconds, playback = {}) {
      assertStorageKey(key);
      const expires = roundedExpiry(options.clock.now(), minimumLifetimeSeconds);
      const { downloadName } = playback;
      if (downloadName !== undefined) assertDownloadName(downloadName);
      const signature = sign(options.secret, key, expires, downloadName);
      const download = downloadName === undefined ? '' : `&download=${downloadName}`;
      return `${options.publicUrl}${mediaRoutePrefix}${key}?expires=${expires}${download}&signature=${signature}`;
    },

    async publicPlaybackUrl(key) {
      assertStorageKey(key);
      const { expiresAt } = publicPlaybackWindow(options.clock.now());
      const signature = sign(options.secret, key, expiresAt, undefined, true);
      return {
        url: `${options.publicUrl}${mediaRoutePrefix}${key}?expires=${expiresAt}&signature=${signature}&cache=private`,
        expiresAt: new Date(expiresAt * 1000),
      };
    },

    async copyToFile(key, filePath) {
      try {
        await fs.promises.copyFile(filePathOf(key), filePath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new StoredObjectMissingError(key);
        }
        throw error;
      }
    },

    async delete(key) {
      await fs.promises.rm(filePathOf(key), { force: true });
    },

    resolveSignedPath(key, expires, signature, download, cache) {
      try {
        assertStorageKey(key);
        if (download !== undefined) assertDownloadName(download);
      } catch {
        return { refusal: 'Not a clip address' };
      }
      const expiresAt = Number(expires);
      if (!Number.isInteger(expiresAt) || !signature) return { refusal: 'The link is not signed' };
      if (cache !== undefined && cache !== 'private') return { refusal: 'The link is not valid' };
      const isPublic = cache === 'private';
      const expected = Buffer.from(sign(options.secret, key, expiresAt, download, isPublic));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
        return { refusal: 'The link is not valid' };
      }
      if (expiresAt * 1000 <= options.clock.now().getTime()) {
        return { refusal: 'The link has expired' };
      }
      return { filePath: filePathOf(key), expiresAt, downloadName: download, isPublic };
    },
  };
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` → an inclusive range within `size`, or null. */
export function parseRange(header: string, size: number): { start: number; end: number } | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return null;
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) return null;
  return { start, end };
}

/** Clips and timelapses are MP4; live view adds fMP4 segments and cameras' stills (decision 157). */
function mediaTypeOf(filePath: string): string {
  if (filePath.endsWith('.jpg')) return 'image/jpeg';
  if (filePath.endsWith('.m4s')) return 'video/iso.segment';
  return 'video/mp4';
}

/**
 * GET /media/clips/<key>: serves a file behind a signed URL, with byte ranges (browsers seek and
 * loop MP4 with them). Readable from any origin: `<video>` on a customer's site plays it.
 */
export async function filesystemMediaRoutes(
  app: FastifyInstance,
  options: { storage: FilesystemStorage; clock: Clock },
) {
  // GET and HEAD answered here: Fastify's automatic HEAD route would replace the bodiless
  // answer's content-length with 0, and players and caches read the real size from HEAD.
  app.route<{
    Params: { '*': string };
    Querystring: { expires?: string; signature?: string; download?: string; cache?: string };
  }>({
    method: ['GET', 'HEAD'],
    url: `${mediaRoutePrefix}*`,
    config: { securityHeaders: 'public-embed' },
    handler: async (request, reply) => {
      const resolved = options.storage.resolveSignedPath(
        request.params['*'],
        request.query.expires,
        request.query.signature,
        request.query.download,
        request.query.cache,
      );
      if ('refusal' in resolved) {
        // Never kept: the same address may not be retried from a cache (an expired public link).
        return reply
          .code(403)
          .type('text/plain; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(resolved.refusal);
      }
      let stat: fs.Stats;
      try {
        stat = await fs.promises.stat(resolved.filePath);
      } catch {
        return reply.code(404).type('text/plain; charset=utf-8').send('No such clip');
      }
      const maxAge = Math.max(
        0,
        Math.floor(resolved.expiresAt - options.clock.now().getTime() / 1000),
      );
      reply
        .header('content-type', mediaTypeOf(resolved.filePath))
        .header('accept-ranges', 'bytes')
        // A public link's clip: this browser only, and no longer than its address lives.
        .header(
          'cache-control',
          resolved.isPublic ? `private, max-age=${maxAge}` : `public, max-age=${maxAge}, immutable`,
        )
        .header('access-control-allow-origin', '*')
        .header('last-modified', stat.mtime.toUTCString());
      if (resolved.downloadName) {
        reply.header('content-disposition', `attachment; filename="${resolved.downloadName}"`);
      }

      const rangeHeader = request.headers.range;
      if (rangeHeader) {
        const range = parseRange(rangeHeader, stat.size);
        if (!range) {
          return reply.code(416).header('content-range', `bytes */${stat.size}`).send();
        }
        reply
          .code(206)
          .header('content-range', `bytes ${range.start}-${range.end}/${stat.size}`)
          .header('content-length', range.end - range.start + 1);
        if (request.method === 'HEAD') return reply.send();
        return reply.send(fs.createReadStream(resolved.filePath, range));
      }
      reply.header('content-length', stat.size);
      if (request.method === 'HEAD') return reply.send();
      return reply.send(fs.createReadStream(resolved.filePath));
    },
  });
}
