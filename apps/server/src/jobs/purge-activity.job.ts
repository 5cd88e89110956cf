import { z } from 'zod';
import type { ActivityService } from '../modules/activity/activity.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Daily: deletes audit entries older than the activity log's retention (ACTIVITY_RETENTION_DAYS,
 * at least 13 months: docs/decisions/092).
 */
export function purgeActivityJob(deps: {
  activity: Pick<ActivityService, 'purgeExpired'>;
}): JobDefinition<object> {
  return {
    name: 'purge-activity',
    payload: z.object({}),
    cron: '23 3 * * *',
    async handle() {
      await deps.activity.purgeExpired();
    },
  };
}
