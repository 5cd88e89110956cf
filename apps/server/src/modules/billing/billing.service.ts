/**
 * Subscriptions, payment methods, pause and invoices for one camera's billing customer (docs/requirements.md#screens,
 * #states, #api). Routes have already checked that the billing customer belongs to the caller; this
 * service applies the rules and talks to the billing port. Reads come from our tables only;
 * writes go to the provider (with an idempotency key) under a per-subscription lease.
 *
 * Put together from its parts (decision 086), which share billing-service-context.ts: plan
 * changes (plan-change.service.ts), pauses (pause.service.ts), renewal of an ended subscription
 * (renewal.service.ts), the SIM's lifecycle and the reaction to billing events
 * (sim-lifecycle.service.ts), and the cards, invoices and billing portal
 * (billing-account.service.ts).
 */
import { createBillingAccountService } from './billing-account.service.ts';
import { createBillingServiceContext, type BillingServiceDeps } from './billing-service-context.ts';
import { createPauseService } from './pause.service.ts';
import { createPlanChangeService } from './plan-change.service.ts';
import { createRenewalService } from './renewal.service.ts';
import { createSimLifecycle } from './sim-lifecycle.service.ts';

export type { Actor, BillingServiceDeps } from './billing-service-context.ts';
export { toEligiblePlan } from './plan-change.service.ts';

export function createBillingService(deps: BillingServiceDeps) {
  const context = createBillingServiceContext(deps);
  const simLifecycle = createSimLifecycle(context);
  return {
    ...createPlanChangeService(context),
    ...createBillingAccountService(context),
    ...createPauseService(context, simLifecycle),
    ...createRenewalService(context),
    ...simLifecycle,
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
