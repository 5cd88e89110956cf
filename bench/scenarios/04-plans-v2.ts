/**
 * The dashboard's camera list, GET /api/cameras/plansV2 (issue 3 budgets):
 * - a 10-camera account (demo@example.com) under the default load, as a ratio of the bare Fastify
 *   hello world (target >= 0.1), with the portal as configured by default (camera-list cache on);
 * - a 1,000-camera account in a database of 10,000 SIMs x 400 days of usage (4 million rows),
 *   seeded before a second portal starts on it with the cache off, so that every request runs
 *   the query: latency of one request at a time (target p50 <= 15 ms, issue 15; it was 50 ms in
 *   issue 3), on the embedded database and on PostgreSQL (a second portal with DATABASE_URL on a
 *   fresh database bench_plans_<pid> at BENCH_POSTGRES_URL, dropped after; no server there is a
 *   note).
 * BENCH_SCALE=0 skips the scale part (it adds about two minutes per database, mostly seeding);
 * BENCH_SCALE_DATABASES (pglite,postgres) picks the databases.
 */
import { signIn } from '../lib/auth.ts';
import { postgresServerUrl, withBenchDatabase } from '../lib/postgres.ts';
import { startPortal, type RunningServer } from '../lib/servers.ts';
import type { BenchContext } from '../lib/types.ts';
import { cpuRatio } from '../lib/load.ts';
import { metric, type Metric, type Scenario } from '../lib/types.ts';
import {
  scaleAccountCameras,
  scaleAccountEmail,
  scaleSimCount,
  scaleUsageDays,
  seedScaleData,
} from './support/scale-data.ts';

const name = 'plans-v2';
const scaleDatabases = (process.env.BENCH_SCALE_DATABASES || 'pglite,postgres').split(',');

async function cameraCount(baseUrl: string, token: string): Promise<number> {
  const response = await fetch(`${baseUrl}/api/cameras/plansV2`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`plansV2 answered ${response.status}`);
  const body = (await response.json()) as { cameras: unknown[] };
  return body.cameras.length;
}

