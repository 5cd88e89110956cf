import type { QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { onPageCodeLoads, pendingPageCodeLoads } from './page-code-loads.ts';

/** Where frames are not drawn (a tab in the background), the callback runs after this anyway. */
const noFrameFallbackMs = 250;

/**
 * Runs `callback` once the next frame has been painted: a task queued from an animation frame
 * runs after that frame's paint. For work the first screen does not need (decision 174).
 * Returns a function that cancels it.
 */
export function afterNextPaint(callback: () => void): () => void {
  let isDone = false;
  const run = () => {
    if (isDone) return;
    isDone = true;
    cancel();
    callback();
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(run, 0);
  });
  const fallback = setTimeout(run, noFrameFallbackMs);
  function cancel() {
    isDone = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    clearTimeout(fallback);
  }
  return cancel;
}

/** False in a component's first render and until that frame has been painted; true after. */
export function useIsFirstScreenPainted(): boolean {
  const [isPainted, setIsPainted] = useState(false);
  useEffect(() => {
    if (isPainted) return;
    return afterNextPaint(() => setIsPainted(true));
  }, [isPainted]);
  return isPainted;
}

const idleTimeoutMs = 5000;
const noIdleCallbackMs = 2000;

/** Runs `callback` when the browser is next idle (in a few seconds at most). */
export function whenIdle(callback: () => void): () => void {
  if ('requestIdleCallback' in window) {
    const handle = window.requestIdleCallback(callback, { timeout: idleTimeoutMs });
    return () => window.cancelIdleCallback(handle);
  }
  const timer = setTimeout(callback, noIdleCallbackMs);
  return () => clearTimeout(timer);
}

/** A page that keeps asking (a clip being recorded, polled each second) waits no longer. */
const settleLimitMs = 15_000;

/**
 * Runs `callback` once the page has loaded, its answers and its code are in and the frame that
 * shows them has been painted, with the browser idle after it and nothing started meanwhile (a
 * page's own queries start only once its code and who is signed in are there, so one quiet moment
 * is not enough): for what a page's first screen never needs (the service worker, the saving of what the
 * device knew, the toasts' code). Started any earlier, such work shares one bar of signal with the
 * page's own files and answers (decisions 174, 175). Returns a function that cancels it.
 */
export function afterAnswersPainted(queryClient: QueryClient, callback: () => void): () => void {
  let loadedAt = document.readyState === 'complete' ? Date.now() : null;
  let hasActivity = false;
  let cancelWait: (() => void) | undefined;
  let isDone = false;
  const isBusy = () => queryClient.isFetching() > 0 || pendingPageCodeLoads() > 0;
  const isPastLimit = () => loadedAt !== null && Date.now() - loadedAt > settleLimitMs;
  const finish = () => {
    isDone = true;
    stopWatching();
    stopWatchingCode();
    window.removeEventListener('load', onLoad);
    cancelWait?.();
  };
  const check = () => {
    if (isDone || loadedAt === null || cancelWait) return;
    if (isBusy() && !isPastLimit()) return;
    hasActivity = false;
    let cancelIdle = () => {};
    const cancelPaint = afterNextPaint(() => {
      cancelIdle = whenIdle(() => {
        cancelWait = undefined;
        const isQuiet = !hasActivity && !isBusy();
        if (!isQuiet && !isPastLimit()) {
          check();
          return;
        }
        finish();
        callback();
      });
    });
    cancelWait = () => {
      cancelPaint();
      cancelIdle();
    };
  };
  const stopWatching = queryClient.getQueryCache().subscribe((event) => {
    if (event.type === 'added' || (event.type === 'updated' && event.action.type === 'fetch')) {
      hasActivity = true;
    }
    check();
  });
  const stopWatchingCode = onPageCodeLoads(() => {
    hasActivity = true;
    check();
  });
  const onLoad = () => {
    loadedAt = Date.now();
    check();
  };
  if (loadedAt === null) window.addEventListener('load', onLoad, { once: true });
  check();
  return finish;
}
