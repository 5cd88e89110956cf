/**
 * The contract between bench/run.ts and the scenarios in bench/scenarios/*.ts. A scenario gets a
 * BenchContext (running servers, a signed-in customer, a load helper) and returns metrics, each
 * optionally checked against a target.
 */
import type { LoadOptions, LoadResult } from './load.ts';

/** A number the metric must reach (`atLeast`) or stay under (`atMost`). */
export interface Target {
  atLeast?: number;
  atMost?: number;
}

/** One row of the results table and of bench/results/latest.json. */
export interface Metric {
  /** The scenario that measured it. */
  name: string;
  metric: string;
  /** null when it could not be measured (see `note`). */
  value: number | null;
  unit: string;
  /** Human-readable target such as ">= 0.25"; null when the metric is informational. */
  target: string | null;
  /** null when there is no target, false when there is one and it was missed or not measured. */
  pass: boolean | null;
  note?: string;
}

export interface ScenarioOutput {
  metrics: Metric[];
  /** Anything worth keeping in latest.json (per-file sizes, raw autocannon numbers...). */
  details?: unknown;
}

export interface BenchContext {
  /** The portal server, e.g. http://127.0.0.1:43210 (no trailing slash). */
  baseUrl: string;
  /** The bare Fastify hello-world server, for baselines. */
  helloUrl: string;
  /** Bearer token of demo@example.com, signed in through the e-mailed link. */
  customerToken: string;
  /** Signs a customer in through the real flow (memoised per e-mail: login is rate limited). */
  signIn(email: string): Promise<string>;
  /** autocannon with a warm-up, failing loudly on any non-2xx answer or socket error. */
  load(options: LoadOptions): Promise<LoadResult>;
  /** Default load settings (overridable with BENCH_CONNECTIONS, BENCH_DURATION, BENCH_WARMUP). */
  loadDefaults: { connections: number; durationSeconds: number; warmupSeconds: number };
  /** Absolute path of the repository. */
  rootDir: string;
  log(message: string): void;
}

export interface Scenario {
  name: string;
  run(context: BenchContext): Promise<ScenarioOutput>;
}

/** Builds a Metric, computing `target` text and `pass` from an optional Target. */
export function metric(
  name: string,
  metricName: string,
  value: number | null,
  unit: string,
  target?: Target,
  note?: string,
): Metric {
  const parts: string[] = [];
  if (target?.atLeast !== undefined) parts.push(`>= ${target.atLeast}`);
  if (target?.atMost !== undefined) parts.push(`<= ${target.atMost}`);
  const pass =
    target === undefined
      ? null
      : value !== null &&
        (target.atLeast === undefined || value >= target.atLeast) &&
        (target.atMost === undefined || value <= target.atMost);
  return {
    name,
    metric: metricName,
    value,
    unit,
    target: parts.length ? parts.join(' and ') : null,
    pass,
    ...(note ? { note } : {}),
  };
}
