/**
 * The Livestreaming page's live demo (docs/decisions/046, 060): the latest clip of the demo
 * camera, a fresh recording queued when it is older than an hour (the worker records it:
 * recording.service.ts), and whether the demo camera can run on this machine at all.
 */
import type { DemoCameraResponse, ShowcaseResponse } from '@farmcam/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import type { LocalCamera } from '../../providers/camera/local-camera.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import { playbackLifetimeSeconds } from '../livestream/livestream.service.ts';
import { recordingRepository as repository } from './recording.repository.ts';
import { queueRecording } from './recording.service.ts';

const showcaseMaxAgeMs = 3_600_000;
/** After a failed demo recording, the next attempt waits this long. */
export const showcaseRetryAfterFailureMs = 10 * 60_000;

export interface ShowcaseDependencies {
  db: Database;
  clock: Clock;
  storage: ClipStorage;
  jobQueue: JobQueue;
  log: Pick<FastifyBaseLogger, 'warn'>;
  /** Where the demo is recorded from, if anywhere: without one there is no demo. */
  showcaseSource?: () => Promise<string>;
  /** The local demo camera, when this process runs one (local mode). */
  demoCamera?: Pick<LocalCamera, 'check'>;
}

export function createShowcaseService(deps: ShowcaseDependencies) {
  const { db, clock } = deps;
  return {
    /**
     * The marketing page's live demo: the latest clip of the demo camera. A clip older than an
     * hour (or none) queues a new recording; the old one plays meanwhile.
     */
    async showcase(): Promise<ShowcaseResponse> {
      const { state, failure } = await repository.readShowcase(db);
      const now = clock.now();
      const isStale = !state || now.getTime() - Date.parse(state.recordedAt) > showcaseMaxAgeMs;
      // After a failed attempt the page says the demo is not available (rather than "recording"
      // for ever) and no new attempt is queued until the pause is over (decision 046).
      const hasFailedRecently =
        failure !== undefined &&
        (!state || Date.parse(failure.at) > Date.parse(state.recordedAt)) &&
        now.getTime() - Date.parse(failure.at) < showcaseRetryAfterFailureMs;
      let isRecording = false;
      if (isStale && deps.showcaseSource && !hasFailedRecently) {
        try {
          await queueRecording(
            deps.jobQueue,
            { kind: 'showcase' },
            { singletonKey: 'showcase', singletonSeconds: 120 },
          );
          isRecording = true;
        } catch (error) {
          deps.log.warn({ err: error }, 'Could not queue the demo clip');
        }
      }
      if (!state) return { url: null, recordedAt: null, isRecording };
      return {
        url: await deps.storage.playbackUrl(state.storageKey, playbackLifetimeSeconds),
        recordedAt: state.recordedAt,
        isRecording,
      };
    },

    /** Whether the demo camera can run here, so the pages can say so (docs/decisions/060). */
    async demoCamera(): Promise<DemoCameraResponse> {
      if (!deps.demoCamera) return { problem: null, packages: [] };
      const { problem, packages } = await deps.demoCamera.check();
      return { problem, packages };
    },
  };
}

export type ShowcaseService = ReturnType<typeof createShowcaseService>;
