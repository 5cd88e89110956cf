import { z } from 'zod';
import type { UsageSync } from '../modules/usage/usage-sync.service.ts';
import type { LocalSimPlatform } from '../providers/connectivity/local-sim-platform.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Hourly, with the local SIM platform only: meters the data each live SIM used in the hours
 * since the last run (see LocalSimPlatform.recordUsage), then checks the usage (alerts, data caps:
 * usage-sync.service.ts).
 */
export function recordLocalSimUsageJob(deps: {
  platform: LocalSimPlatform;
  usage: Pick<UsageSync, 'checkUsage'>;
}): JobDefinition<object> {
  return {
    name: 'record-local-sim-usage',
    payload: z.object({}),
    cron: '2 * * * *',
    async handle() {
      await deps.platform.recordUsage();
      await deps.usage.checkUsage();
    },
  };
}
