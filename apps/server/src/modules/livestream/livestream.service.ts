/**
 * The livestream module's entry for the modules built on it (docs/decisions/163): recording and
 * public playback read a livestream and its camera through these, never through
 * livestream.repository.ts (decision 160). The customer's parts are their own files
 * (livestream-setup.service.ts, livestream-management.service.ts), sharing the checks in
 * livestream-access.ts and the summary in livestream-summary.ts.
 */
import type { Executor } from '../../db/client.ts';
import {
  livestreamRepository as repository,
  type CameraPlanRow,
  type DueLivestreamRow,
  type LivestreamRow,
} from './livestream.repository.ts';

export type { CameraPlanRow, DueLivestreamRow, LivestreamRow };

/**
 * Signed clip addresses for signed-in customers (the set-up preview) and the Livestreaming page's
 * demo live at least this long; those handed out by livestream-url, under a public link or the
 * livestream's own code, live five minutes (`ClipStorage.publicPlaybackUrl`, decision 101).
 */
export const playbackLifetimeSeconds = 2 * 3600;

/** A livestream by its id. */
export function findLivestream(executor: Executor, id: string): Promise<LivestreamRow | undefined> {
  return repository.findById(executor, id);
}

/** A livestream's camera with the facts its eligibility needs (eligibility.ts). */
export function findLivestreamCamera(
  executor: Executor,
  livestreamId: string,
): Promise<CameraPlanRow | undefined> {
  return repository.findCameraPlanByLivestream(executor, livestreamId);
}

/**
 * Active livestreams whose schedule has this UK hour on this UK day and that have no clip for the
 * slot yet, with their cameras' facts: eligibility is the caller's to check.
 */
export function listDueLivestreams(
  executor: Executor,
  slot: { hour: number; day: string; slotKey: string },
): Promise<DueLivestreamRow[]> {
  return repository.listDue(executor, slot);
}
