import { z } from 'zod';
import type { RecordingService } from '../modules/recording/recording.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Every minute: queues the recordings whose UK hour and weekday have come (once per slot, even
 * with several worker processes; see RecordingService.queueDueRecordings). Running every minute
 * rather than on the hour lets a worker that was down at the top of the hour catch up.
 */
export function queueLivestreamRecordingsJob(deps: {
  recording: Pick<RecordingService, 'queueDueRecordings'>;
}): JobDefinition<object> {
  return {
    name: 'livestream-queue-recordings',
    payload: z.object({}),
    cron: '* * * * *',
    async handle() {
      await deps.recording.queueDueRecordings();
    },
  };
}
