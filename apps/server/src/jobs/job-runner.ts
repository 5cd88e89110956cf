/**
 * pg-boss on the same database as the app: PGlite through its `db.executeSql` hook, or its own
 * pool on PostgreSQL. Each job file exports a definition; `startJobs` registers and schedules them.
 */
import PgBoss from 'pg-boss';
import type { z } from 'zod';
import { advisoryLockKeys, type DatabaseHandle } from '../db/client.ts';
import type { JobQueue, JobRun, JobSendOptions } from '../lib/job-queue.ts';
import { recordJobRun, registerJobQueueNames } from '../lib/metrics.ts';
import {
  runInLogContext,
  splitOriginRequestId,
  withOriginRequestId,
} from '../lib/request-context.ts';

export type { JobRun };

export interface JobDefinition<Payload> {
  name: string;
  payload: z.ZodType<Payload>;
  /** Cron (UTC) on which the job is queued automatically, if any. */
  cron?: string;
  /** Jobs of this kind one process runs at once (each its own pg-boss worker); 1 by default. */
  concurrency?: number;
  /** Retries of a failed run, pg-boss style: `delaySeconds` doubles per try when `isBackoff`. */
  retry?: { limit: number; delaySeconds: number; isBackoff: boolean };
  /** Retries and expiry that depend on the payload, over `retry` (pg-boss's send options). */
  sendOptions?(payload: Payload): PgBoss.SendOptions;
  /**
   * Jobs a worker fetches at once (pg-boss's batchSize), run side by side, each completed or
   * failed (and retried) on its own; 1 by default. For many small jobs (login e-mails): one
   * fetch query serves the lot.
   */
  batchSize?: number;
  /** How often an idle worker looks for jobs (pg-boss allows 0.5 s at least); 2 s by default. */
  pollingIntervalSeconds?: number;
  /** `job` is absent when a test calls the handler directly. */
  handle(payload: Payload, job?: JobIdentity): Promise<void>;
}

/** Which run of which job a handler is in: pg-boss's id (the same on each retry) and attempt. */
export interface JobIdentity {
  id: string;
  /** 1 for the first run. */
  attempt: number;
}

/** A run that threw: what an operator needs to find it (never the payload, which may be private). */
export interface JobFailure {
  name: string;
  id: string;
  /** 1 for the first run. */
  attempt: number;
  /** False on the last allowed attempt: pg-boss then marks the job `failed`. */
  willRetry: boolean;
  error: unknown;
}

// A definition's payload type is checked where it is declared; the runner only needs the shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyJobDefinition = JobDefinition<any>;

export interface JobRunner {
  /** The queue by job name, for services behind the JobQueue port. */
  queue: JobQueue;
  stop(): Promise<void>;
}

