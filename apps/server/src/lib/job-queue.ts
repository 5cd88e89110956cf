/**
 * The job-queue port: services hand work to a background job by name, without knowing pg-boss.
 * The services are composed before the workers start (the jobs need them), so the composition
 * root binds the queue to the running job runner afterwards (process/compose.ts,
 * attachJobRunner); tests put an in-memory queue they drain in its place.
 */
import { AppError } from '../errors.ts';

export interface JobQueue {
  /** Queues one job; the payload is checked against the job's schema by the runner. */
  send(name: string, payload: object): Promise<void>;
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
    async send(name, payload) {
      // server.ts attaches before it listens, so a request never sees this; a script that builds
      // the app without workers does.
      if (!target) {
        throw new AppError(
          'PROVIDER_UNAVAILABLE',
          'This is not available right now. Please try again in a few minutes.',
        );
      }
      await target.send(name, payload);
    },
    attach(queue) {
      target = queue;
    },
  };
}
