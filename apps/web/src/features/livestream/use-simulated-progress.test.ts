import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { progressCap, simulatedProgress, useSimulatedProgress } from './use-simulated-progress.ts';

describe('simulated progress (docs/requirements.md#states, #limits)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('rises linearly to 95% over the expected time and stays there', () => {
    expect(simulatedProgress(0, 15_000)).toBe(0);
    expect(simulatedProgress(7_500, 15_000)).toBeCloseTo(47.5);
    expect(simulatedProgress(15_000, 15_000)).toBe(progressCap);
    expect(simulatedProgress(60_000, 15_000)).toBe(95);
    expect(simulatedProgress(1_500, 3_000)).toBeCloseTo(47.5);
    expect(simulatedProgress(3_000, 3_000)).toBe(95);
  });

  it('reaches 95% after 15 s for the camera setup, then 100% on success', () => {
    const { result } = renderHook(() => useSimulatedProgress(15_000));
    act(() => result.current.start());
    expect(result.current.isRunning).toBe(true);
    act(() => vi.advanceTimersByTime(7_500));
    expect(result.current.value).toBeCloseTo(47.5, 0);
    act(() => vi.advanceTimersByTime(7_500));
    expect(result.current.value).toBe(95);
    act(() => vi.advanceTimersByTime(10_000));
    expect(result.current.value).toBe(95);
    act(() => result.current.complete());
    expect(result.current.value).toBe(100);
    expect(result.current.isRunning).toBe(false);
  });

  it('reaches 95% after 3 s for the configuration, and resets to 0 on failure', () => {
    const { result } = renderHook(() => useSimulatedProgress(3_000));
    act(() => result.current.start());
    act(() => vi.advanceTimersByTime(3_000));
    expect(result.current.value).toBe(95);
    act(() => result.current.reset());
    expect(result.current.value).toBe(0);
    // Stopped: time passing does not move it.
    act(() => vi.advanceTimersByTime(3_000));
    expect(result.current.value).toBe(0);
  });

  it('jumps to 100% as soon as the call succeeds, however early', () => {
    const { result } = renderHook(() => useSimulatedProgress(15_000));
    act(() => result.current.start());
    act(() => vi.advanceTimersByTime(300));
    expect(result.current.value).toBeLessThan(5);
    act(() => result.current.complete());
    expect(result.current.value).toBe(100);
  });
});
