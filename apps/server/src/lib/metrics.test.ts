import Fastify, { type FastifyInstance } from 'fastify';
import PgBoss from 'pg-boss';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DatabaseHandle } from '../db/client.ts';
import { startJobs, type JobRunner } from '../jobs/job-runner.ts';
import { metricsPlugin } from '../plugins/metrics.ts';
import { startFakeOfcomApi } from '../../test/fakes/fake-ofcom-api.ts';
import { createOfcomCoverageProvider } from '../providers/coverage/ofcom-coverage.ts';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import { createJobQueueStatsReader, registry } from './metrics.ts';

// The job, queue and provider metrics on the real pg-boss (PGlite, or PostgreSQL with
// TEST_DATABASE_URL) and the fake Ofcom API, read back the way Prometheus reads them.
const metricsToken = 'a-metrics-token-of-more-than-32-characters';
let database: DatabaseHandle;
let app: FastifyInstance;

beforeAll(async () => {
  database = await openTestDatabase();
  app = Fastify();
  await app.register(metricsPlugin, { token: metricsToken, database });
  await app.ready();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await database?.close();
});

async function scrape(): Promise<string> {
  const answer = await app.inject({
    url: '/metrics',
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  expect(answer.statusCode).toBe(200);
  return answer.body;
}

function sampleValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('job metrics', () => {
  let runner: JobRunner;
  afterAll(async () => runner?.stop());

  it('counts each failed run, and a failure for good once no retry is left', async () => {
    runner = await startJobs(
      database,
      [
        {
          name: 'metrics-test-failing',
          payload: z.object({}),
          retry: { limit: 1, delaySeconds: 0, isBackoff: false },
          async handle() {
            throw new Error('the job broke');
          },
        },
      ],
      { onError: () => undefined, pollingIntervalSeconds: 0.5 },
    );
    // Registered queues are there at zero before anything ran.
    const before = await scrape();
    expect(sampleValue(before, 'farmcam_job_failures_total{queue="metrics-test-failing"}')).toBe(0);

    await runner.queue.send('metrics-test-failing', {});
    await vi.waitFor(
      async () =>
        expect(
          sampleValue(await scrape(), 'farmcam_job_failures_total{queue="metrics-test-failing"}'),
        ).toBe(1),
      { timeout: 20_000, interval: 200 },
    );
    const text = await scrape();
    // The first attempt and its one retry both failed.
    expect(
      sampleValue(text, 'farmcam_job_runs_total{queue="metrics-test-failing",outcome="failed"}'),
    ).toBe(2);
    expect(
      sampleValue(
        text,
        'farmcam_job_duration_seconds_count{queue="metrics-test-failing",outcome="failed"}',
      ),
    ).toBe(2);
  }, 30_000);
});

describe('job queue gauges', () => {
  let boss: PgBoss;
  beforeAll(async () => {
    // A queue with no worker, so what is sent stays waiting.
    boss = database.connectionString
      ? new PgBoss({ connectionString: database.connectionString, max: 2 })
      : new PgBoss({ db: { executeSql: database.executeSql } });
    boss.on('error', () => undefined);
    await boss.start();
    await boss.createQueue('metrics-test-waiting');
    await boss.createQueue('metrics-test-idle');
  }, 60_000);
  afterAll(async () => boss?.stop({ graceful: false, wait: true }));

  it('reports the jobs waiting per queue and how long the oldest due one has waited', async () => {
    for (let index = 0; index < 3; index += 1) await boss.send('metrics-test-waiting', { index });
    // Queued for later: waiting, but not late.
    await boss.send('metrics-test-waiting', { later: true }, { startAfter: 3600 });
    await database.executeSql(
      `update pgboss.job set start_after = now() - interval '90 seconds'
        where id = (select id from pgboss.job
                     where name = 'metrics-test-waiting' and data->>'index' = '0')`,
      [],
    );
    // A fresh reader: the plugin's keeps its answer for a few seconds.
    const stats = await createJobQueueStatsReader(database)();
    expect(stats.find((row) => row.queue === 'metrics-test-waiting')).toMatchObject({
      depth: 4,
    });
    const oldest = stats.find((row) => row.queue === 'metrics-test-waiting')!.oldestAgeSeconds;
    expect(oldest).toBeGreaterThanOrEqual(90);
    expect(oldest).toBeLessThan(150);
    expect(stats.find((row) => row.queue === 'metrics-test-idle')).toEqual({
      queue: 'metrics-test-idle',
      depth: 0,
      oldestAgeSeconds: 0,
    });

    await vi.waitFor(
      async () => {
        const text = await scrape();
        expect(sampleValue(text, 'farmcam_job_queue_depth{queue="metrics-test-waiting"}')).toBe(4);
        expect(
          sampleValue(text, 'farmcam_job_queue_oldest_age_seconds{queue="metrics-test-waiting"}'),
        ).toBeGreaterThanOrEqual(90);
        expect(sampleValue(text, 'farmcam_job_queue_depth{queue="metrics-test-idle"}')).toBe(0);
      },
      { timeout: 10_000, interval: 500 },
    );
  }, 30_000);

  it('keeps one answer for a few seconds, so frequent scrapes cost one query', async () => {
    let nowMs = 0;
    let queries = 0;
    const reader = createJobQueueStatsReader(
      {
        executeSql: async (text, values) => {
          queries += 1;
          return database.executeSql(text, values);
        },
      },
      { cacheMilliseconds: 5_000, now: () => nowMs },
    );
    await reader();
    nowMs = 4_999;
    await reader();
    expect(queries).toBe(1);
    nowMs = 5_000;
    await reader();
    expect(queries).toBe(2);
  });
});

describe('provider call metrics', () => {
  it('times each Ofcom lookup and counts the failed ones', async () => {
    const fake = await startFakeOfcomApi();
    try {
      const ofcom = createOfcomCoverageProvider({
        apiUrl: fake.url,
        apiKey: fake.apiKey,
        maxAttempts: 1,
      });
      const durationCount =
        'farmcam_provider_call_duration_seconds_count{provider="ofcom",operation="lookup"}';
      const errors = 'farmcam_provider_call_errors_total{provider="ofcom",operation="lookup"}';
      const before = await scrape();
      await ofcom.lookup('EX363LH');
      fake.script({ status: 503, body: { message: 'down' } });
      await expect(ofcom.lookup('EX363LH')).rejects.toThrow();
      const after = await scrape();
      expect(
        (sampleValue(after, durationCount) ?? 0) - (sampleValue(before, durationCount) ?? 0),
      ).toBe(2);
      expect((sampleValue(after, errors) ?? 0) - (sampleValue(before, errors) ?? 0)).toBe(1);
    } finally {
      await fake.close();
    }
  });
});

describe('the registry', () => {
  it('holds every farmcam metric under its documented name', async () => {
    const names = (await registry.getMetricsAsJSON()).map((metric) => metric.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'farmcam_http_requests_total',
        'farmcam_http_request_duration_seconds',
        'farmcam_http_server_errors_total',
        'farmcam_job_runs_total',
        'farmcam_job_failures_total',
        'farmcam_job_duration_seconds',
        'farmcam_job_queue_depth',
        'farmcam_job_queue_oldest_age_seconds',
        'farmcam_provider_call_duration_seconds',
        'farmcam_provider_call_errors_total',
        'farmcam_recordings_started_total',
        'farmcam_recordings_completed_total',
        'farmcam_recordings_failed_total',
        'farmcam_login_links_sent_total',
        'farmcam_payments_succeeded_total',
        'farmcam_payments_failed_total',
      ]),
    );
  });
});
