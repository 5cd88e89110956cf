/**
 * Every metric the app exports, in one prom-client registry per process (docs/decisions/071).
 * Code that counts something imports the function here (`recordJobRun`, `trackRecording`…), never
 * prom-client itself, so the names stay in one file and the alert-rule test can list them all.
 * `plugins/metrics.ts` serves the registry at GET /metrics and feeds the HTTP and queue metrics.
 *
 * Names carry the `farmcam_` prefix; prom-client's default process and Node.js metrics
 * (`process_cpu_seconds_total`, `nodejs_eventloop_lag_seconds`…) keep their usual names, so
 * stock dashboards for Node.js work on them unchanged.
 */
import fs from 'node:fs';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseHandle } from '../db/client.ts';
import { databaseOutage } from './database-outage.ts';
import { probeRoutes } from './probe-paths.ts';
import { observeProviderCalls } from './provider-calls.ts';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

// HTTP -----------------------------------------------------------------------------------------

/** Label of requests that matched no route (404s, probes of random paths): one series for all. */
export const unmatchedRoute = 'unmatched';

const httpDurationBuckets = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * One entry per method, route pattern and status class, bounded by the app's routes (the route
 * label is the pattern). Counted here in plain numbers rather than through prom-client's
 * `inc`/`observe`, which check and hash the labels on every call: on the cheapest route that
 * cost about a sixth of the throughput (decision 071). prom-client reads them at scrape time
 * through the three metrics below.
 */
interface HttpSeries {
  method: string;
  route: string;
  statusClass: string;
  count: number;
  seconds: number;
  /** Requests per duration bucket, not cumulative (the export adds them up). */
  buckets: Float64Array;
}
const httpSeries = new Map<string, HttpSeries>();
const statusClasses = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx', 'other'];

/**
 * The same series found by route, then method, then status class (an array index), so counting
 * a request builds no key: a `${method} ${class} ${route}` string per request had to be
 * concatenated and hashed before the look-up, about 0.5 µs on the cheapest route (decision 090).
 * The route pattern and the method are strings Fastify and Node hand over interned, so both
 * look-ups hash nothing.
 */
const httpSeriesIndex = new Map<string, Map<string, (HttpSeries | undefined)[]>>();

function newHttpSeries(method: string, route: string, statusClassIndex: number): HttpSeries {
  const statusClass = statusClasses[statusClassIndex]!;
  const series: HttpSeries = {
    method,
    route,
    statusClass,
    count: 0,
    seconds: 0,
    buckets: new Float64Array(httpDurationBuckets.length + 1),
  };
  httpSeries.set(`${method} ${statusClass} ${route}`, series);
  return series;
}

/** Counts one answered request; `route` is the matched route pattern, never the raw URL. */
export function recordHttpRequest(
  method: string,
  route: string | undefined,
  statusCode: number,
  seconds: number,
): void {
  const routeLabel = route ?? unmatchedRoute;
  let byMethod = httpSeriesIndex.get(routeLabel);
  if (byMethod === undefined) {
    byMethod = new Map();
    httpSeriesIndex.set(routeLabel, byMethod);
  }
  let byStatusClass = byMethod.get(method);
  if (byStatusClass === undefined) {
    byStatusClass = [];
    byMethod.set(method, byStatusClass);
  }
  const statusClassIndex = statusCode >= 0 && statusCode < 600 ? Math.floor(statusCode / 100) : 6;
  const series = (byStatusClass[statusClassIndex] ??= newHttpSeries(
    method,
    routeLabel,
    statusClassIndex,
  ));
  series.count += 1;
  series.seconds += seconds;
  let bucket = 0;
  while (bucket < httpDurationBuckets.length && seconds > httpDurationBuckets[bucket]!) bucket += 1;
  series.buckets[bucket]! += 1;
}

/**
 * Probe and scrape answers (lib/probe-paths.ts) by route and status class: kept apart from the
 * customer-facing series above, so a draining or not-ready instance's 503s do not count as
 * failed customer requests in the error-rate alert (decision 102).
 */
