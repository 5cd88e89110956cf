import { z } from 'zod';
import type { ActivationFulfilment } from '../modules/activation/fulfilment.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Every 5 minutes: finishes paid activations that a failure left half done (a SIM platform that
 * did not answer, a webhook handler that crashed, a refund that failed). Fulfilment is idempotent,
 * so a run that overlaps a live checkout changes nothing twice.
 */
export function activationFulfilmentJob(deps: {
  fulfilment: Pick<ActivationFulfilment, 'reconcile'>;
}): JobDefinition<object> {
  return {
    name: 'activation-fulfilment',
    payload: z.object({}),
    cron: '*/5 * * * *',
    async handle() {
      await deps.fulfilment.reconcile();
    },
  };
}
