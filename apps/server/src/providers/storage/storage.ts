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
  playbackUrl(key: string, minimumLifetimeSeconds: number): Promise<string>;
  /** Deletes the object; deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Origins other than the portal's own that playback URLs point at (for media-src). */
  readonly mediaOrigins: readonly string[];
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
