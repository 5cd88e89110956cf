import { useEffect, useState } from 'react';

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
