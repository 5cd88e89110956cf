/**
 * Whether a camera's plan can be switched now (docs/decisions/081): the one rule behind the
 * switch itself (409 with this sentence), the dashboard card's `canSwitch` and the plan page's
 * `can_switch`, so the web never offers a switch the server refuses.
 */
import { formatDay } from '@farmcam/contract/rules';
import type { SimState } from '../../db/schema.ts';
import { businessDay } from '../../lib/business-calendar.ts';
import { pauseStateOn, type PauseFields } from './pause-rules.ts';

/** Why the plan cannot be switched on `today` (the UK calendar day), or null when it can. */
export function switchRefusal(subscription: PauseFields | null, today: string): string | null {
  if (!subscription || subscription.status === 'canceled' || subscription.status === 'incomplete') {
    return 'This camera has no active subscription. Renew it first.';
  }
  if (subscription.status === 'past_due' || subscription.status === 'overdue') {
    return 'Please pay the overdue invoice before switching plan.';
  }
  const pause = pauseStateOn(subscription, today);
  if (pause === 'paused') return 'This plan is paused. Plans can be switched once it restarts.';
  if (pause === 'scheduled') return 'Cancel the scheduled pause before switching plan.';
  return null;
}

/**
 * Why Manage plan has nothing to offer for a camera, or null when it has (decision 111): once the
 * SIM is switched off (terminated) there is no plan to change or pause, only a new SIM to
 * activate. The dashboard card's `canManagePlan` and the billing account's `can_manage_plan`
 * both come from here.
 */
export function managePlanRefusal(sim: {
  state: SimState;
  terminatedAt: Date | null;
}): string | null {
  if (sim.state !== 'terminated') return null;
  const when = sim.terminatedAt ? ` on ${formatDay(businessDay(sim.terminatedAt))}` : '';
  return `This camera's SIM was switched off${when}, so its plan can no longer be changed or paused. Activate a new SIM to keep watching this place.`;
}
