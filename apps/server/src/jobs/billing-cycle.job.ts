import { z } from 'zod';
import type { BillingCycle } from '../modules/billing/billing-cycle.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Every 10 minutes: renewals at period ends and dunning (local engine), pause starts and ends,
 * and SIM state brought in line with billing. Each step is idempotent, and time missed (a server
 * that was down) is replayed day by day, each thing on its own date (docs/decisions/025).
 */
export function billingCycleJob(deps: { cycle: BillingCycle }): JobDefinition<object> {
  return {
    name: 'billing-cycle',
    payload: z.object({}),
    cron: '*/10 * * * *',
    async handle() {
      await deps.cycle.runCycle();
    },
  };
}
