import { z } from 'zod';
import type { LivestreamAlertsService } from '../modules/livestream/livestream-alerts.service.ts';
import type { RecordingService } from '../modules/livestream/recording.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Hourly: switches off schedules whose embed code has not been seen on a website for 10 days
 * and e-mails their owners (docs/requirements.md#screens, #limits); and warns, once, the owners of
 * those 7 days without a sighting that the switch-off is coming (docs/decisions/096).
 */
export function switchOffUnusedLivestreamsJob(deps: {
  recording: Pick<RecordingService, 'switchOffUnused'>;
  alerts: Pick<LivestreamAlertsService, 'warnUnused'>;
}): JobDefinition<object> {
  return {
    name: 'livestream-switch-off-unused',
    payload: z.object({}),
    cron: '41 * * * *',
    async handle() {
      await deps.recording.switchOffUnused();
      await deps.alerts.warnUnused();
    },
  };
}
