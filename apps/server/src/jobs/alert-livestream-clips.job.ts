import { z } from 'zod';
import type { LivestreamAlertsService } from '../modules/livestream-alerts/livestream-alerts.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Every 15 minutes: e-mails owners whose scheduled livestream delivered no clip for the hours
 * their camera's settings say, and when clips arrive again (docs/decisions/096).
 */
export function alertLivestreamClipsJob(deps: {
  alerts: Pick<LivestreamAlertsService, 'alertMissingClips'>;
}): JobDefinition<object> {
  return {
    name: 'livestream-no-clip-alerts',
    payload: z.object({}),
    cron: '7,22,37,52 * * * *',
    async handle() {
      await deps.alerts.alertMissingClips();
    },
  };
}
