import { z } from 'zod';
import type { TimelapseService } from '../modules/timelapse/timelapse.service.ts';
import type { JobDefinition } from './job-runner.ts';

export const buildTimelapseJobName = 'build-timelapse';

/**
 * Every minute: builds yesterday's timelapses (UK day), the few days before that a stopped
 * worker missed, and days queued without a claim (the demo's), decision 097. The first run after
 * UK midnight makes them; the others cost five indexed look-ups and find nothing, or a day a dead
 * worker left half-built (taken over within a minute), or the demo's day soon after the first
 * start. Safe on every worker at once: each camera-day is claimed by one conditional write.
 */
export function buildTimelapseJob(deps: {
  timelapses: Pick<TimelapseService, 'buildDue'>;
}): JobDefinition<object> {
  return {
    name: buildTimelapseJobName,
    payload: z.object({}),
    cron: '* * * * *',
    async handle() {
      await deps.timelapses.buildDue();
    },
  };
}
