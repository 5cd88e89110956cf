/**
 * The job-queue port, the one way services hand work to a background job: by name, without
 * knowing pg-boss. The services are composed before the workers start (the jobs need them), so
 * the composition root binds the queue to the running job runner afterwards (process/compose.ts,
 * attachJobRunner); tests put an in-memory queue they drain in its place.
 */
import { AppError } from '../errors.ts';

/** Keeps a job from being queued twice (pg-boss's singleton): one per key within the seconds. */
export interface JobSendOptions {
  singletonKey?: string;
  singletonSeconds?: number;
}

export interface JobQueue {
  /**
   * Queues one job; the payload is checked against the job's schema by the runner. False when
   * `options` refused it as a duplicate of one already queued.
   */
  send(name: string, payload: object, options?: JobSendOptions): Promise<boolean>;
}

/** One finished run, for the one log line per job run (docs/decisions/072). */
export interface JobRun {
  name: string;
  id: string;
  /** The request that queued the job, when one did. */
  requestId?: string;
  /** 1 for the first run. */
  attempt: number;
  outcome: 'ok' | 'failed';
  durationMs: number;
}

export interface LateBoundJobQueue extends JobQueue {
  /** Connects the queue to the running job runner (once, after the jobs started). */
  attach(queue: JobQueue): void;
}

export function createLateBoundJobQueue(): LateBoundJobQueue {
  let target: JobQueue | undefined;
  return {
    async send(name, payload, options) {
      // server.ts attaches before it listens, so a request never sees this; a script that builds
      // the app without workers does.
      if (!target) {
        throw new AppError(
          'PROVIDER_UNAVAILABLE',
          'This is not available right now. Please try again in a few minutes.',
        );
      }
      return target.send(name, payload, options);
    },
    attach(queue) {
      target = queue;
    },
  };
}
