import { z } from 'zod';
import type { UsageSync } from '../modules/usage/usage-sync.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Every 15 minutes: mirrors SIM state, usage and router status from the SIM platform into our
 * tables (modules/usage/connectivity-sync.service.ts), then checks the usage (alerts, data caps:
 * usage-sync.service.ts). A failed run (platform unreachable) changes nothing half-way, checks
 * nothing, and is simply repeated by the next one.
 */
export function syncConnectivityJob(deps: {
  usage: Pick<UsageSync, 'sync' | 'checkUsage'>;
}): JobDefinition<object> {
  return {
    name: 'sync-connectivity',
    payload: z.object({}),
    cron: '*/15 * * * *',
    async handle() {
      await deps.usage.sync();
      await deps.usage.checkUsage();
    },
  };
}