const probeAnswers = new Map<string, { route: string; statusClass: string; count: number }>();

export function recordProbeAnswer(route: string, statusCode: number): void {
  const statusClass =
    statusCode >= 0 && statusCode < 600 ? statusClasses[Math.floor(statusCode / 100)]! : 'other';
  const key = `${route} ${statusClass}`;
  const entry = probeAnswers.get(key) ?? { route, statusClass, count: 0 };
  entry.count += 1;
  probeAnswers.set(key, entry);
}

/** Whether the HTTP series count this route: every route but the probes and /metrics. */
export const isCustomerFacingRoute = (route: string) => !probeRoutes.has(route);

interface ExportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** A metric prom-client's registry serves, whose values are computed when it is scraped. */
function registerComputedMetric(
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => ExportedValue[],
): void {
  const read = async () => ({ name, help, type, aggregator: 'sum' as const, values: values() });
  registry.registerMetric({
    name,
    help,
    type,
    aggregator: 'sum',
    get: read,
    reset: () => {
      httpSeries.clear();
      httpSeriesIndex.clear();
    },
  } as unknown as Parameters<Registry['registerMetric']>[0]);
}

/** The series summed over the status classes, per method and route. */
function seriesByRoute(filter: (series: HttpSeries) => boolean) {
  const byRoute = new Map<string, { method: string; route: string; series: HttpSeries[] }>();
  for (const series of httpSeries.values()) {
    if (!filter(series)) continue;
    const key = `${series.method} ${series.route}`;
    const entry = byRoute.get(key) ?? { method: series.method, route: series.route, series: [] };
    entry.series.push(series);
    byRoute.set(key, entry);
  }
  return [...byRoute.values()];
}

registerComputedMetric(
  'farmcam_http_requests_total',
  'HTTP requests answered, by route pattern and status class (2xx, 4xx, 5xx…).',
  'counter',
  () =>
    [...httpSeries.values()].map((series) => ({
      labels: { method: series.method, route: series.route, status_class: series.statusClass },
      value: series.count,
    })),
);
registerComputedMetric(
  'farmcam_http_request_duration_seconds',
  'Time from request received to answer sent, by route pattern.',
  'histogram',
  () =>
    seriesByRoute(() => true).flatMap(({ method, route, series }) => {
      const labels = { method, route };
      const values: ExportedValue[] = [];
      let cumulative = 0;
      httpDurationBuckets.forEach((bound, index) => {
        for (const one of series) cumulative += one.buckets[index]!;
        values.push({
          labels: { ...labels, le: bound },
          value: cumulative,
          metricName: 'farmcam_http_request_duration_seconds_bucket',
        });
      });
      const count = series.reduce((total, one) => total + one.count, 0);
      const seconds = series.reduce((total, one) => total + one.seconds, 0);
      values.push(
        {
          labels: { ...labels, le: '+Inf' },
          value: count,
          metricName: 'farmcam_http_request_duration_seconds_bucket',
        },
        { labels, value: seconds, metricName: 'farmcam_http_request_duration_seconds_sum' },
        { labels, value: count, metricName: 'farmcam_http_request_duration_seconds_count' },
      );
      return values;
    }),
);
registerComputedMetric(
  'farmcam_http_server_errors_total',
  'HTTP requests answered with a 5xx status, by route pattern.',
  'counter',
  () =>
    seriesByRoute((series) => series.statusClass === '5xx').map(({ method, route, series }) => ({
      labels: { method, route },
      value: series.reduce((total, one) => total + one.count, 0),
    })),
);

registerComputedMetric(
  'farmcam_probe_requests_total',
  'Probe and scrape answers (/api/healthz, /api/readyz, /metrics) by route and status class; not in farmcam_http_*.',
  'counter',
  () =>
    [...probeAnswers.values()].map((entry) => ({
      labels: { route: entry.route, status_class: entry.statusClass },
      value: entry.count,
    })),
);