export async function startJobs(
  database: DatabaseHandle,
  definitions: AnyJobDefinition[],
  options: {
    onError: (error: Error) => void;
    onJobFailed?: (failure: JobFailure) => void;
    /** After every run, in the job's log context (its lines carry job, jobId and requestId). */
    onJobFinished?: (run: JobRun) => void;
    pollingIntervalSeconds?: number;
    /**
     * `send-only` (ROLE=api): queue jobs but run none: no workers, no cron schedules, no
     * maintenance; the worker processes do those (docs/decisions/070). `work` by default.
     */
    mode?: 'work' | 'send-only';
  },
): Promise<JobRunner> {
  const isSendOnly = options.mode === 'send-only';
  const sendOnly = isSendOnly ? { supervise: false, schedule: false } : {};
  const boss = database.connectionString
    ? new PgBoss({ connectionString: database.connectionString, max: 4, ...sendOnly })
    : new PgBoss({ db: { executeSql: database.executeSql }, ...sendOnly });
  boss.on('error', options.onError);
  // pg-boss 10 creates its schema under its own advisory lock, but concurrent createQueue calls
  // (each attaches a partition to pgboss.job) deadlock: processes starting at once on one
  // database set their queues up one at a time (docs/decisions/065).
  await database.withAdvisoryLock(advisoryLockKeys.jobQueues, async () => {
    await boss.start();
    for (const definition of definitions) await boss.createQueue(definition.name);
  });
  /** One run of one job, in its log context, reported and counted; a failure is raised. */
  async function runJob(
    definition: AnyJobDefinition,
    job: PgBoss.JobWithMetadata<unknown>,
  ): Promise<void> {
    // The request that queued the job rides in its data, beside the payload.
    const { payload, requestId } = splitOriginRequestId(job.data);
    const context = {
      kind: 'job',
      job: definition.name,
      jobId: job.id,
      requestId,
    } as const;
    await runInLogContext(context, async () => {
      const startedAt = performance.now();
      const attempt = job.retryCount + 1;
      const finished = (outcome: JobRun['outcome']) =>
        options.onJobFinished?.({
          name: definition.name,
          id: job.id,
          ...(requestId ? { requestId } : {}),
          attempt,
          outcome,
          durationMs: Math.round(performance.now() - startedAt),
        });
      try {
        await definition.handle(definition.payload.parse(payload), { id: job.id, attempt });
      } catch (error) {
        options.onJobFailed?.({
          name: definition.name,
          id: job.id,
          attempt,
          willRetry: job.retryCount < job.retryLimit,
          error,
        });
        finished('failed');
        recordJobRun(definition.name, {
          seconds: (performance.now() - startedAt) / 1000,
          isFailed: true,
          willRetry: job.retryCount < job.retryLimit,
        });
        throw error;
      }
      finished('ok');
      recordJobRun(definition.name, {
        seconds: (performance.now() - startedAt) / 1000,
        isFailed: false,
        willRetry: false,
      });
    });
  }

  // Each queue's run and failure series exist from the start, at zero (decision 071).
  if (!isSendOnly) registerJobQueueNames(definitions.map((definition) => definition.name));
  for (const definition of isSendOnly ? [] : definitions) {
    for (let worker = 0; worker < (definition.concurrency ?? 1); worker += 1) {
      await boss.work(
        definition.name,
        {
          pollingIntervalSeconds:
            definition.pollingIntervalSeconds ?? options.pollingIntervalSeconds ?? 2,
          batchSize: definition.batchSize ?? 1,
          includeMetadata: true,
        },
        async (jobs) => {
          if (jobs.length === 1) {
            // Thrown: pg-boss fails the job (its retry or `failed`) with the error as output.
            await runJob(definition, jobs[0]!);
            return;
          }
          // A batch: each job fails on its own (pg-boss's retry for it alone); pg-boss then
          // completes the others, which are still active, when this returns.
          await Promise.all(
            jobs.map((job) =>
              runJob(definition, job).catch((error: unknown) =>
                boss.fail(definition.name, job.id, error as object),
              ),
            ),
          );
        },
      );
    }
    if (definition.cron) await boss.schedule(definition.name, definition.cron, {}, { tz: 'UTC' });
  }
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));

  async function send(
    definition: AnyJobDefinition,
    payload: object,
    sendOptions: JobSendOptions = {},
  ): Promise<boolean> {
    const retry = definition.retry
      ? {
          retryLimit: definition.retry.limit,
          retryDelay: definition.retry.delaySeconds,
          retryBackoff: definition.retry.isBackoff,
        }
      : {};
    // A job queued during a request (or by a job a request queued) remembers that request.
    const parsed = definition.payload.parse(payload) as object;
    const data = withOriginRequestId(parsed);
    const id = await boss.send(definition.name, data, {
      ...retry,
      ...definition.sendOptions?.(parsed),
      ...sendOptions,
    });
    // pg-boss answers null when a singleton key refused the job.
    return id !== null;
  }

  return {
    queue: {
      async send(name, payload, sendOptions) {
        const definition = byName.get(name);
        if (!definition) throw new Error(`No job named ${name} is registered`);
        return send(definition, payload, sendOptions);
      },
    },
    stop: () => boss.stop({ graceful: true, wait: true, timeout: 20_000 }),
  };
}
