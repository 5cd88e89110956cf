import type { Config } from '../../config/config.ts';
import { createFfmpegRecorder, type Recorder } from './recorder.ts';
import { createFfmpegTimelapseMaker, type TimelapseMaker } from './timelapse-maker.ts';

/** The recorder: ffmpeg (FFMPEG_PATH) pulling the camera's RTSP stream (decision 046). */
export function createRecorder(config: Config['livestreaming']): Recorder {
  return createFfmpegRecorder({ ffmpegPath: config.ffmpegPath });
}

/** The timelapse maker: the same ffmpeg, making a day's clips into one short MP4 (decision 097). */
export function createTimelapseMaker(config: Config['livestreaming']): TimelapseMaker {
  return createFfmpegTimelapseMaker({ ffmpegPath: config.ffmpegPath });
}
