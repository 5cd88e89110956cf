/**
 * pg-boss on the same database as the app: PGlite through its `db.executeSql` hook, or its own
 * pool on PostgreSQL. Each job file exports a definition; `startJobs` registers and schedules them.
 */
import PgBoss from 'pg-boss';
import type { z } from 'zod';
import type { DatabaseHandle } from '../db/client.ts';

export interface JobDefinition<Payload> {
  name: string;
  payload: z.ZodType<Payload>;
  /** Cron (UTC) on which the job is queued automatically, if any. */
  cron?: string;
  /** Jobs of this kind one process runs at once (each its own pg-boss worker); 1 by default. */
  concurrency?: number;
  handle(payload: Payload): Promise<void>;
}

// A definition's payload type is checked where it is declared; the runner only needs the shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyJobDefinition = JobDefinition<any>;

export interface JobRunner {
  send<Payload extends object>(
    job: JobDefinition<Payload>,
    payload: Payload,
    options?: PgBoss.SendOptions,
  ): Promise<string | null>;
  stop(): Promise<void>;
}

export async function startJobs(
  database: DatabaseHandle,
  definitions: AnyJobDefinition[],
  options: { onError: (error: Error) => void; pollingIntervalSeconds?: number },
): Promise<JobRunner> {
  const boss = database.connectionString
    ? new PgBoss({ connectionString: database.connectionString, max: 4 })
    : new PgBoss({ db: { executeSql: database.executeSql } });
  boss.on('error', options.onError);
  await boss.start();
  for (const definition of definitions) {
    await boss.createQueue(definition.name);
    for (let worker = 0; worker < (definition.concurrency ?? 1); worker += 1) {
      await boss.work(
        definition.name,
        { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2 },
        async (jobs) => {
          for (const job of jobs) await definition.handle(definition.payload.parse(job.data));
        },
      );
    }
    if (definition.cron) await boss.schedule(definition.name, definition.cron, {}, { tz: 'UTC' });
  }
  return {
    send: (job, payload, sendOptions) =>
      boss.send(job.name, job.payload.parse(payload) as object, sendOptions ?? {}),
    stop: () => boss.stop({ graceful: true, wait: true, timeout: 20_000 }),
  };
}
