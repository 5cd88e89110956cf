import { z } from 'zod';
import type { JobDefinition } from './job-runner.ts';

/**
 * Every hour: compares each account's monthly spend alert with this UK month's invoices and the
 * billing provider's previews of the renewals to come, and e-mails the owner once per month
 * (decision 095). Claimed per account and month, so a repeated or parallel run sends nothing more.
 */
export function sendSpendAlertsJob(deps: {
  sendSpendAlerts: () => Promise<unknown>;
}): JobDefinition<object> {
  return {
    name: 'send-spend-alerts',
    payload: z.object({}),
    cron: '23 * * * *',
    async handle() {
      await deps.sendSpendAlerts();
    },
  };
}