const scenario: Scenario = {
  name,
  async run(context) {
    const metrics: Metric[] = [];
    const details: Record<string, unknown> = {};

    // 10 cameras, default load, against the hello baseline.
    const demoCameras = await cameraCount(context.baseUrl, context.customerToken);
    const hello = await context.load({ title: 'hello GET /', url: `${context.helloUrl}/` });
    const small = await context.load({
      title: `portal GET /api/cameras/plansV2 (${demoCameras} cameras)`,
      url: `${context.baseUrl}/api/cameras/plansV2`,
      headers: { authorization: `Bearer ${context.customerToken}` },
    });
    context.log(
      `plansV2 (${demoCameras} cameras): ${small.requestsPerSecond.toFixed(0)} req/s, hello ` +
        `${hello.requestsPerSecond.toFixed(0)} req/s, p50 ${small.latencyMs.p50} ms`,
    );
    details.small = { hello, plansV2: small, cameras: demoCameras };
    metrics.push(
      metric(name, `plansV2 ${demoCameras}-camera throughput`, small.requestsPerSecond, 'req/s'),
      metric(
        name,
        `plansV2 ${demoCameras}-camera / hello ratio`,
        Number((small.requestsPerSecond / hello.requestsPerSecond).toFixed(3)),
        'x',
        { atLeast: 0.1 },
      ),
      metric(
        name,
        `plansV2 ${demoCameras}-camera: server CPU per request`,
        small.serverCpuMicroseconds,
        'µs',
      ),
      metric(
        name,
        `plansV2 ${demoCameras}-camera / hello: server CPU per request`,
        cpuRatio(small, hello),
        'x',
      ),
      metric(
        name,
        `plansV2 ${demoCameras}-camera p50 latency (${small.connections} conn.)`,
        small.latencyMs.p50,
        'ms',
      ),
      metric(
        name,
        `plansV2 ${demoCameras}-camera p99 latency (${small.connections} conn.)`,
        small.latencyMs.p99,
        'ms',
      ),
    );

    if (process.env.BENCH_SCALE === '0') {
      return { metrics, details };
    }

    // 1,000 cameras among 10,000 SIMs x 400 days, the cache off: every request runs the query.
    if (scaleDatabases.includes('pglite')) {
      const started = Date.now();
      context.log(`seeding ${scaleSimCount} SIMs x ${scaleUsageDays} days of usage (PGlite)...`);
      const portal = await startPortal(context.rootDir, {
        prepareDataDir: (dataDir) => seedScaleData({ dataDir }, context.log),
        env: { PLANS_CACHE_SECONDS: '0' },
      });
      context.log(`scale portal ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      const large = await measureScale(context, portal, '');
      details.large = large.details;
      metrics.push(...large.metrics);
    }
    if (scaleDatabases.includes('postgres')) {
      const measured = await withBenchDatabase('plans', context.log, async (url) => {
        const started = Date.now();
        context.log(
          `seeding ${scaleSimCount} SIMs x ${scaleUsageDays} days of usage (PostgreSQL)...`,
        );
        await seedScaleData({ url }, context.log);
        const portal = await startPortal(context.rootDir, {
          databaseUrl: url,
          env: { PLANS_CACHE_SECONDS: '0' },
        });
        context.log(
          `PostgreSQL scale portal ready in ${((Date.now() - started) / 1000).toFixed(0)} s`,
        );
        return measureScale(context, portal, 'PostgreSQL: ');
      });
      if (measured) {
        details.largePostgres = measured.details;
        metrics.push(...measured.metrics);
      } else {
        metrics.push({
          ...metric(name, 'PostgreSQL: plansV2 1000-camera p50', null, 'ms'),
          note: `no PostgreSQL server at ${postgresServerUrl} (BENCH_POSTGRES_URL)`,
        });
      }
    }
    return { metrics, details };
  },
};

/** One request at a time against the scale portal (stopped afterwards). */
async function measureScale(context: BenchContext, portal: RunningServer, label: string) {
  try {
    const token = await signIn(portal.baseUrl, scaleAccountEmail);
    const coldStarted = performance.now();
    const cameras = await cameraCount(portal.baseUrl, token);
    const coldMs = performance.now() - coldStarted;
    if (cameras !== scaleAccountCameras) {
      throw new Error(`${scaleAccountEmail} has ${cameras} cameras, not ${scaleAccountCameras}`);
    }
    const large = await context.load({
      title: `${label}portal GET /api/cameras/plansV2 (${cameras} cameras, no cache)`,
      url: `${portal.baseUrl}/api/cameras/plansV2`,
      headers: { authorization: `Bearer ${token}` },
      connections: 1,
      serverProcessGroup: portal.process.child.pid,
    });
    context.log(
      `${label}plansV2 (${cameras} cameras, no cache, one request at a time): p50 ` +
        `${large.latencyMs.p50} ms, p99 ${large.latencyMs.p99} ms, first ${coldMs.toFixed(0)} ms`,
    );
    return {
      details: { ...large, firstRequestMs: coldMs, cameras },
      metrics: [
        metric(
          name,
          `${label}plansV2 ${cameras}-camera p50 (10k SIMs x 400 days, no cache)`,
          large.latencyMs.p50,
          'ms',
          { atMost: 15 },
        ),
        metric(name, `${label}plansV2 ${cameras}-camera p99 (no cache)`, large.latencyMs.p99, 'ms'),
        metric(
          name,
          `${label}plansV2 ${cameras}-camera: server CPU per request (no cache)`,
          large.serverCpuMicroseconds,
          'µs',
        ),
        metric(
          name,
          `${label}plansV2 ${cameras}-camera first request (cold)`,
          Math.round(coldMs),
          'ms',
        ),
      ],
    };
  } finally {
    await portal.stop();
  }
}

export default scenario;
