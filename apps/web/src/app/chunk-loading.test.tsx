import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoute } from '../test/test-utils.tsx';
import { ChunkLoadError, chunkLoadTimeoutMs, loadChunk } from './chunk-loading.ts';
import { RouteErrorScreen } from './route-error-screen.tsx';

describe('loadChunk', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives up on a chunk that has not arrived after 120 seconds', async () => {
    vi.useFakeTimers();
    const failure = loadChunk(() => new Promise<never>(() => undefined)).catch(
      (error: unknown) => error,
    );

    await vi.advanceTimersByTimeAsync(chunkLoadTimeoutMs);

    expect(chunkLoadTimeoutMs).toBe(120_000);
    expect(await failure).toBeInstanceOf(ChunkLoadError);
  });

  it('passes a loaded chunk through and turns a failed import into a ChunkLoadError', async () => {
    await expect(loadChunk(() => Promise.resolve('module'))).resolves.toBe('module');
    await expect(
      loadChunk(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module'))),
    ).rejects.toBeInstanceOf(ChunkLoadError);
  });
});

describe('Route error screen', () => {
  it('offers a retry when a page could not load', async () => {
    renderRoute('/', [
      {
        path: '/',
        lazy: () => loadChunk(() => Promise.reject(new TypeError('Failed to fetch'))),
        errorElement: <RouteErrorScreen />,
        hydrateFallbackElement: <p>Loading</p>,
      },
    ]);

    expect(await screen.findByRole('heading', { name: 'This page could not load' })).toBeDefined();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeDefined();
  });
});
