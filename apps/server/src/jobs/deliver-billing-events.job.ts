import { z } from 'zod';
import type { LocalBillingEngine } from '@farmcam/billing-engine';
import type { JobDefinition } from './job-runner.ts';

export const deliverBillingEventsJobName = 'deliver-billing-events';

/**
 * Every minute, on the workers: hands the local billing engine's undelivered events to the app
 * (the dunning e-mail, the SIM's state): those a handler failed on, when their retry is due, and
 * those whose process died between the commit and the delivery, a minute after they were raised
 * (docs/decisions/077). Safe on several workers at once: each event is claimed by one of them.
 * Stripe redelivers its own webhooks, so with BILLING=stripe there is nothing to do.
 */
export function deliverBillingEventsJob(deps: {
  /** The local engine's events; Stripe delivers its own (its webhook). */
  engine: Pick<LocalBillingEngine, 'deliverDueEvents'> | undefined;
}): JobDefinition<object> {
  return {
    name: deliverBillingEventsJobName,
    payload: z.object({}),
    cron: '* * * * *',
    async handle() {
      await deps.engine?.deliverDueEvents();
    },
  };
}