// Jobs -----------------------------------------------------------------------------------------

const jobRuns = new Counter({
  name: 'farmcam_job_runs_total',
  help: 'Job runs by queue and outcome (completed, failed); a retried job counts each attempt.',
  labelNames: ['queue', 'outcome'] as const,
  registers: [registry],
});
const jobFailures = new Counter({
  name: 'farmcam_job_failures_total',
  help: 'Jobs that failed their last allowed attempt (pg-boss marks them failed), by queue.',
  labelNames: ['queue'] as const,
  registers: [registry],
});
const jobDuration = new Histogram({
  name: 'farmcam_job_duration_seconds',
  help: 'Time one job run took, by queue and outcome.',
  labelNames: ['queue', 'outcome'] as const,
  // From a login e-mail (tens of ms) to a long recording or a large billing cycle (minutes).
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
  registers: [registry],
});

/** Makes each queue's series exist at zero, so rate() and alerts see a queue before it fails. */
export function registerJobQueueNames(queues: readonly string[]): void {
  for (const queue of queues) {
    jobRuns.labels(queue, 'completed').inc(0);
    jobRuns.labels(queue, 'failed').inc(0);
    jobFailures.labels(queue).inc(0);
  }
}

/** One job run's end; `willRetry` false on a failure means the job has failed for good. */
export function recordJobRun(
  queue: string,
  outcome: { seconds: number; isFailed: boolean; willRetry: boolean },
): void {
  const label = outcome.isFailed ? 'failed' : 'completed';
  jobRuns.labels(queue, label).inc();
  jobDuration.labels(queue, label).observe(outcome.seconds);
  if (outcome.isFailed && !outcome.willRetry) jobFailures.labels(queue).inc();
}

export interface JobQueueStats {
  queue: string;
  /** Jobs waiting (created or waiting for a retry), due or not. */
  depth: number;
  /** Seconds the longest-waiting due job has been due; 0 when none is due. */
  oldestAgeSeconds: number;
}

/**
 * Reads every queue's depth and oldest due job from pg-boss's own tables (pg-boss 10: `pgboss.job`
 * partitioned by queue, states ordered created < retry < active…, an index on (name, start_after)
 * for states before active). A job's age counts from `start_after`, when it became due: a job
 * queued for later, or waiting out its retry delay, is not late. The answer is kept for
 * `cacheMilliseconds`, so several Prometheus servers scraping every few seconds cost one query.
 */
export function createJobQueueStatsReader(
  database: Pick<DatabaseHandle, 'executeSql'>,
  options: { cacheMilliseconds?: number; now?: () => number } = {},
): () => Promise<JobQueueStats[]> {
  const cacheMilliseconds = options.cacheMilliseconds ?? 5_000;
  const now = options.now ?? Date.now;
  let cached: { at: number; stats: Promise<JobQueueStats[]> } | undefined;
  const read = async (): Promise<JobQueueStats[]> => {
    const { rows } = await database.executeSql(
      `select queue.name as queue,
              count(job.id)::int as depth,
              coalesce(extract(epoch from now() - min(job.start_after)
                filter (where job.start_after <= now())), 0)::float8 as oldest
         from pgboss.queue queue
         left join pgboss.job job on job.name = queue.name and job.state < 'active'
        where queue.name not like '\\_\\_pgboss\\_\\_%'
        group by queue.name
        order by queue.name`,
      [],
    );
    return (rows as { queue: string; depth: number; oldest: number }[]).map((row) => ({
      queue: row.queue,
      depth: Number(row.depth),
      oldestAgeSeconds: Math.max(0, Number(row.oldest)),
    }));
  };
  return () => {
    const at = now();
    if (!cached || at - cached.at >= cacheMilliseconds) {
      const stats = read();
      cached = { at, stats };
      // A failed read is not kept: the next scrape asks again.
      stats.catch(() => {
        if (cached?.stats === stats) cached = undefined;
      });
    }
    return cached.stats;
  };
}

