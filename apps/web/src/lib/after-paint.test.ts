import { afterEach, describe, expect, it, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { afterAnswersPainted, afterNextPaint } from './after-paint.ts';
import { pendingPageCodeLoads, trackPageCodeLoad } from './page-code-loads.ts';

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

describe('afterAnswersPainted', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  /** Frames painted by hand, idle callbacks at once when asked (happy-dom has none: a timer). */
  function setUp() {
    vi.useFakeTimers();
    const frames: FrameRequestCallback[] = [];
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => {
      frames.push(callback);
      return frames.length;
    });
    vi.spyOn(window, 'cancelAnimationFrame').mockImplementation(() => undefined);
    const paint = () => {
      for (const frame of frames.splice(0)) frame(0);
      vi.advanceTimersByTime(0);
    };
    /** A painted frame and three seconds go by, and `callback` has still not run. */
    const expectStillWaiting = (callback: () => void) => {
      paint();
      vi.advanceTimersByTime(3000);
      expect(callback).not.toHaveBeenCalled();
    };
    /** The next painted frame and idle moment run `callback`, once. */
    const expectRunAfterNextFrame = (callback: () => void) => {
      paint();
      vi.advanceTimersByTime(2000);
      expect(callback).toHaveBeenCalledTimes(1);
    };
    return { paint, expectStillWaiting, expectRunAfterNextFrame, queryClient: new QueryClient() };
  }

  /** A query whose answer comes when `answer` is called. */
  function pendingQuery(queryClient: QueryClient, key: string) {
    let answer: (value: string) => void = () => {};
    void queryClient.fetchQuery({
      queryKey: [key],
      queryFn: () => new Promise<string>((resolve) => (answer = resolve)),
    });
    return (value: string) => answer(value);
  }

  it('waits for the answers, the frame that paints them and an idle moment', async () => {
    const { expectStillWaiting, expectRunAfterNextFrame, queryClient } = setUp();
    const answer = pendingQuery(queryClient, 'plans');
    const callback = vi.fn();
    afterAnswersPainted(queryClient, callback);
    expectStillWaiting(callback);

    answer('ten cameras');
    await vi.waitFor(() => expect(queryClient.isFetching()).toBe(0));
    expect(callback).not.toHaveBeenCalled();
    expectRunAfterNextFrame(callback);
  });

  it('waits again when the page asked for more after the frame, even if answered at once', async () => {
    const { paint, expectRunAfterNextFrame, queryClient } = setUp();
    const callback = vi.fn();
    // Only who is signed in so far: the page's own query starts once its code has run, and an
    // answer its early start already holds comes back at once.
    afterAnswersPainted(queryClient, callback);
    paint();
    await queryClient.fetchQuery({ queryKey: ['plans'], queryFn: () => 'ten cameras' });
    vi.advanceTimersByTime(3000);
    expect(callback).not.toHaveBeenCalled();

    expectRunAfterNextFrame(callback);
  });

  it("waits for a page's code on its way, with no answer pending meanwhile", async () => {
    const { expectStillWaiting, expectRunAfterNextFrame, queryClient } = setUp();
    let arrive: (code: string) => void = () => {};
    void trackPageCodeLoad(new Promise<string>((resolve) => (arrive = resolve)));
    const callback = vi.fn();
    afterAnswersPainted(queryClient, callback);
    expectStillWaiting(callback);

    arrive('dashboard-page.js');
    await vi.waitFor(() => expect(pendingPageCodeLoads()).toBe(0));
    expectRunAfterNextFrame(callback);
  });

  it('waits no longer than 15 s after the load for a page that keeps asking', async () => {
    const { paint, queryClient } = setUp();
    const callback = vi.fn();
    afterAnswersPainted(queryClient, callback);
    // A clip being recorded: its status is asked for every second.
    const pollFor = async (seconds: number) => {
      for (let second = 0; second < seconds; second += 1) {
        await queryClient.fetchQuery({
          queryKey: ['clip', Date.now()],
          queryFn: () => 'recording',
        });
        paint();
        vi.advanceTimersByTime(1000);
      }
    };
    await pollFor(14);
    expect(callback).not.toHaveBeenCalled();
    await pollFor(4);
    expect(callback).toHaveBeenCalledTimes(1);
  });

  it('waits for the page to load, and does nothing once cancelled', () => {
    const { expectStillWaiting, expectRunAfterNextFrame, queryClient } = setUp();
    vi.spyOn(document, 'readyState', 'get').mockReturnValue('loading');
    const callback = vi.fn();
    afterAnswersPainted(queryClient, callback);
    expectStillWaiting(callback);
    window.dispatchEvent(new Event('load'));
    expectRunAfterNextFrame(callback);

    const cancelled = vi.fn();
    const cancel = afterAnswersPainted(queryClient, cancelled);
    cancel();
    expectStillWaiting(cancelled);
  });
});
