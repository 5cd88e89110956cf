import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import { queryRows, type DatabaseHandle } from '../db/client.ts';
import { startJobs, type JobDefinition, type JobRunner } from './job-runner.ts';

const handled: string[] = [];
const echoJob: JobDefinition<{ word: string }> = {
  name: 'echo-for-send-only-test',
  payload: z.object({ word: z.string() }),
  cron: '0 3 * * *',
  async handle(payload) {
    handled.push(payload.word);
  },
};

let database: DatabaseHandle;
const runners: JobRunner[] = [];

afterAll(async () => {
  for (const runner of runners) await runner.stop();
  await database?.close();
});

const count = async (query: ReturnType<typeof sql>) =>
  Number((await queryRows<{ count: string }>(database.db, query))[0]?.count);

describe('startJobs in send-only mode (ROLE=api, decision 070)', () => {
  it('queues jobs and schedules nothing; a working runner runs what it queued', async () => {
    database = await openTestDatabase();
    const sender = await startJobs(database, [echoJob], { onError: () => {}, mode: 'send-only' });
    runners.push(sender);
    await sender.queue.send(echoJob.name, { word: 'hello' });

    expect(await count(sql`select count(*) from pgboss.schedule`)).toBe(0);
    expect(
      await queryRows<{ state: string }>(
        database.db,
        sql`select state from pgboss.job where name = ${echoJob.name}`,
      ),
    ).toEqual([{ state: 'created' }]);

    const worker = await startJobs(database, [echoJob], {
      onError: () => {},
      pollingIntervalSeconds: 0.5,
    });
    runners.push(worker);
    const deadline = performance.now() + 15_000;
    while (handled.length === 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(handled).toEqual(['hello']);
    expect(await count(sql`select count(*) from pgboss.schedule`)).toBe(1);
  }, 30_000);
});