type QueueStatsSource = () => Promise<JobQueueStats[]>;
let queueStatsSource: QueueStatsSource | undefined;

/**
 * Where the queue gauges read from at scrape time (the metrics plugin sets it); returns a function
 * that unsets it again, if it is still the current source.
 */
export function setJobQueueStatsSource(source: QueueStatsSource): () => void {
  queueStatsSource = source;
  latestQueueStats = undefined;
  return () => {
    if (queueStatsSource === source) {
      queueStatsSource = undefined;
      latestQueueStats = undefined;
    }
  };
}

/** Queue figures older than this are left out of a scrape rather than shown as current. */
const queueStatsMaxAgeMs = 60_000;
/** A read of the queue figures that takes longer is given up (the next scrape asks again). */
const queueStatsTimeoutMs = 2_000;
let latestQueueStats: { at: number; stats: JobQueueStats[] } | undefined;
let queueStatsRefresh: Promise<void> | undefined;

/**
 * The queue figures for this scrape, without waiting for the database (decision 102): the last
 * ones read (within a minute), and a read started in the background for the next scrape. A
 * scrape during a database outage still answers at once, with the gauges left out (they say
 * nothing rather than 0) once the figures are a minute old.
 */
function queueStatsForScrape(): JobQueueStats[] | undefined {
  const source = queueStatsSource;
  if (source && !queueStatsRefresh) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error('queue figures: no answer in time')),
        queueStatsTimeoutMs,
      );
      timer.unref();
    });
    queueStatsRefresh = Promise.race([source(), timeout])
      .then(
        (stats) => {
          if (queueStatsSource === source) latestQueueStats = { at: Date.now(), stats };
        },
        // The database cannot answer or pg-boss has no tables yet: the old figures age out.
        () => undefined,
      )
      .finally(() => {
        clearTimeout(timer);
        queueStatsRefresh = undefined;
      });
  }
  if (!latestQueueStats || Date.now() - latestQueueStats.at > queueStatsMaxAgeMs) return undefined;
  return latestQueueStats.stats;
}

/** Waits for a background read of the queue figures started by a scrape (tests). */
export async function queueStatsSettled(): Promise<void> {
  await queueStatsRefresh;
}

new Gauge({
  name: 'farmcam_job_queue_depth',
  help: 'Jobs waiting in each queue (created or waiting for a retry), read from pg-boss at scrape.',
  labelNames: ['queue'] as const,
  registers: [registry],
  collect() {
    const stats = queueStatsForScrape();
    this.reset();
    for (const row of stats ?? []) this.labels(row.queue).set(row.depth);
  },
});
new Gauge({
  name: 'farmcam_job_queue_oldest_age_seconds',
  help: 'Seconds the longest-waiting due job of each queue has been due (0 when none is due).',
  labelNames: ['queue'] as const,
  registers: [registry],
  collect() {
    const stats = queueStatsForScrape();
    this.reset();
    for (const row of stats ?? []) this.labels(row.queue).set(row.oldestAgeSeconds);
  },
});

// Providers ------------------------------------------------------------------------------------

