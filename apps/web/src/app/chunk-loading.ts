import { trackPageCodeLoad } from '../lib/page-code-loads.ts';

/** docs/requirements.md#api: a page's script chunk may take up to 120 seconds (slow rural connections). */
export const chunkLoadTimeoutMs = 120_000;

/** A page's code could not be fetched: offline, too slow, or replaced by a newer deployment. */
export class ChunkLoadError extends Error {
  override readonly name = 'ChunkLoadError';
}

export function loadChunk<T>(load: () => Promise<T>, timeoutMs = chunkLoadTimeoutMs): Promise<T> {
  const loading = new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new ChunkLoadError(`Page code did not load within ${timeoutMs} ms`)),
      timeoutMs,
    );
    load()
      .then(resolve, (cause: unknown) =>
        reject(new ChunkLoadError('Page code failed to load', { cause })),
      )
      .finally(() => clearTimeout(timer));
  });
  // What waits for the first screen waits for the page's code too (lib/after-paint.ts).
  return trackPageCodeLoad(loading);
}
