/**
 * The database stopped for real under running processes (docs/decisions/102): a PostgreSQL server
 * of the test's own (never the machine's shared one), an API and a worker on it, the server shut
 * down for 40 s and started again. Meanwhile the API answers 503 with Retry-After and a farmer's
 * sentence, both processes log at most one line per cause per 10 s with no SQL or bound value,
 * /metrics and the probes answer (readyz `degraded`, 200), and afterwards no process was declared
 * dead, even the API, which comes back 5 s after the database (SIGSTOP/SIGCONT): the worker, back
 * first, would otherwise judge its 45 s of silence.
 *
 * In `npm run test:pg` (it needs TEST_DATABASE_URL set only to run with the PostgreSQL suite, and
 * `initdb`/`postgres` installed, which scripts/ensure-system-deps.sh provides). About 90 s.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  sleep,
  startServerProcess,
  stopServerProcess,
  START_UP_MS,
  waitFor,
  waitUntilReady,
  type ServerProcess,
} from '../test/helpers/server-processes.ts';
import {
  postgresBinaries,
  startThrowawayPostgres,
  type ThrowawayPostgres,
} from '../test/helpers/throwaway-postgres.ts';
import { databaseUnavailableAnswer } from './plugins/error-handler.ts';

const metricsToken = randomBytes(32).toString('hex');
const outageMs = 40_000;
/** A session token nobody holds: the API must look it up in the database to refuse it. */
const strangerToken = randomBytes(32).toString('base64url');

interface LogLine {
  level: number;
  msg: string;
  cause?: string;
}

