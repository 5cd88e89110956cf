import { z } from 'zod';
import type { JobDefinition } from './job-runner.ts';

/**
 * Push and SMS alerts (decisions 123, 124): queued by the notifier with a wake-up, and every
 * minute for retries and alerts held by quiet hours. Rows are claimed in the database, so
 * parallel runs in several workers send each once.
 */
export function deliverNotificationsJob(deps: {
  deliverDue: () => Promise<unknown>;
}): JobDefinition<object> {
  return {
    name: 'deliver-notifications',
    payload: z.object({}),
    cron: '* * * * *',
    pollingIntervalSeconds: 1,
    async handle() {
      await deps.deliverDue();
    },
  };
}
