import { afterEach, describe, expect, it, vi } from 'vitest';
import { createShutdown, type ShutdownOptions } from './shutdown.ts';

function harness(overrides: Partial<ShutdownOptions> = {}) {
  const events: string[] = [];
  const exits: number[] = [];
  let draining = false;
  const options: ShutdownOptions = {
    readiness: {
      startDraining: () => {
        draining = true;
        events.push('draining');
      },
    },
    graceSeconds: 5,
    timeoutMs: 30_000,
    steps: [
      { name: 'HTTP', run: async () => void events.push('http closed') },
      { name: 'database', run: async () => void events.push('database closed') },
    ],
    log: {
      info: (_details, message) => events.push(`info: ${message}`),
      error: (_details, message) => events.push(`error: ${message}`),
    },
    exit: (code) => void exits.push(code),
    wait: async (ms) => void events.push(`wait ${ms}`),
    ...overrides,
  };
  return { shutdown: createShutdown(options), events, exits, isDraining: () => draining };
}

afterEach(() => vi.useRealTimers());

describe('createShutdown', () => {
  it('drains first, waits the grace while still serving, then closes in order and exits 0', async () => {
    const { shutdown, events, exits } = harness();
    await shutdown('SIGTERM');
    expect(events).toEqual([
      'draining',
      'info: Shutting down: /api/readyz answers draining; still serving during the grace',
      'wait 5000',
      'http closed',
      'database closed',
      'info: Shut down',
    ]);
    expect(exits).toEqual([0]);
  });

  it('does not wait without a grace (development and tests)', async () => {
    const { shutdown, events } = harness({ graceSeconds: 0 });
    await shutdown('SIGINT');
    expect(events.some((event) => event.startsWith('wait'))).toBe(false);
  });

  it('runs the later steps when one fails, and exits 1', async () => {
    const closed: string[] = [];
    const { shutdown, events, exits } = harness({
      graceSeconds: 0,
      steps: [
        {
          name: 'mail',
          run: async () => {
            throw new Error('SMTP pool stuck');
          },
        },
        { name: 'database', run: async () => void closed.push('database') },
      ],
    });
    await shutdown('SIGTERM');
    expect(events).toContain('error: Shutdown: mail failed');
    expect(closed).toEqual(['database']);
    expect(exits).toEqual([1]);
  });

  it('exits 1 and says so when a step hangs past the time-out', async () => {
    vi.useFakeTimers();
    const { shutdown, events, exits } = harness({
      graceSeconds: 0,
      timeoutMs: 30_000,
      steps: [{ name: 'jobs', run: () => new Promise<void>(() => {}) }],
    });
    void shutdown('SIGTERM');
    await vi.advanceTimersByTimeAsync(29_999);
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([1]);
    expect(events).toContain('error: Shutdown did not finish in time: exiting');
  });

  it('exits at once on a second signal', async () => {
    let release: () => void = () => {};
    const { shutdown, exits, isDraining } = harness({
      graceSeconds: 0,
      steps: [{ name: 'jobs', run: () => new Promise<void>((resolve) => (release = resolve)) }],
    });
    const first = shutdown('SIGINT');
    expect(isDraining()).toBe(true);
    await shutdown('SIGINT');
    expect(exits).toEqual([1]);
    release();
    await first;
  });
});
