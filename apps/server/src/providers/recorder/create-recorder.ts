import type { Config } from '../../config/config.ts';
import { createFfmpegRecorder, type Recorder } from './recorder.ts';

/** The recorder: ffmpeg (FFMPEG_PATH) pulling the camera's RTSP stream (decision 046). */
export function createRecorder(config: Config['livestreaming']): Recorder {
  return createFfmpegRecorder({ ffmpegPath: config.ffmpegPath });
}
