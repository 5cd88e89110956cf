/**
 * A customer's cameras counted by state for the staff search, by the dashboard's own derivation
 * (modules/cameras/camera-state.ts, docs/decisions/081), so staff and farmer see the same cameras
 * in the same state and each camera is counted once.
 */
import type { StaffCustomer } from '@farmcam/contract';
import { deriveCardState, deriveSimStatus, deriveSubStatus } from '../cameras/camera-state.ts';
import type { CameraFactsGroup } from './staff.repository.ts';

type StateCounts = StaffCustomer['states'];

/** Which count a card state belongs to: a scheduled pause still runs, so it counts as active. */
const countOf = {
  active: 'active',
  'pause-scheduled': 'active',
  paused: 'paused',
  overdue: 'attention',
  'no-subscription': 'attention',
  attention: 'attention',
  terminated: 'terminated',
} as const satisfies Record<string, keyof StateCounts>;

/** The cameras of these groups counted by state on `today` (the UK day). */
export function countCameraStates(
  groups: CameraFactsGroup[],
  today: string,
): { cameraCount: number; states: StateCounts } {
  const states: StateCounts = { active: 0, paused: 0, attention: 0, terminated: 0 };
  let cameraCount = 0;
  for (const group of groups) {
    const subscription = group.status
      ? {
          status: group.status,
          pauseStartsOn: group.pause_starts_on,
          pauseResumesOn: group.pause_resumes_on,
        }
      : null;
    const cardState = deriveCardState(
      deriveSubStatus(subscription, today),
      deriveSimStatus(group.sim_state),
    );
    const cameras = Number(group.cameras);
    states[countOf[cardState]] += cameras;
    cameraCount += cameras;
  }
  return { cameraCount, states };
}
