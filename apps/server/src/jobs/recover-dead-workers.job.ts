import { z } from 'zod';
import type { RecordingService } from '../modules/recording/recording.service.ts';
import type { JobDefinition } from './job-runner.ts';

export const recoverDeadWorkersJobName = 'recover-dead-workers';

/**
 * Every minute, on every worker: takes over the recordings of processes whose heartbeat stopped
 * (kill -9, a lost machine) and marks those processes gone (docs/decisions/073). Workers also run
 * the same step after each heartbeat, so a dead worker's clip is back in the queue well within a
 * minute; this job is the floor when heartbeats are late. Running it on many workers at once is
 * safe: each clip is handed over by one conditional update.
 */
export function recoverDeadWorkersJob(deps: {
  recording: Pick<RecordingService, 'recoverDeadWorkers'>;
}): JobDefinition<object> {
  return {
    name: recoverDeadWorkersJobName,
    payload: z.object({}),
    cron: '* * * * *',
    async handle() {
      await deps.recording.recoverDeadWorkers();
    },
  };
}
