import { z } from 'zod';
import type { JobDefinition } from './job-runner.ts';

/**
 * Every 15 minutes: mirrors SIM state, usage and router status from the SIM platform into our
 * tables (modules/usage/connectivity-sync.service.ts), then e-mails usage alerts. A failed run
 * (platform unreachable) changes nothing half-way and is simply repeated by the next one.
 */
export function syncConnectivityJob(deps: {
  syncFromPlatform: () => Promise<unknown>;
  sendUsageAlerts: () => Promise<unknown>;
}): JobDefinition<object> {
  return {
    name: 'sync-connectivity',
    payload: z.object({}),
    cron: '*/15 * * * *',
    async handle() {
      await deps.syncFromPlatform();
      await deps.sendUsageAlerts();
    },
  };
}
