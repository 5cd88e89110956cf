import {
  recordClipPayload,
  type RecordClipPayload,
  type RecordingService,
} from '../modules/livestream/recording.service.ts';
import type { JobDefinition } from './job-runner.ts';

export const recordLivestreamClipJobName = 'livestream-record-clip';

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
    name: recordLivestreamClipJobName,
    payload: recordClipPayload,
    concurrency: deps.concurrency,
    handle: (payload) => deps.recording.handle(payload),
  };
}
