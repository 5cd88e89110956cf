import type { Config } from '../../config/config.ts';
import { createFfmpegRecorder, type Recorder } from './recorder.ts';
import { createFfmpegLivePuller, type LivePuller } from './live-puller.ts';
import { createFfmpegStillMaker, type StillMaker } from './still-maker.ts';
import { createFfmpegTimelapseMaker, type TimelapseMaker } from './timelapse-maker.ts';

/** The recorder: ffmpeg (FFMPEG_PATH) pulling the camera's RTSP stream (decision 046). */
export function createRecorder(config: Config['livestreaming']): Recorder {
  return createFfmpegRecorder({ ffmpegPath: config.ffmpegPath });
}

/** The timelapse maker: the same ffmpeg, making a day's clips into one short MP4 (decision 097). */
export function createTimelapseMaker(config: Config['livestreaming']): TimelapseMaker {
  return createFfmpegTimelapseMaker({ ffmpegPath: config.ffmpegPath });
}

/** The live puller: the same ffmpeg, pulling a camera into low-latency HLS (decision 151). */
export function createLivePuller(config: Config['livestreaming']): LivePuller {
  return createFfmpegLivePuller({ ffmpegPath: config.ffmpegPath });
}

/** The still maker: the same ffmpeg, one JPEG from what a camera already sent (decision 157). */
export function createStillMaker(config: Config['livestreaming']): StillMaker {
  return createFfmpegStillMaker({ ffmpegPath: config.ffmpegPath });
}
