/**
 * The timelapse maker: a day's clips (files already on this machine) into one short H.264 MP4.
 *
 * Debian's ffmpeg (FFMPEG_PATH), as the recorder: per clip, one run seeks to a few points and
 * writes one still per point, scaled to `widthPx` with the clip's date and time burnt in
 * (drawtext with the DejaVu font, fonts-dejavu-core, listed in camera/system-requirements.json);
 * then one run encodes the stills in order at `framesPerSecond` into a yuv420p, `+faststart` MP4
 * that every browser plays. Node gives no child's rusage, and ffmpeg's own `-benchmark` leaves
 * out its start-up and input probing (a third of the real cost here), so each run goes through
 * `/bin/sh`, which waits for ffmpeg and prints its children's user and system time (`times`):
 * that is `cpuMs` (decision 097).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** One clip of the day: its local file, its length, and the words burnt onto its stills. */
export interface TimelapseClip {
  filePath: string;
  durationSeconds: number;
  /** E.g. "Mon 23 Nov 2026 09:00". */
  label: string;
}

export interface TimelapseRequest {
  clips: TimelapseClip[];
  /** Where the MP4 goes; the folder must exist. */
  outputPath: string;
  /** A folder of this build's own for the stills (emptied by the caller). */
  workFolder: string;
}

export interface TimelapseResult {
  /** Clips that gave at least one still (a clip that cannot be read is left out). */
  clipCount: number;
  frameCount: number;
  durationMs: number;
  sizeBytes: number;
  /** CPU time of every ffmpeg run (user + system), in milliseconds. */
  cpuMs: number;
}

export interface TimelapseMaker {
  /** Builds the MP4. Rejects with TimelapseError when no clip gives a still or encoding fails. */
  make(request: TimelapseRequest): Promise<TimelapseResult>;
  /**
   * A made-up clip (a slowly moving synthetic sky, `seed` varying it) for the demo's timelapse,
   * where there is no camera: the demo's day is then made through `make` like any other.
   */
  makeSampleClip(outputPath: string, options: { seconds: number; seed: number }): Promise<void>;
}

export class TimelapseError extends Error {
  override readonly name = 'TimelapseError';
  constructor(
    /** What the customer reads on the day. */
    readonly reason: string,
    /** ffmpeg's last words, for the logs. */
    readonly detail: string,
  ) {
    super(`${reason}${detail ? `: ${detail}` : ''}`);
  }
}

/** Debian's fonts-dejavu-core. */
export const defaultTimelapseFont = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf';

export const timelapseDefaults = {
  widthPx: 640,
  framesPerClip: 2,
  framesPerSecond: 4,
} as const;

/** Per ffmpeg run: a clip's stills come from a local file, the encode from a few dozen stills. */
const stillsTimeoutMs = 60_000;
const encodeTimeoutMs = 5 * 60_000;

/** Where in a clip its stills are taken: evenly inside it, away from the first and last frame. */
export function stillTimes(durationSeconds: number, count: number): number[] {
  const length = Math.max(durationSeconds, 0.2);
  return Array.from({ length: count }, (_, index) =>
    Number(((length * (index + 1)) / (count + 1)).toFixed(3)),
  );
}

/** drawtext options are `:`-separated and `'`-quoted: a path is escaped for both. */
function filterPath(filePath: string): string {
  return `'${filePath.replace(/\\/g, '\\\\').replace(/'/g, "'\\\\\\''").replace(/:/g, '\\:')}'`;
}

/** Scale to the width, then the label in a dark box at the bottom left. */
export function stillFilter(options: {
  widthPx: number;
  fontPath: string;
  labelPath: string;
}): string {
  const fontSize = Math.max(12, Math.round(options.widthPx / 30));
  return [
    `scale=${options.widthPx}:-2`,
    [
      'drawtext=fontfile=' + filterPath(options.fontPath),
      'textfile=' + filterPath(options.labelPath),
      `fontsize=${fontSize}`,
      'fontcolor=white',
      'box=1',
      'boxcolor=black@0.6',
      `boxborderw=${Math.round(fontSize / 3)}`,
      `x=${Math.round(fontSize / 2)}`,
      `y=h-th-${fontSize}`,
    ].join(':'),
  ].join(',');
}

/** The first run: one still per time, each `frame-<n>.jpg` from `firstIndex` on. */
export function stillsArguments(input: {
  clipPath: string;
  times: number[];
  filter: string;
  workFolder: string;
  firstIndex: number;
}): string[] {
  const inputs = input.times.flatMap((time) => ['-ss', time.toFixed(3), '-i', input.clipPath]);
  const outputs = input.times.flatMap((_, index) => [
    '-map',
    `${index}:v:0`,
    '-frames:v',
    '1',
    '-vf',
    input.filter,
    '-q:v',
    '3',
    '-y',
    path.join(input.workFolder, `frame-${String(input.firstIndex + index).padStart(5, '0')}.jpg`),
  ]);
  return ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', ...inputs, ...outputs];
}

/** The second run: the numbered stills, in order, into an MP4 browsers play. */
export function encodeArguments(input: {
  workFolder: string;
  framesPerSecond: number;
  outputPath: string;
}): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-nostats',
    '-loglevel',
    'error',
    '-framerate',
    String(input.framesPerSecond),
    '-i',
    path.join(input.workFolder, 'frame-%05d.jpg'),
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '28',
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    '-an',
    '-f',
    'mp4',
    '-y',
    input.outputPath,
  ];
}

