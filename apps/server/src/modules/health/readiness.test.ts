import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows } from '../../db/client.ts';
import { startJobs, type JobRunner } from '../../jobs/job-runner.ts';
import { trackProviderCall } from '../../lib/provider-calls.ts';
import { createDatabaseOutage } from '../../lib/database-outage.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import {
  createReadiness,
  defaultMigrationsFolder,
  latestMigrationOf,
  type Readiness,
  type ReadinessReport,
} from './readiness.ts';

let context: TestContext;
let readiness: Readiness;
let jobs: JobRunner | undefined;

beforeAll(async () => {
  context = await createTestContext({}, undefined, ({ database }) => {
    readiness = createReadiness({ database });
    return { readiness };
  });
});
afterAll(async () => {
  await jobs?.stop();
  await context.close();
});

/** The background check runs now (it runs every 5 s in a process), then the probe answers. */
async function readyz() {
  await readiness.refresh();
  const response = await context.app.inject({ method: 'GET', url: '/api/readyz' });
  return { statusCode: response.statusCode, report: response.json<ReadinessReport>() };
}

describe('/api/readyz', () => {
  it('is not ready before the job queue is set up, and says so', async () => {
    const { statusCode, report } = await readyz();
    expect(statusCode).toBe(503);
    expect(report.status).toBe('not-ready');
    expect(report.checks).toEqual({ database: 'ok', migrations: 'ok', jobQueue: 'failing' });
    expect(report.reasons).toEqual(['job queue not set up (no pgboss schema)']);
  });

  it('is ready with the database migrated and the job queue set up', async () => {
    jobs = await startJobs(context.database, [], { onError: () => {}, mode: 'send-only' });
    const { statusCode, report } = await readyz();
    expect(statusCode).toBe(200);
    expect(report).toMatchObject({
      status: 'ready',
      reasons: [],
      checks: { database: 'ok', migrations: 'ok', jobQueue: 'ok' },
    });
    expect(Object.keys(report.providers).sort()).toEqual(
      ['billing', 'ofcom', 'push', 's3', 'sim-platform', 'sms', 'smtp'].sort(),
    );
  });

  it('reports a failing provider without leaving the load balancer, and keeps its error text private', async () => {
    await trackProviderCall('smtp', 'send', async () => {
      throw new Error('connect ECONNREFUSED 10.1.2.3:465');
    }).catch(() => undefined);
    const { statusCode, report } = await readyz();
    expect(statusCode).toBe(200);
    expect(report.providers.smtp).toEqual({ state: 'failing', at: expect.any(String) });
    expect(JSON.stringify(report)).not.toContain('10.1.2.3');
  });

  it('is not ready when the database lacks this build’s latest migration', async () => {
    const [latest] = await queryRows<{ id: number; hash: string; created_at: string }>(
      context.database.db,
      sql`select id, hash, created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
    );
    await context.database.db.execute(
      sql`delete from drizzle.__drizzle_migrations where id = ${latest!.id}`,
    );
    try {
      const { statusCode, report } = await readyz();
      expect(statusCode).toBe(503);
      expect(report.checks.migrations).toBe('failing');
      expect(report.reasons).toEqual([
        expect.stringMatching(/^database migrations behind: this build needs \d{4}_/),
      ]);
    } finally {
      await context.database.db.execute(
        sql`insert into drizzle.__drizzle_migrations (id, hash, created_at) values (${latest!.id}, ${latest!.hash}, ${latest!.created_at})`,
      );
    }
    expect((await readyz()).statusCode).toBe(200);
  });

  it('answers draining at once once the shutdown began, while liveness stays 200', async () => {
    readiness.startDraining();
    const { statusCode, report } = await readyz();
    expect(statusCode).toBe(503);
    expect(report).toMatchObject({
      status: 'draining',
      reasons: ['draining: this instance is shutting down'],
      checks: { database: 'not-checked', migrations: 'not-checked', jobQueue: 'not-checked' },
    });
    const health = await context.app.inject({ method: 'GET', url: '/api/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
  });
});

describe('readiness checks', () => {
  const outage = () => createDatabaseOutage();

  it('says a closed database is this instance’s own problem: not ready, without checking the rest', async () => {
    const database = await openDatabase({ kind: 'memory' });
    await database.close();
    const report = await createReadiness({ database, timeoutMs: 200, outage: outage() }).refresh();
    expect(report.status).toBe('not-ready');
    expect(report.checks).toEqual({
      database: 'failing',
      migrations: 'not-checked',
      jobQueue: 'not-checked',
    });
    expect(report.reasons).toEqual([expect.stringMatching(/^database unusable \(/)]);
  });

  it('stays in the load balancer while the database is unreachable: degraded, 200, the cause and since when', async () => {
    const refused = {
      executeSql: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), {
          code: 'ECONNREFUSED',
        });
      },
    };
    const report = await createReadiness({ database: refused, outage: outage() }).refresh();
    expect(report.status).toBe('degraded');
    expect(report.checks.database).toBe('failing');
    expect(report.reasons).toEqual([
      expect.stringMatching(
        /^database unreachable \(ECONNREFUSED\) since \d{4}-\d\d-\d\dT[\d:.]+Z: requests that need it answer 503$/,
      ),
    ]);
    expect(JSON.stringify(report)).not.toContain('10.0.0.5');
  });

  it('gives up on a database that does not answer, so the check never piles up', async () => {
    const hanging = { executeSql: () => new Promise<never>(() => {}) };
    const report = await createReadiness({
      database: hanging,
      timeoutMs: 20,
      outage: outage(),
    }).refresh();
    expect(report.status).toBe('degraded');
    expect(report.reasons).toEqual([
      expect.stringMatching(/^database unreachable \(no answer within 0\.02 s\) since /),
    ]);
  });

  it('answers from the kept state: probes never query the database', async () => {
    let queries = 0;
    const counting = {
      executeSql: async () => {
        queries += 1;
        return { rows: [] };
      },
    };
    const checks = createReadiness({ database: counting, outage: outage() });
    // Before the first check: not ready, and nothing asked.
    expect(await checks.check()).toMatchObject({
      status: 'not-ready',
      reasons: ['starting: not checked yet'],
    });
    expect(queries).toBe(0);
    await checks.refresh();
    const afterCheck = queries;
    for (let probe = 0; probe < 20; probe += 1) await checks.check();
    expect(queries).toBe(afterCheck);
  });

  it('reports an outage a request met since the last check, and its end', async () => {
    const state = outage();
    const latest = latestMigrationOf(defaultMigrationsFolder);
    // A database that holds this build's migrations and the job queue.
    const ok = {
      executeSql: async (text: string) => ({
        rows: text.includes('__drizzle_migrations')
          ? [{ hash: latest.hash, created_at: latest.createdAt }]
          : [{ version: 24 }],
      }),
    };
    const checks = createReadiness({ database: ok, outage: state });
    expect((await checks.refresh()).status).toBe('ready');
    await checks.refresh();
    state.noteUnreachable('57P01', { source: 'request' });
    expect((await checks.check()).status).toBe('degraded');
    expect((await checks.check()).reasons[0]).toMatch(/^database unreachable \(57P01\)/);
    state.noteReachable();
    expect((await checks.check()).checks.database).toBe('ok');
  });

  it('answers draining without asking the database', async () => {
    let queries = 0;
    const counting = {
      executeSql: async () => {
        queries += 1;
        return { rows: [] };
      },
    };
    const draining = createReadiness({ database: counting, outage: outage() });
    draining.startDraining();
    expect((await draining.check()).status).toBe('draining');
    expect(draining.isDraining).toBe(true);
    expect(queries).toBe(0);
  });

  it('logs a change of status once, not at every probe or check', async () => {
    const warnings: unknown[] = [];
    const failing = {
      executeSql: async () => {
        throw Object.assign(new Error('password authentication failed'), { code: '28P01' });
      },
    };
    const checks = createReadiness({
      database: failing,
      outage: outage(),
      log: { warn: (details) => warnings.push(details), info: () => {} },
    });
    await checks.refresh();
    await checks.refresh();
    await checks.check();
    expect(warnings).toEqual([{ status: 'not-ready', reasons: ['database unusable (28P01)'] }]);
  });
});