const providerCallDuration = new Histogram({
  name: 'farmcam_provider_call_duration_seconds',
  help: 'Calls to outside providers (billing, sim-platform, smtp, s3, ofcom), by operation.',
  labelNames: ['provider', 'operation'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});
const providerCallErrors = new Counter({
  name: 'farmcam_provider_call_errors_total',
  help: 'Calls to outside providers that failed (after the adapter’s own retries), by operation.',
  labelNames: ['provider', 'operation'] as const,
  registers: [registry],
});

observeProviderCalls(({ provider, operation, seconds, isError }) => {
  providerCallDuration.labels(provider, operation).observe(seconds);
  if (isError) providerCallErrors.labels(provider, operation).inc();
});

// Database, storage, disk ---------------------------------------------------------------------

/**
 * The process's last word on the database (lib/database-outage.ts), read without asking it: the
 * readiness check every few seconds and every failed request or heartbeat keep it current.
 */
new Gauge({
  name: 'farmcam_database_reachable',
  help: '1 while this process reaches the database (its last check or query succeeded), 0 during an outage.',
  registers: [registry],
  collect() {
    this.set(databaseOutage.state().state === 'unreachable' ? 0 : 1);
  },
});
new Gauge({
  name: 'farmcam_database_unreachable_seconds',
  help: 'How long this process has been unable to reach the database (0 while it can).',
  registers: [registry],
  collect() {
    const { state, unreachableSince } = databaseOutage.state();
    this.set(
      state === 'unreachable' && unreachableSince
        ? Math.max(0, (Date.now() - Date.parse(unreachableSince)) / 1000)
        : 0,
    );
  },
});
const databaseUnreachableErrors = new Counter({
  name: 'farmcam_database_unreachable_errors_total',
  help: 'Errors meaning the database could not be reached (refused, dropped, connect time-out, shutting down), by cause and where met.',
  labelNames: ['cause', 'source'] as const,
  registers: [registry],
});
databaseOutage.observe(({ cause, source }) =>
  databaseUnreachableErrors.labels(cause, source).inc(),
);

const storageOperations = new Counter({
  name: 'farmcam_storage_operations_total',
  help: 'Clip storage operations (put, copy-to-file, delete) by backend (fs, s3) and outcome (ok, failed).',
  labelNames: ['backend', 'operation', 'outcome'] as const,
  registers: [registry],
});

export const storageOperationNames = ['put', 'copy-to-file', 'delete'] as const;

/** Makes a backend's series exist at zero, so an alert's ratio sees it before the first error. */
export function registerStorageBackend(backend: 'fs' | 's3'): void {
  for (const operation of storageOperationNames) {
    storageOperations.labels(backend, operation, 'ok').inc(0);
    storageOperations.labels(backend, operation, 'failed').inc(0);
  }
}

/** One clip storage operation's outcome (providers/storage/instrumented-storage.ts). */
export function countStorageOperation(
  backend: 'fs' | 's3',
  operation: (typeof storageOperationNames)[number],
  isFailed: boolean,
): void {
  storageOperations.labels(backend, operation, isFailed ? 'failed' : 'ok').inc();
}

/**
 * The file system holding DATA_DIR (recordings being written, timelapses built, and with
 * STORAGE=fs every clip): free and total bytes, read with statfs at scrape (a local call, no
 * database). Unset until the process names its data directory.
 */
let dataDirectory: string | undefined;
export function setDataDirectoryForMetrics(directory: string | undefined): void {
  dataDirectory = directory;
}
async function dataDirectoryStats(): Promise<fs.StatsFs | undefined> {
  if (!dataDirectory) return undefined;
  try {
    return await fs.promises.statfs(dataDirectory);
  } catch {
    return undefined;
  }
}
new Gauge({
  name: 'farmcam_data_dir_free_bytes',
  help: "Bytes free to this process on DATA_DIR's file system (statfs: available blocks × block size).",
  registers: [registry],
  async collect() {
    const stats = await dataDirectoryStats();
    this.reset();
    if (stats) this.set(stats.bavail * stats.bsize);
  },
});
new Gauge({
  name: 'farmcam_data_dir_size_bytes',
  help: "Size in bytes of DATA_DIR's file system.",
  registers: [registry],
  async collect() {
    const stats = await dataDirectoryStats();
    this.reset();
    if (stats) this.set(stats.blocks * stats.bsize);
  },
});

// Domain ---------------------------------------------------------------------------------------

/** Customer recordings; the marketing page's demo clip is not one (docs/decisions/071). */
export type RecordingKind = 'scheduled' | 'immediate';
const recordingKinds: RecordingKind[] = ['scheduled', 'immediate'];

const recordingCounters = {
  started: new Counter({
    name: 'farmcam_recordings_started_total',
    help: 'Customer recordings started, by kind (scheduled, immediate).',
    labelNames: ['kind'] as const,
    registers: [registry],
  }),
  completed: new Counter({
    name: 'farmcam_recordings_completed_total',
    help: 'Customer recordings stored, by kind.',
    labelNames: ['kind'] as const,
    registers: [registry],
  }),
  failed: new Counter({
    name: 'farmcam_recordings_failed_total',
    help: 'Customer recordings that failed (camera, ffmpeg or storage; not a shutdown), by kind.',
    labelNames: ['kind'] as const,
    registers: [registry],
  }),
};
for (const kind of recordingKinds) {
  for (const counter of Object.values(recordingCounters)) counter.labels(kind).inc(0);
}

/**
 * One step of a recording. Started minus completed minus failed is what is recording now or was
 * cut short by a shutdown (handed over, not failed: decision 073).
 */
export function countRecording(kind: RecordingKind, step: keyof typeof recordingCounters): void {
  recordingCounters[step].labels(kind).inc();
}

const loginLinksSent = new Counter({
  name: 'farmcam_login_links_sent_total',
  help: 'Login links handed to the mail server.',
  registers: [registry],
});

/** A login e-mail the mail server accepted. */
export function countLoginLinkSent(): void {
  loginLinksSent.inc();
}

const paymentsSucceeded = new Counter({
  name: 'farmcam_payments_succeeded_total',
  help: 'Card payments that went through, by billing engine (local, stripe).',
  labelNames: ['billing'] as const,
  registers: [registry],
});
const paymentsFailed = new Counter({
  name: 'farmcam_payments_failed_total',
  help: 'Card payments that failed (declined, expired, no card), by billing engine.',
  labelNames: ['billing'] as const,
  registers: [registry],
});

/** Payment attempts' outcome where the billing engine records them (`count` for a batch). */
export function countPayment(billing: 'local' | 'stripe', isPaid: boolean, count = 1): void {
  (isPaid ? paymentsSucceeded : paymentsFailed).labels(billing).inc(count);
}

const billingEventDeliveries = new Counter({
  name: 'farmcam_billing_event_deliveries_total',
  help: "Local billing engine events handed to the app's handlers, by outcome (delivered, retrying: a handler failed and it is tried again later, gave_up: failing for three days).",
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** One delivery of a local billing engine event (decision 077). */
export function countBillingEventDelivery(outcome: 'delivered' | 'retrying' | 'gave_up'): void {
  billingEventDeliveries.labels(outcome).inc();
}

// Mail (SMTP mode: the queue the workers deliver, docs/decisions/104) ---------------------------

export const mailDeliveryOutcomes = ['sent', 'retrying', 'expired', 'skipped', 'failed'] as const;
export type MailDeliveryOutcome = (typeof mailDeliveryOutcomes)[number];

const mailDeliveries = new Counter({
  name: 'farmcam_mail_deliveries_total',
  help: 'E-mails the queue settled or tried, by kind and outcome: sent; retrying (refused for now, tried again later); expired (too late to be of use: a login e-mail after its link’s life); skipped (nothing left to send); failed (given up: refused for good, or three days undelivered).',
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
});
const mailServerUnreachable = new Gauge({
  name: 'farmcam_mail_server_unreachable',
  help: '1 while this worker cannot reach the mail server (its e-mails wait in the queue), else 0.',
  registers: [registry],
});
const mailQueueWaiting = new Gauge({
  name: 'farmcam_mail_queue_waiting',
  help: 'E-mails not yet delivered (queued or being sent), as this worker last counted them.',
  registers: [registry],
});
const mailQueueOldestAge = new Gauge({
  name: 'farmcam_mail_queue_oldest_age_seconds',
  help: 'Seconds the oldest e-mail not yet delivered has waited, as this worker last read it.',
  registers: [registry],
});

/** Makes the series of every kind exist at zero, so rate() and alerts see them before a failure. */
export function registerMailKinds(kinds: readonly string[]): void {
  for (const kind of kinds) {
    for (const outcome of mailDeliveryOutcomes) mailDeliveries.labels(kind, outcome).inc(0);
  }
  mailServerUnreachable.set(0);
}

/** One e-mail settled or tried by the queue. */
export function countMailDelivery(kind: string, outcome: MailDeliveryOutcome): void {
  mailDeliveries.labels(kind, outcome).inc();
}

/** Whether this worker can reach the mail server now. */
export function setMailServerUnreachable(isUnreachable: boolean): void {
  mailServerUnreachable.set(isUnreachable ? 1 : 0);
}

/** The queue as a worker last read it (the scrape itself never asks the database). */
export function setMailQueueBacklog(waiting: number, oldestAgeSeconds: number): void {
  mailQueueWaiting.set(waiting);
  mailQueueOldestAge.set(oldestAgeSeconds);
}

// Push and SMS alerts (decisions 123, 124) ------------------------------------------------------

const notificationDeliveryOutcomes = [
  'sent',
  'retry',
  'failed',
  'gone',
  'over-limit',
  'skipped',
] as const;
const notificationDeliveries = new Counter({
  name: 'farmcam_notification_deliveries_total',
  help: 'Push and SMS alerts the delivery job settled or tried, by channel and outcome: sent; retry (the provider could not be reached, tried again later); failed (refused for good, or the retries ran out); gone (a push device the push service no longer knows, removed); over-limit (past the daily SMS, summarised by e-mail); skipped (nothing left to send to).',
  labelNames: ['channel', 'outcome'] as const,
  registers: [registry],
});
for (const channel of ['push', 'sms']) {
  for (const outcome of notificationDeliveryOutcomes) {
    notificationDeliveries.labels(channel, outcome).inc(0);
  }
}

/** One push or SMS alert settled or tried by the delivery job. */
export function recordNotificationDelivery(
  channel: 'push' | 'sms',
  outcome: (typeof notificationDeliveryOutcomes)[number],
): void {
  notificationDeliveries.labels(channel, outcome).inc();
}

// Live view (issue 27, decisions 151-159) --------------------------------------------------------

const liveViewStarts = new Counter({
  name: 'farmcam_live_view_starts_total',
  help: 'Live view pulls a worker started, by outcome (picture: the first segment was stored; failed: the camera or ffmpeg failed first).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
for (const outcome of ['picture', 'failed']) liveViewStarts.labels(outcome).inc(0);
const liveViewStartSeconds = new Histogram({
  name: 'farmcam_live_view_start_seconds',
  help: 'From a viewer asking to watch to the first stored segment (the first picture a player can show).',
  buckets: [0.5, 1, 1.5, 2, 3, 4, 6, 10],
  registers: [registry],
});
const liveViewBytes = new Counter({
  name: 'farmcam_live_view_bytes_pulled_total',
  help: 'Video bytes live view pulled from cameras (each counts against its plan).',
  registers: [registry],
});
const liveViewPulls = new Gauge({
  name: 'farmcam_live_view_sessions',
  help: 'Cameras this process pulls live now.',
  registers: [registry],
});
const liveViewViewers = new Gauge({
  name: 'farmcam_live_view_viewers',
  help: 'People watching the cameras this process pulls.',
  registers: [registry],
});

/** A pull's first segment stored (`secondsToPicture` from the ask), or its failure before one. */
export function countLiveViewStart(outcome: 'picture' | 'failed', secondsToPicture?: number): void {
  liveViewStarts.labels(outcome).inc();
  if (secondsToPicture !== undefined) liveViewStartSeconds.observe(secondsToPicture);
}

export function countLiveViewBytes(bytes: number): void {
  if (bytes > 0) liveViewBytes.inc(bytes);
}

/** What this process pulls now: cameras, and people watching them. */
export function setLiveViewLoad(sessions: number, viewers: number): void {
  liveViewPulls.set(sessions);
  liveViewViewers.set(viewers);
}
