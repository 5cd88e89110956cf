/**
 * The still maker: one JPEG from a video the camera already sent (a recorded clip, or a live
 * view's newest segment), so a camera's latest picture costs it no data (decision 157). Debian's
 * ffmpeg, the last frame (or the first, for a one-second segment), scaled to 640 px wide.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';

export interface StillRequest {
  inputPath: string;
  outputPath: string;
  /**
   * `end`: half a second before the end (a clip's last picture); `start`: the first picture, a
   * key frame (a live segment of a second, whose fragmented file has no end to seek from).
   */
  at: 'start' | 'end';
}

export interface StillMaker {
  /** Writes a JPEG of the video's picture; rejects when there is none. */
  extract(request: StillRequest): Promise<{ sizeBytes: number }>;
}

export function stillArguments({ inputPath, outputPath, at }: StillRequest): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    ...(at === 'end' ? ['-sseof', '-0.5'] : []),
    '-i',
    inputPath,
    '-frames:v',
    '1',
    '-vf',
    'scale=640:-2',
    '-q:v',
    '5',
    '-f',
    'image2',
    '-y',
    outputPath,
  ];
}

export function createFfmpegStillMaker(options: { ffmpegPath: string }): StillMaker {
  return {
    async extract(request) {
      const { outputPath } = request;
      await new Promise<void>((resolve, reject) => {
        execFile(
          options.ffmpegPath,
          stillArguments(request),
          { timeout: 20_000 },
          (error, _stdout, stderr) => {
            if (error)
              reject(new Error(`No still: ${String(stderr).trim().slice(-300) || error.message}`));
            else resolve();
          },
        );
      });
      const size = await fs.promises.stat(outputPath).then(
        (stat) => stat.size,
        () => 0,
      );
      if (size < 500) throw new Error(`No still: ${size} bytes`);
      return { sizeBytes: size };
    },
  };
}
