/**
 * Livestream eligibility of a stored camera (the rule is the dashboard's too:
 * cameras/livestream-eligibility.ts).
 */
import { businessDay } from '../../lib/business-calendar.ts';
import { deriveSubStatus } from '../cameras/camera-state.ts';
import { livestreamEligibility, type Eligibility } from '../cameras/livestream-eligibility.ts';
import type { CameraPlanRow } from './livestream.repository.ts';

/** Eligibility of a stored camera today (the UK day, docs/decisions/081). */
export function eligibilityOf(plan: CameraPlanRow, now: Date): Eligibility {
  const subscription = plan.subscription_status
    ? {
        status: plan.subscription_status,
        pauseStartsOn: plan.pause_starts_on,
        pauseResumesOn: plan.pause_resumes_on,
      }
    : null;
  return livestreamEligibility({
    productName: plan.product_name,
    subStatus: deriveSubStatus(subscription, businessDay(now)),
    simState: plan.state,
    isBarred: plan.is_barred,
  });
}
