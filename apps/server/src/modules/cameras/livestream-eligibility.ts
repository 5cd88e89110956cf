/**
 * Who may livestream (docs/requirements.md#input-rules, #roles): a camera whose newest subscription is on a product whose name
 * contains "heavy" (any case) and whose SubStatus is 'active'. We also need the SIM itself live:
 * a paused, terminated or barred SIM carries no data, so its camera cannot be recorded. The
 * dashboard's `canLivestream` and every livestream service ask this one rule.
 */
import type { SubStatus } from '@farmcam/contract';
import type { SimState } from '../../db/schema.ts';

export interface EligibilityFacts {
  productName: string | null;
  subStatus: SubStatus;
  simState: SimState;
  isBarred: boolean;
}

export type Eligibility = { isEligible: true } | { isEligible: false; reason: string };

export const isHeavyPlan = (productName: string | null): boolean =>
  productName !== null && productName.toLowerCase().includes('heavy');

export function livestreamEligibility(facts: EligibilityFacts): Eligibility {
  if (!isHeavyPlan(facts.productName)) {
    return {
      isEligible: false,
      reason:
        'Livestreaming is included in the Heavy Streaming plan. Switch this camera to Heavy Streaming to set it up.',
    };
  }
  if (facts.subStatus !== 'active') {
    return {
      isEligible: false,
      reason: `Livestreaming needs an active Heavy Streaming subscription; this camera's is ${facts.subStatus}.`,
    };
  }
  if (facts.simState !== 'active' || facts.isBarred) {
    return {
      isEligible: false,
      reason: "This camera's SIM is not active, so it cannot stream. Please contact support.",
    };
  }
  return { isEligible: true };
}
