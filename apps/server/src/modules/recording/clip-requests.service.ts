/**
 * Clips asked for now (docs/requirements.md#livestream-setup): the set-up's 5-second preview, or
 * a first clip right after set-up. The clip is written down waiting for a worker and its
 * recording queued through the one job queue; the set-up reads where it stands by its storage
 * key. Handed to the set-up service by the composition root (it sits below recording in the
 * module tree, decision 163).
 */
import { randomUUID } from 'node:crypto';
import { previewDurationSeconds } from '@farmcam/contract';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import type { ClipRequests } from '../livestream/livestream-access.ts';
import { recordingRepository as repository } from './recording.repository.ts';
import { queueRecording } from './recording.service.ts';

export interface ClipRequestsDependencies {
  db: Database;
  clock: Clock;
  jobQueue: JobQueue;
}

export function createClipRequests(deps: ClipRequestsDependencies): ClipRequests {
  const { db, clock } = deps;
  return {
    async requestClip(livestreamId, request) {
      const clipId = randomUUID();
      const kind = request.durationSeconds === previewDurationSeconds ? 'preview' : 'now';
      const storageKey = `livestreams/${livestreamId}/${kind}-${clock.now().toISOString().replace(/[:.]/g, '-')}-${clipId.slice(0, 8)}.mp4`;
      const clip = await repository.insertClip(db, {
        livestreamId,
        slot: `${kind}:${clipId}`,
        durationSeconds: request.durationSeconds,
        storageKey,
        now: clock.now(),
      });
      // If the queue refuses, the clip says so rather than staying 'recording' for ever.
      try {
        await queueRecording(deps.jobQueue, {
          kind: 'immediate',
          clipId: clip.id,
          rtspPath: request.rtspPath,
          includeAudio: request.includeAudio,
        });
      } catch (error) {
        await repository.finishClip(db, clip.id, {
          status: 'failed',
          error: 'The recording could not be queued',
        });
        throw error;
      }
      return clip;
    },

    findClip: (livestreamId, storageKey) => repository.findClipByKey(db, livestreamId, storageKey),
  };
}
