import { z } from 'zod';
import type { LivestreamAlertsService } from '../modules/livestream-alerts/livestream-alerts.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Hourly: switches off schedules whose embed code has not been seen on a website for 10 days
 * and e-mails their owners (docs/requirements.md#screens, #limits); and warns, once, the owners of
 * those 7 days without a sighting that the switch-off is coming (docs/decisions/096).
 */
export function switchOffUnusedLivestreamsJob(deps: {
  alerts: Pick<LivestreamAlertsService, 'switchOffUnused' | 'warnUnused'>;
}): JobDefinition<object> {
  return {
    name: 'livestream-switch-off-unused',
    payload: z.object({}),
    cron: '41 * * * *',
    async handle() {
      await deps.alerts.switchOffUnused();
      await deps.alerts.warnUnused();
    },
  };
}
