/**
 * Counts every clip storage operation that reaches the disk or the bucket (put, copy back to a
 * file, delete) by backend and outcome, for the storage alert (docs/decisions/103). S3's calls
 * are also provider calls (latency, errors); the file system's were counted nowhere, and a full
 * disk or a lost mount showed only as failed recordings.
 */
import { countStorageOperation, registerStorageBackend } from '../../lib/metrics.ts';
import type { ClipStorage } from './storage.ts';

/** The same storage (its own extra methods kept, e.g. the file system's signed paths), counted. */
export function withStorageMetrics<Storage extends ClipStorage>(storage: Storage): Storage {
  const backend = storage.kind;
  registerStorageBackend(backend);
  const counted = async <T>(
    operation: 'put' | 'copy-to-file' | 'delete',
    work: () => Promise<T>,
  ): Promise<T> => {
    try {
      const result = await work();
      countStorageOperation(backend, operation, false);
      return result;
    } catch (error) {
      countStorageOperation(backend, operation, true);
      throw error;
    }
  };
  return {
    ...storage,
    putFile: (key: string, filePath: string, contentType: string) =>
      counted('put', () => storage.putFile(key, filePath, contentType)),
    copyToFile: (key: string, filePath: string) =>
      counted('copy-to-file', () => storage.copyToFile(key, filePath)),
    delete: (key: string) => counted('delete', () => storage.delete(key)),
  };
}
