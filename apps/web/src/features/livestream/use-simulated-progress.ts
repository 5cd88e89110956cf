import { useCallback, useEffect, useRef, useState } from 'react';

/** docs/requirements.md#states/#limits: simulated progress rises to 95% over the expected time, then waits. */
export const progressCap = 95;
const tickMs = 100;

/** Progress after `elapsedMs` of an operation expected to take `expectedMs`: linear to the cap. */
export function simulatedProgress(elapsedMs: number, expectedMs: number): number {
  if (elapsedMs <= 0) return 0;
  return Math.min(progressCap, (elapsedMs / expectedMs) * progressCap);
}

export interface SimulatedProgress {
  /** 0-100. */
  value: number;
  isRunning: boolean;
  /** Started at least once: the bar stays on screen, at 0 after a failure. */
  hasStarted: boolean;
  /** The last run ended in failure (reset). */
  hasFailed: boolean;
  start(): void;
  /** Success: jump to 100%. */
  complete(): void;
  /** Failure: back to 0. */
  reset(): void;
}

/**
 * A progress bar for a call whose duration we only know roughly (docs/requirements.md#livestream-flow): it
 * climbs towards 95% over `expectedMs`, jumps to 100% on success, and resets to 0 on failure.
 */
export function useSimulatedProgress(expectedMs: number): SimulatedProgress {
  const [value, setValue] = useState(0);
  const [isRunning, setIsRunning] = useState(false);
  const [hasStarted, setHasStarted] = useState(false);
  const [hasFailed, setHasFailed] = useState(false);
  const timer = useRef<ReturnType<typeof setInterval> | undefined>(undefined);

  const stop = useCallback(() => {
    clearInterval(timer.current);
    timer.current = undefined;
    setIsRunning(false);
  }, []);

  useEffect(() => stop, [stop]);

  const start = useCallback(() => {
    clearInterval(timer.current);
    const startedAt = Date.now();
    setValue(0);
    setIsRunning(true);
    setHasStarted(true);
    setHasFailed(false);
    timer.current = setInterval(() => {
      setValue(simulatedProgress(Date.now() - startedAt, expectedMs));
    }, tickMs);
  }, [expectedMs]);

  const complete = useCallback(() => {
    stop();
    setValue(100);
  }, [stop]);

  const reset = useCallback(() => {
    stop();
    setValue(0);
    setHasFailed(true);
  }, [stop]);

  return { value, isRunning, hasStarted, hasFailed, start, complete, reset };
}
