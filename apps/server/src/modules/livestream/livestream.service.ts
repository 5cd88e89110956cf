/**
 * Livestreaming for customers (docs/requirements.md#livestream-setup, #livestream-flow): the
 * cameras that qualify, opening a camera's RTSP port, the recording schedule, recordings on
 * request, sharing the embed code; and for everyone, the public address of a stream's latest
 * clip. Every customer call checks ownership (404) and eligibility (422) on the server.
 *
 * One service for its callers (the routes, jobs/livestreaming.ts), put together from three parts
 * along their seams (docs/decisions/086): setup (livestream-setup.service.ts), management of a
 * livestream once set up (livestream-management.service.ts) and public playback
 * (livestream-playback.service.ts), sharing the checks in livestream-access.ts and the summary
 * in livestream-summary.ts. Recording itself is recording.service.ts.
 */
import {
  requireEligibleCamera,
  type CustomerScope,
  type LivestreamServiceDependencies,
} from './livestream-access.ts';
import { createLivestreamManagementService } from './livestream-management.service.ts';
import { createLivestreamPlaybackService } from './livestream-playback.service.ts';
import { createLivestreamSetupService } from './livestream-setup.service.ts';
import { createPublicLinksService } from './public-links.service.ts';

export type { CustomerScope, LivestreamServiceDependencies };
export {
  playbackLifetimeSeconds,
  publicLivestreamLimits,
  publicRefusalMessages,
  recordedAtCaption,
  showcaseRetryAfterFailureMs,
} from './livestream-playback.service.ts';
export { newPublicId } from './livestream-setup.service.ts';
export { qualityOfPath } from './livestream-summary.ts';

export type LivestreamService = ReturnType<typeof createLivestreamService>;

export function createLivestreamService(deps: LivestreamServiceDependencies) {
  return {
    requireEligibleCamera: (customerId: string, iccid: string) =>
      requireEligibleCamera(deps, customerId, iccid),
    ...createLivestreamSetupService(deps),
    ...createLivestreamManagementService(deps),
    ...createLivestreamPlaybackService(deps),
    ...createPublicLinksService(deps),
  };
}
