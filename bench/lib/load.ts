/**
 * autocannon with a warm-up run (discarded) and a measured run, failing loudly when any answer is
 * not 2xx or a socket errors, so a broken endpoint cannot pass as a fast one.
 */
import autocannon from 'autocannon';
import { groupCpuSeconds } from './cpu.ts';

export interface LoadOptions {
  /** Full URL including the path, e.g. `${baseUrl}/api/auth/user-data`. */
  url: string;
  title?: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationSeconds?: number;
  warmupSeconds?: number;
  /** The server's process group (its pid: the bench starts each server detached), for its CPU. */
  serverProcessGroup?: number;
}

export interface LoadResult {
  title: string;
  url: string;
  connections: number;
  durationSeconds: number;
  /** Mean of autocannon's per-second request counts (its "Req/Sec Avg"). */
  requestsPerSecond: number;
  /** 2xx answers divided by the measured run's real duration. */
  completedPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  responses2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /**
   * The server's CPU (its whole process group, user + system) per 2xx answer of the measured run,
   * in microseconds; null when the bench does not know the server's process group (or off Linux).
   */
  serverCpuMicroseconds: number | null;
}

export interface LoadDefaults {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result),
    );
    // Never let a hung run outlive its duration by much.
    const seconds = typeof options.duration === 'number' ? options.duration : 10;
    const guard = setTimeout(() => instance.stop(), (seconds + 30) * 1000);
    instance.once('done', () => clearTimeout(guard));
  });
}

function statusCodes(result: autocannon.Result): Record<string, number> {
  return Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]),
  );
}

export async function load(options: LoadOptions, defaults: LoadDefaults): Promise<LoadResult> {
  const connections = options.connections ?? defaults.connections;
  const durationSeconds = options.durationSeconds ?? defaults.durationSeconds;
  const warmupSeconds = options.warmupSeconds ?? defaults.warmupSeconds;
  const title = options.title ?? options.url;
  const base: autocannon.Options = {
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    connections,
    timeout: 10,
    ...(options.body !== undefined ? { body: options.body } : {}),
  };

  const check = (result: autocannon.Result, phase: string) => {
    if (result.non2xx > 0 || result.errors > 0 || result['2xx'] === 0) {
      throw new Error(
        `${title} (${phase}): ${result['2xx']} 2xx, ${result.non2xx} non-2xx ` +
          `(status codes ${JSON.stringify(statusCodes(result))}), ${result.errors} errors, ` +
          `${result.timeouts} timeouts`,
      );
    }
  };

  if (warmupSeconds > 0) {
    check(await run({ ...base, duration: warmupSeconds }), 'warm-up');
  }
  const cpuBefore = groupCpuSeconds(options.serverProcessGroup);
  const result = await run({ ...base, duration: durationSeconds });
  const cpuAfter = groupCpuSeconds(options.serverProcessGroup);
  check(result, 'measured run');

  return {
    title,
    url: options.url,
    connections,
    durationSeconds,
    requestsPerSecond: result.requests.average,
    completedPerSecond: result['2xx'] / (result.duration || durationSeconds),
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.mean,
    },
    responses2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: statusCodes(result),
    serverCpuMicroseconds:
      cpuBefore === null || cpuAfter === null
        ? null
        : Math.round(((cpuAfter - cpuBefore) * 1e6) / result['2xx']),
  };
}

/**
 * How many times the hello baseline's CPU a route's answer costs the server: steadier than the
 * throughput ratio when other work on the machine takes cores from both (issue 26 item 9).
 */
export function cpuRatio(route: LoadResult, baseline: LoadResult): number | null {
  if (route.serverCpuMicroseconds === null || !baseline.serverCpuMicroseconds) return null;
  return Number((route.serverCpuMicroseconds / baseline.serverCpuMicroseconds).toFixed(2));
}
