import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows } from '../../db/client.ts';
import { startJobs, type JobRunner } from '../../jobs/job-runner.ts';
import { trackProviderCall } from '../../lib/provider-calls.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { createReadiness, type Readiness, type ReadinessReport } from './readiness.ts';

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

async function readyz() {
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
      ['billing', 'ofcom', 's3', 'sim-platform', 'smtp'].sort(),
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
  it('says the database is unreachable when it is closed, without checking the rest', async () => {
    const database = await openDatabase({ kind: 'memory' });
    await database.close();
    const report = await createReadiness({ database, timeoutMs: 200 }).check();
    expect(report.status).toBe('not-ready');
    expect(report.checks).toEqual({
      database: 'failing',
      migrations: 'not-checked',
      jobQueue: 'not-checked',
    });
    expect(report.reasons).toEqual([expect.stringMatching(/^database unreachable \(/)]);
  });

  it('gives up on a database that does not answer, so the probe answers in time', async () => {
    const hanging = { executeSql: () => new Promise<never>(() => {}) };
    const report = await createReadiness({ database: hanging, timeoutMs: 20 }).check();
    expect(report.reasons).toEqual(['database unreachable (no answer within 0.02 s)']);
  });

  it('answers draining without asking the database', async () => {
    let queries = 0;
    const counting = {
      executeSql: async () => {
        queries += 1;
        return { rows: [] };
      },
    };
    const draining = createReadiness({ database: counting });
    draining.startDraining();
    expect((await draining.check()).status).toBe('draining');
    expect(draining.isDraining).toBe(true);
    expect(queries).toBe(0);
  });

  it('logs a change of status once, not at every probe', async () => {
    const warnings: unknown[] = [];
    const failing = {
      executeSql: async () => {
        throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
      },
    };
    const checks = createReadiness({
      database: failing,
      log: { warn: (details) => warnings.push(details), info: () => {} },
    });
    await checks.check();
    await checks.check();
    expect(warnings).toEqual([{ reasons: ['database unreachable (ECONNREFUSED)'] }]);
  });
});
