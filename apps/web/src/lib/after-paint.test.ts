import { afterEach, describe, expect, it, vi } from 'vitest';
import { afterNextPaint } from './after-paint.ts';

describe('afterNextPaint', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('runs in a task after the next frame, once', () => {
    vi.useFakeTimers();
    let frame: FrameRequestCallback | undefined;
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => {
      frame = callback;
      return 1;
    });
    const callback = vi.fn();
    afterNextPaint(callback);
    vi.advanceTimersByTime(100);
    expect(callback).not.toHaveBeenCalled();
    frame!(0);
    expect(callback).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(callback).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(callback).toHaveBeenCalledTimes(1);
  });

  it('runs anyway where no frame is drawn, and not at all once cancelled', () => {
    vi.useFakeTimers();
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation(() => 1);
    vi.spyOn(window, 'cancelAnimationFrame').mockImplementation(() => undefined);
    const unpainted = vi.fn();
    afterNextPaint(unpainted);
    vi.advanceTimersByTime(250);
    expect(unpainted).toHaveBeenCalledTimes(1);

    const cancelled = vi.fn();
    const cancel = afterNextPaint(cancelled);
    cancel();
    vi.advanceTimersByTime(1000);
    expect(cancelled).not.toHaveBeenCalled();
  });
});
