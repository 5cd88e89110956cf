import type { JobDefinition } from '../../src/jobs/job-runner.ts';
import type { JobQueue } from '../../src/lib/job-queue.ts';
import { originRequestId, runInLogContext } from '../../src/lib/request-context.ts';

/**
 * An in-memory job queue for integration tests: `send` only records the job, as pg-boss would,
 * and `runQueued` runs what was queued, in order, like a worker (without its retries; the
 * retry path is tested against the real runner in login-mail.test.ts). Like the runner, a job
 * remembers the request that queued it and runs in its log context (docs/decisions/072).
 */
export interface TestJobQueue extends JobQueue {
  // Each definition checks its own payload type; the queue only needs the common shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  register(definition: JobDefinition<any>): void;
  /** The jobs sent and not yet run. */
  pending(): { name: string; payload: object }[];
  /** Runs every queued job once; the first failure rejects (the failed job is dropped). */
  runQueued(): Promise<void>;
  /** From now on, hands the jobs of these names to `queue` (a real runner) instead. */
  forward(names: readonly string[], queue: JobQueue): void;
}

export function createTestJobQueue(): TestJobQueue {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const definitions = new Map<string, JobDefinition<any>>();
  const queued: { name: string; payload: object; requestId?: string; singletonKey?: string }[] = [];
  const forwarded = new Map<string, JobQueue>();
  let jobCount = 0;
  return {
    async send(name, payload, options) {
      const elsewhere = forwarded.get(name);
      if (elsewhere) return elsewhere.send(name, payload, options);
      const definition = definitions.get(name);
      if (!definition) throw new Error(`No job named ${name} is registered`);
      // Like pg-boss's singleton key: one waiting job per key.
      const singletonKey = options?.singletonKey;
      if (singletonKey && queued.some((job) => job.singletonKey === singletonKey)) return false;
      queued.push({
        name,
        payload: definition.payload.parse(payload) as object,
        requestId: originRequestId(),
        ...(singletonKey ? { singletonKey } : {}),
      });
      return true;
    },
    forward(names, queue) {
      for (const name of names) forwarded.set(name, queue);
    },
    register(definition) {
      definitions.set(definition.name, definition);
    },
    pending: () => queued.map(({ name, payload }) => ({ name, payload })),
    async runQueued() {
      while (queued.length > 0) {
        const job = queued.shift()!;
        jobCount += 1;
        const context = {
          kind: 'job',
          job: job.name,
          jobId: `test-job-${jobCount}`,
          requestId: job.requestId,
        } as const;
        await runInLogContext(context, () =>
          definitions.get(job.name)!.handle(job.payload, { id: context.jobId, attempt: 1 }),
        );
      }
    },
  };
}
