import { z } from 'zod';
import type { TimelapseService } from '../modules/timelapse/timelapse.service.ts';
import type { JobDefinition } from './job-runner.ts';

export const buildTimelapseJobName = 'build-timelapse';

/**
 * Hourly (at 20 past, UTC): builds yesterday's timelapses (UK day) and makes up the few days
 * before that a stopped worker missed (decision 097). The first run after UK midnight makes
 * them; later runs find nothing due, or a day a dead worker left half-built. Safe on every
 * worker at once: each camera-day is claimed by one conditional insert.
 */
export function buildTimelapseJob(deps: {
  timelapses: Pick<TimelapseService, 'buildDue'>;
}): JobDefinition<object> {
  return {
    name: buildTimelapseJobName,
    payload: z.object({}),
    cron: '20 * * * *',
    async handle() {
      await deps.timelapses.buildDue();
    },
  };
}
