/**
 * The timelapse maker with Debian's ffmpeg (a declared requirement): the date and time are
 * really burnt into the picture (dark box and light letters where the label goes, the rest of a
 * white clip untouched), a clip that cannot be read is left out, none readable is an error a
 * farmer can read, and the CPU of each run is measured.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  childCpuMs,
  createFfmpegTimelapseMaker,
  stillFilter,
  stillTimes,
  TimelapseError,
} from './timelapse-maker.ts';

const run = promisify(execFile);
let folder: string;
let whiteClip: string;

beforeAll(async () => {
  folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-timelapse-maker-'));
  whiteClip = path.join(folder, 'white.mp4');
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'color=white:size=320x180:rate=10:duration=2',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-y',
    whiteClip,
  ]);
});
afterAll(() => fs.promises.rm(folder, { recursive: true, force: true }));

/** The first frame of an MP4 as 8-bit grey pixels. */
async function firstFrameGrey(file: string): Promise<Buffer> {
  const { stdout } = await run(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
    { encoding: 'buffer', maxBuffer: 10_000_000 },
  );
  return stdout;
}

describe('the timelapse maker', () => {
  it('takes stills inside each clip and reads the CPU the shell reports', () => {
    expect(stillTimes(15, 2)).toEqual([5, 10]);
    expect(stillTimes(0, 2)).toEqual([0.067, 0.133]);
    expect(childCpuMs('some error\n0m0.010000s 0m0.000000s\n0m1.540000s 0m0.250000s\n')).toBe(1790);
    expect(childCpuMs('no times here')).toBe(0);
    // Paths with the filter's special characters are quoted and escaped.
    expect(
      stillFilter({ widthPx: 640, fontPath: '/fonts/a.ttf', labelPath: "/tmp/x:y/it's.txt" }),
    ).toContain("textfile='/tmp/x\\:y/it'\\\\\\''s.txt'");
  });

  it('burns the label into the picture and leaves the rest of it alone', async () => {
    const work = path.join(folder, 'burn');
    await fs.promises.mkdir(work);
    const outputPath = path.join(folder, 'burn.mp4');
    const maker = createFfmpegTimelapseMaker({ ffmpegPath: 'ffmpeg', framesPerClip: 1 });
    const made = await maker.make({
      clips: [{ filePath: whiteClip, durationSeconds: 2, label: 'Mon 9 Mar 2026 09:00' }],
      outputPath,
      workFolder: work,
    });
    expect(made).toMatchObject({ clipCount: 1, frameCount: 1, durationMs: 250 });
    expect(made.cpuMs).toBeGreaterThan(0);
    // 320x180 scaled to 640x360; the label sits in a dark box at the bottom left.
    const pixels = await firstFrameGrey(outputPath);
    expect(pixels.length).toBe(640 * 360);
    const at = (x: number, y: number) => pixels[y * 640 + x]!;
    const region = (x0: number, y0: number, x1: number, y1: number) => {
      const values: number[] = [];
      for (let y = y0; y < y1; y += 1) for (let x = x0; x < x1; x += 1) values.push(at(x, y));
      return values;
    };
    const lowest = (values: number[]) => values.reduce((a, b) => Math.min(a, b), 255);
    const highest = (values: number[]) => values.reduce((a, b) => Math.max(a, b), 0);
    const label = region(12, 318, 300, 342);
    expect(lowest(label)).toBeLessThan(110);
    expect(highest(label)).toBeGreaterThan(200);
    expect(label.filter((value) => value < 110).length).toBeGreaterThan(label.length / 3);
    expect(lowest(region(0, 0, 640, 250))).toBeGreaterThan(235);
    expect(lowest(region(420, 300, 640, 360))).toBeGreaterThan(235);
  }, 30_000);

  it('leaves out a clip it cannot read, and says so when none can be read', async () => {
    const broken = path.join(folder, 'broken.mp4');
    await fs.promises.writeFile(broken, 'not a video');
    const maker = createFfmpegTimelapseMaker({ ffmpegPath: 'ffmpeg' });
    const work = path.join(folder, 'mixed');
    await fs.promises.mkdir(work);
    const made = await maker.make({
      clips: [
        { filePath: broken, durationSeconds: 2, label: 'Mon 9 Mar 2026 08:00' },
        { filePath: whiteClip, durationSeconds: 2, label: 'Mon 9 Mar 2026 09:00' },
      ],
      outputPath: path.join(folder, 'mixed.mp4'),
      workFolder: work,
    });
    expect(made).toMatchObject({ clipCount: 1, frameCount: 2 });

    const none = path.join(folder, 'none');
    await fs.promises.mkdir(none);
    const failure = await maker
      .make({
        clips: [{ filePath: broken, durationSeconds: 2, label: 'x' }],
        outputPath: path.join(folder, 'none.mp4'),
        workFolder: none,
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TimelapseError);
    expect((failure as TimelapseError).reason).toBe(
      "None of the day's clips could be read, so there is no timelapse for this day.",
    );
  }, 30_000);
});
