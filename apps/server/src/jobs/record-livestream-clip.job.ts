import {
  recordClipJobName,
  recordClipPayload,
  type RecordClipPayload,
  type RecordingService,
} from '../modules/recording/recording.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * One recording: a scheduled slot, a clip asked for now (the setup's preview or first clip), or
 * the marketing page's demo clip. Several run at once per process (RECORDING_CONCURRENCY):
 * each is an ffmpeg process copying a stream, cheap on CPU but long (15-60 s).
 */
export function recordLivestreamClipJob(deps: {
  recording: Pick<RecordingService, 'handle'>;
  concurrency: number;
}): JobDefinition<RecordClipPayload> {
  return {
    name: recordClipJobName,
    payload: recordClipPayload,
    concurrency: deps.concurrency,
    // A scheduled slot gets three more tries with back-off; a clip asked for now one (the person
    // is waiting).
    sendOptions: (payload) =>
      payload.kind === 'scheduled'
        ? { retryLimit: 3, retryDelay: 20, retryBackoff: true, expireInSeconds: 15 * 60 }
        : { retryLimit: 1, retryDelay: 2, expireInSeconds: 5 * 60 },
    handle: (payload) => deps.recording.handle(payload),
  };
}
