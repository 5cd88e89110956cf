import { z } from 'zod';
import type { LocalSimPlatform } from '../providers/connectivity/local-sim-platform.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Hourly, with the local SIM platform only: meters the data each live SIM used in the hours
 * since the last run (see LocalSimPlatform.recordUsage), then e-mails usage alerts.
 */
export function recordLocalSimUsageJob(deps: {
  platform: LocalSimPlatform;
  sendUsageAlerts: () => Promise<unknown>;
}): JobDefinition<object> {
  return {
    name: 'record-local-sim-usage',
    payload: z.object({}),
    cron: '2 * * * *',
    async handle() {
      await deps.platform.recordUsage();
      await deps.sendUsageAlerts();
    },
  };
}