/**
 * The shell runs ffmpeg (`$0`, its arguments `$@`), then prints the CPU time of the children it
 * waited for (`times`: its own line, then its children's "0m0.540000s 0m0.050000s") and exits
 * with ffmpeg's status.
 */
const measuredRun = '"$0" "$@"; status=$?; times >&2; exit $status';
const timesLine = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/;

/** The children's user + system time from the last line `times` printed, in ms; 0 if absent. */
export function childCpuMs(stderr: string): number {
  const match = timesLine.exec(stderr.trimEnd());
  if (!match) return 0;
  const seconds = (minutes: string | undefined, rest: string | undefined) =>
    Number(minutes) * 60 + Number(rest);
  return Math.round((seconds(match[1], match[2]) + seconds(match[3], match[4])) * 1000);
}

function runFfmpeg(
  program: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a time-out kills ffmpeg with the shell.
    const child = spawn('/bin/sh', ['-c', measuredRun, program, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // The benchmark lines and the error come last: the tail is enough.
      stderr = (stderr + chunk).slice(-6000);
    });
    const killer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(killer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stderr });
    });
  });
}

const lastLines = (stderr: string) =>
  stderr
    .trim()
    .split('\n')
    .filter((line) => !timesLine.test(line))
    .slice(-3)
    .join(' | ');

export function createFfmpegTimelapseMaker(options: {
  ffmpegPath: string;
  fontPath?: string;
  widthPx?: number;
  framesPerClip?: number;
  framesPerSecond?: number;
}): TimelapseMaker {
  const fontPath = options.fontPath ?? defaultTimelapseFont;
  const widthPx = options.widthPx ?? timelapseDefaults.widthPx;
  const framesPerClip = options.framesPerClip ?? timelapseDefaults.framesPerClip;
  const framesPerSecond = options.framesPerSecond ?? timelapseDefaults.framesPerSecond;

  async function run(args: string[], timeoutMs: number) {
    try {
      return await runFfmpeg(options.ffmpegPath, args, timeoutMs);
    } catch (error) {
      throw new TimelapseError(
        'The timelapse could not be made on our side. We have been told.',
        error instanceof Error ? error.message : String(error),
      );
    }
  }

  return {
    async makeSampleClip(outputPath, sample) {
      const result = await run(
        [
          '-hide_banner',
          '-nostdin',
          '-loglevel',
          'error',
          '-f',
          'lavfi',
          '-i',
          `gradients=size=480x270:rate=5:duration=${sample.seconds}:seed=${sample.seed}:speed=0.02`,
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-pix_fmt',
          'yuv420p',
          '-y',
          outputPath,
        ],
        stillsTimeoutMs,
      );
      if (result.code !== 0) {
        throw new TimelapseError(
          'The timelapse could not be made on our side. We have been told.',
          lastLines(result.stderr) || `exit ${result.code}`,
        );
      }
    },

    async make(request) {
      if (!fs.existsSync(fontPath)) {
        throw new TimelapseError(
          'The timelapse could not be made on our side. We have been told.',
          `font ${fontPath} missing (Debian package fonts-dejavu-core)`,
        );
      }
      let cpuMs = 0;
      let frameCount = 0;
      let clipCount = 0;
      let lastFailure = '';
      for (const [index, clip] of request.clips.entries()) {
        const labelPath = path.join(request.workFolder, `label-${index}.txt`);
        await fs.promises.writeFile(labelPath, clip.label);
        const times = stillTimes(clip.durationSeconds, framesPerClip);
        const result = await run(
          stillsArguments({
            clipPath: clip.filePath,
            times,
            filter: stillFilter({ widthPx, fontPath, labelPath }),
            workFolder: request.workFolder,
            firstIndex: frameCount + 1,
          }),
          stillsTimeoutMs,
        );
        cpuMs += childCpuMs(result.stderr);
        // Stills are numbered without gaps (the encoder reads frame-%05d in order): count what
        // this clip really gave and renumber if a seek past its end gave fewer.
        const made: string[] = [];
        for (let offset = 0; offset < times.length; offset += 1) {
          const still = path.join(
            request.workFolder,
            `frame-${String(frameCount + 1 + offset).padStart(5, '0')}.jpg`,
          );
          if (fs.existsSync(still) && fs.statSync(still).size > 0) made.push(still);
        }
        if (result.code !== 0 || made.length === 0) {
          lastFailure = lastLines(result.stderr) || `exit ${result.code}`;
          for (const still of made) await fs.promises.rm(still, { force: true });
          continue;
        }
        for (const [offset, still] of made.entries()) {
          const wanted = path.join(
            request.workFolder,
            `frame-${String(frameCount + 1 + offset).padStart(5, '0')}.jpg`,
          );
          if (wanted !== still) await fs.promises.rename(still, wanted);
        }
        frameCount += made.length;
        clipCount += 1;
      }
      if (frameCount === 0) {
        throw new TimelapseError(
          "None of the day's clips could be read, so there is no timelapse for this day.",
          lastFailure,
        );
      }
      const encode = await run(
        encodeArguments({
          workFolder: request.workFolder,
          framesPerSecond,
          outputPath: request.outputPath,
        }),
        encodeTimeoutMs,
      );
      cpuMs += childCpuMs(encode.stderr);
      if (encode.code !== 0) {
        throw new TimelapseError(
          'The timelapse could not be made on our side. We have been told.',
          lastLines(encode.stderr) || `exit ${encode.code}`,
        );
      }
      const { size } = await fs.promises.stat(request.outputPath);
      return {
        clipCount,
        frameCount,
        durationMs: Math.round((frameCount / framesPerSecond) * 1000),
        sizeBytes: size,
        cpuMs,
      };
    },
  };
}
