import { z } from 'zod';
import type { TimelapseService } from '../modules/timelapse/timelapse.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Daily: deletes timelapses (their files, then their rows) older than TIMELAPSE_RETENTION_DAYS
 * (decision 097). Deleting twice is harmless, so two workers may run it at once.
 */
export function purgeTimelapsesJob(deps: {
  timelapses: Pick<TimelapseService, 'purgeExpired'>;
}): JobDefinition<object> {
  return {
    name: 'purge-timelapses',
    payload: z.object({}),
    cron: '41 3 * * *',
    async handle() {
      await deps.timelapses.purgeExpired();
    },
  };
}