const jsonLines = (text: string): LogLine[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

const readyz = async (server: ServerProcess) => {
  const response = await fetch(`${server.baseUrl}/api/readyz`);
  return {
    status: response.status,
    body: (await response.json()) as { status: string; reasons: string[] },
  };
};

const scrape = async (server: ServerProcess) => {
  const response = await fetch(`${server.baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  return { status: response.status, text: await response.text() };
};

const userData = () =>
  fetch(`${apiUrl}/api/auth/user-data`, {
    headers: { authorization: `Bearer ${strangerToken}` },
    signal: AbortSignal.timeout(15_000),
  });

let apiUrl = '';

describe.skipIf(!process.env.TEST_DATABASE_URL || !postgresBinaries())(
  'a PostgreSQL outage under an API and a worker (a throwaway server of its own: npm run test:pg)',
  () => {
    let database: ThrowawayPostgres;
    let api: ServerProcess;
    let worker: ServerProcess;

    beforeAll(async () => {
      database = await startThrowawayPostgres();
      const environment = { METRICS_TOKEN: metricsToken, DEMO_DATA: 'false' };
      // One after the other: both migrate under the advisory lock anyway.
      api = await startServerProcess(database.url, {
        name: 'the API',
        environment: { ...environment, ROLE: 'api' },
      });
      apiUrl = api.baseUrl;
      worker = await startServerProcess(database.url, {
        name: 'the worker',
        environment: { ...environment, ROLE: 'worker' },
      });
      await Promise.all([api, worker].map((server) => waitUntilReady(server)));
    }, START_UP_MS + 10_000);

    afterAll(async () => {
      for (const server of [api, worker]) {
        // A process left stopped by a failed test must be able to hear SIGTERM.
        if (server?.child.pid) process.kill(-server.child.pid, 'SIGCONT');
      }
      await Promise.all([stopServerProcess(api, 10_000), stopServerProcess(worker, 10_000)]);
      await database?.destroy();
    });

    it('answers 503, logs little and no SQL, keeps probes and metrics up, and declares no one dead', async () => {
      expect((await userData()).status).toBe(401);
      const logOffsets = { api: api.output().length, worker: worker.output().length };

      await database.stop();
      const outageStarted = performance.now();
      const answers: number[] = [];
      let lastAnswer: Response | undefined;
      let sawDegraded = { api: false, worker: false };
      let sawMetricsDown = { api: false, worker: false };
      while (performance.now() - outageStarted < outageMs) {
        const answer = await userData();
        answers.push(answer.status);
        lastAnswer = answer;
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('30');
        expect(await answer.json()).toEqual(databaseUnavailableAnswer);
        for (const [name, server] of [
          ['api', api],
          ['worker', worker],
        ] as const) {
          expect((await fetch(`${server.baseUrl}/api/healthz`)).status).toBe(200);
          const ready = await readyz(server);
          // The load balancer keeps the instance: the API's 503 says what is wrong.
          expect(ready.status).toBe(200);
          if (ready.body.status === 'degraded') {
            expect(ready.body.reasons[0]).toMatch(/^database unreachable \(/);
            sawDegraded = { ...sawDegraded, [name]: true };
          }
          const metrics = await scrape(server);
          expect(metrics.status).toBe(200);
          if (/^farmcam_database_reachable 0$/m.test(metrics.text)) {
            sawMetricsDown = { ...sawMetricsDown, [name]: true };
          }
        }
        await sleep(200);
      }
      expect(lastAnswer).toBeDefined();
      expect(answers.length).toBeGreaterThan(40);
      expect(sawDegraded).toEqual({ api: true, worker: true });
      expect(sawMetricsDown).toEqual({ api: true, worker: true });

      // The API comes back 5 s after the database (a slow process): the worker, back first,
      // must not count the database's silence as the API's.
      process.kill(-(api.child.pid as number), 'SIGSTOP');
      await database.start();
      const restartedAt = new Date();
      await sleep(5_000);
      process.kill(-(api.child.pid as number), 'SIGCONT');
      await waitFor(
        'the API answering from the database again',
        async () => (await userData()).status === 401,
        {
          timeoutMs: 30_000,
          watch: [api, worker],
        },
      );
      await waitFor(
        'both processes ready and beating again',
        async () => {
          if ((await readyz(api)).body.status !== 'ready') return false;
          if ((await readyz(worker)).body.status !== 'ready') return false;
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          try {
            const { rows } = await client.query<{ fresh: number }>(
              'select count(*)::int as fresh from instances where heartbeat_at > $1',
              [restartedAt],
            );
            return rows[0]!.fresh === 2;
          } finally {
            await client.end();
          }
        },
        { timeoutMs: 40_000, watch: [api, worker] },
      );
      // The worker's recovery step runs after each of its heartbeats: give it two more.
      await sleep(22_000);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query<{ role: string; gone_at: Date | null }>(
        'select role, gone_at from instances order by role',
      );
      await client.end();
      expect(rows).toEqual([
        { role: 'api', gone_at: null },
        { role: 'worker', gone_at: null },
      ]);

      const outageSeconds = (performance.now() - outageStarted) / 1000;
      for (const [name, server] of [
        ['api', api],
        ['worker', worker],
      ] as const) {
        const text = server.output().slice(logOffsets[name]);
        expect(text, `${name} declared someone dead`).not.toContain('Processes found dead');
        const lines = jsonLines(text);
        // No SQL statement or bound value in any line (drizzle's "Failed query: …\nparams: …").
        for (const line of text.split('\n')) {
          expect(line).not.toMatch(
            /\b(select|insert into|update|delete from)\b[^"]{0,80}\b(from|values|set|where)\b/i,
          );
          expect(line).not.toContain('params:');
          expect(line).not.toContain(strangerToken);
        }
        const problems = lines.filter((line) => line.level >= 40);
        const byCause = new Map<string, number>();
        for (const line of problems) {
          if (line.cause) byCause.set(line.cause, (byCause.get(line.cause) ?? 0) + 1);
        }
        expect(byCause.size, `${name}: ${JSON.stringify(problems)}`).toBeGreaterThan(0);
        for (const [cause, count] of byCause) {
          expect(count, `${name}: lines for ${cause}`).toBeLessThanOrEqual(
            Math.ceil(outageSeconds / 10) + 1,
          );
        }
        // Besides the outage's own lines: the readiness changes and "reachable again".
        expect(
          problems.filter((line) => !line.cause).length,
          `${name}: ${text}`,
        ).toBeLessThanOrEqual(4);
      }
    }, 180_000);
  },
);
