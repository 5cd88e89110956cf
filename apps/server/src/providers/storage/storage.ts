/**
 * The storage port: where recorded clips live and how a browser anywhere gets to play one.
 *
 * Implementations:
 * - `filesystem-storage.ts` (default, STORAGE=fs): files under DATA_DIR/clips, served by this app
 *   at /media/clips/… with signed, expiring URLs.
 * - `s3-storage.ts` (STORAGE=s3): an S3 bucket (AWS or an S3-compatible service) with presigned
 *   GET URLs, so clips are served by the bucket, not by the app.
 *
 * Keys are relative paths of letters, digits, `_`, `-`, `.` and `/` (see `assertStorageKey`).
 */
import { AppError } from '../../errors.ts';

export interface ClipStorage {
  readonly kind: 'fs' | 's3';
  /** Stores the file at `filePath` under `key` (replacing what was there); returns its size. */
  putFile(key: string, filePath: string, contentType: string): Promise<{ sizeBytes: number }>;
  /**
   * A URL that plays the object from any origin (no cookies, no CORS needed for `<video>`),
   * valid for at least `minimumLifetimeSeconds`. Calls close together return the same URL, so
   * browsers and the livestream-url cache can reuse it.
   */
  playbackUrl(
    key: string,
    minimumLifetimeSeconds: number,
    options?: PlaybackOptions,
  ): Promise<string>;
  /**
   * A URL for a clip handed out to anyone (a public link, the livestream's own code): it lives at
   * most `publicPlaybackSeconds` (at least four minutes), is served `private` (never `public,
   * immutable`: no shared cache keeps it), and calls in the same minute return the same URL
   * (docs/decisions/101).
   */
  publicPlaybackUrl(key: string): Promise<{ url: string; expiresAt: Date }>;
  /**
   * Copies the object into a local file (a worker reading clips it stored, e.g. a timelapse).
   * Rejects with `StoredObjectMissingError` when there is no such object; any other rejection
   * means storage could not answer (try again later).
   */
  copyToFile(key: string, filePath: string): Promise<void>;
  /** Deletes the object; deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Origins other than the portal's own that playback URLs point at (for media-src). */
  readonly mediaOrigins: readonly string[];
}

/** The object asked for is not in storage (deleted, or never stored): not an outage. */
export class StoredObjectMissingError extends Error {
  constructor(readonly key: string) {
    super(`No stored object ${key}`);
    this.name = 'StoredObjectMissingError';
  }
}

export interface PlaybackOptions {
  /**
   * Served as a download (`Content-Disposition: attachment`) under this file name (letters,
   * digits, `.`, `_`, `-`; see `assertDownloadName`), instead of for playing in the page.
   */
  downloadName?: string;
}

const downloadNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$/;

/** Download names go into a header and a signature unescaped: plain characters only. */
export function assertDownloadName(name: string): void {
  if (!downloadNamePattern.test(name)) {
    throw new AppError('VALIDATION_FAILED', `Not a download name: ${name}`);
  }
}

const keyPattern = /^[A-Za-z0-9_-][A-Za-z0-9_./-]{0,250}$/;

/** Keys never escape their folder (no `..`, no leading `/`) and stay URL-safe. */
export function assertStorageKey(key: string): void {
  if (!keyPattern.test(key) || key.split('/').some((part) => part === '' || part === '..')) {
    throw new AppError('VALIDATION_FAILED', `Not a storage key: ${key}`);
  }
}

/**
 * Expiry times are rounded up to a 10-minute step so that URLs made within the same step are
 * identical (cacheable), and always leave at least `minimumLifetimeSeconds`.
 */
export const urlExpiryStepSeconds = 600;

export function roundedExpiry(now: Date, minimumLifetimeSeconds: number): number {
  const earliest = Math.floor(now.getTime() / 1000) + minimumLifetimeSeconds;
  return Math.ceil(earliest / urlExpiryStepSeconds) * urlExpiryStepSeconds;
}

/**
 * Clip addresses handed out under public links live at most this long (docs/decisions/101): a
 * revoked link, a switched-off livestream or a copied address stops within five minutes. The
 * player asks every minute and takes the fresh address before the old one runs out.
 */
export const publicPlaybackSeconds = 300;
/** Public addresses are signed at the start of the minute: calls within it give the same URL. */
export const publicPlaybackStepSeconds = 60;
/** What a browser may keep of a public clip's answer: no shared cache, no longer than it lives. */
export const publicPlaybackCacheControl = `private, max-age=${publicPlaybackSeconds - publicPlaybackStepSeconds}`;

/** When a public address made now is signed (seconds, the start of the minute) and expires. */
export function publicPlaybackWindow(now: Date): { signedAt: number; expiresAt: number } {
  const signedAt =
    Math.floor(now.getTime() / 1000 / publicPlaybackStepSeconds) * publicPlaybackStepSeconds;
  return { signedAt, expiresAt: signedAt + publicPlaybackSeconds };
}
