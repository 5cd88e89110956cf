/**
 * The recorder port: pulls a clip of a camera's RTSP stream into an MP4 file.
 *
 * The one implementation runs Debian's ffmpeg (FFMPEG_PATH) exactly as in production: RTSP over
 * TCP (mobile networks drop UDP), a little longer than asked, the H.264 video copied as the camera
 * sent it (no re-encoding: cheap enough for many at once), audio dropped or encoded to AAC; then
 * cut to exactly the asked length from the first key frame, `+faststart` so browsers start
 * playing before the whole file has arrived, all under hard time-outs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface RecordingRequest {
  /** rtsp://host:port/path */
  rtspUrl: string;
  durationSeconds: number;
  includeAudio: boolean;
  /** Where the MP4 goes; the folder must exist. */
  outputPath: string;
}

export interface Recorder {
  /**
   * Records one clip. Rejects with RecordingError (a reason fit to show the customer) when the
   * camera cannot be reached, sends no video, or the recording overruns its time-out.
   */
  record(request: RecordingRequest): Promise<{ sizeBytes: number }>;
  /**
   * Stops every recording under way (SIGTERM, then SIGKILL after a grace period) and refuses new
   * ones: their `record` calls reject with RecordingInterruptedError. Resolves once every ffmpeg
   * child has exited. For a graceful shutdown (docs/decisions/073).
   */
  stop?(): Promise<void>;
}

export class RecordingError extends Error {
  override readonly name = 'RecordingError';
  constructor(
    /** Short, customer-facing reason. */
    readonly reason: string,
    /** ffmpeg's last words, for the logs. */
    readonly detail: string,
  ) {
    super(`${reason}${detail ? `: ${detail}` : ''}`);
  }
}

/** A recording cut short because this process is stopping, not because of the camera. */
export class RecordingInterruptedError extends RecordingError {
  constructor() {
    super('The recording was interrupted by a restart of our service.', 'recorder stopped');
  }
}

/** How long ffmpeg gets to exit after SIGTERM before it is killed outright. */
const stopGraceMs = 2_000;

/** Seconds ffmpeg may wait on the camera's socket before giving up. */
const socketTimeoutSeconds = 10;

/** How ffmpeg reads a camera, for a clip and for live view alike: quiet, RTSP over TCP, a socket limit. */
export function rtspInputOptions(): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-rtsp_transport',
    'tcp',
    '-timeout',
    String(socketTimeoutSeconds * 1_000_000),
  ];
}
/** Slack on top of the clip length before the recording is killed. */
const overrunAllowanceSeconds = 30;
/** Smaller than this, the file has no usable video. */
const minimumClipBytes = 2048;

/**
 * Extra seconds recorded beyond the clip: a copied H.264 stream can only start at a key frame, so
 * a recording that joins mid-group loses up to one key-frame interval (cameras send one every 1-2
 * s). The surplus is cut off again from the first key frame (decision 046).
 */
export const keyFrameAllowanceSeconds = 2;

/** The first pass: the stream as it comes, a little longer than asked, into `rawPath`. */
export function ffmpegArguments(request: RecordingRequest, rawPath = request.outputPath): string[] {
  return [
    ...rtspInputOptions(),
    '-i',
    request.rtspUrl,
    '-t',
    String(request.durationSeconds + keyFrameAllowanceSeconds),
    '-map',
    '0:v:0',
    ...(request.includeAudio ? ['-map', '0:a:0?', '-c:a', 'aac', '-b:a', '32k'] : ['-an']),
    '-c:v',
    'copy',
    '-f',
    'mp4',
    '-y',
    rawPath,
  ];
}

/**
 * The second pass: exactly `durationSeconds` from the first video frame (a key frame) at
 * `startSeconds`, copied without re-encoding, `+faststart` so browsers start playing at once.
 */
export function trimArguments(
  rawPath: string,
  startSeconds: number,
  request: Pick<RecordingRequest, 'durationSeconds' | 'outputPath'>,
): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-ss',
    startSeconds.toFixed(6),
    '-i',
    rawPath,
    '-t',
    String(request.durationSeconds),
    '-map',
    '0',
    '-c',
    'copy',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    '-y',
    request.outputPath,
  ];
}

/** ffprobe beside the configured ffmpeg (Debian's ffmpeg package ships both). */
export function ffprobePathFor(ffmpegPath: string): string {
  return path.join(
    path.dirname(ffmpegPath),
    path.basename(ffmpegPath).replace('ffmpeg', 'ffprobe'),
  );
}

/** Runs a program to its end; its exit code and the tail of what it printed on stderr. */
function runTool(
  program: string,
  args: string[],
  timeoutMs: number,
  /** Every running child, so a shutdown can stop them. */
  children?: Set<ChildProcess>,
): Promise<{
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  hasTimedOut: boolean;
}> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children?.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout = (stdout + chunk).slice(-4000);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // The last few lines say what went wrong; keep the tail only.
      stderr = (stderr + chunk).slice(-4000);
    });
    let hasTimedOut = false;
    const killer = setTimeout(() => {
      hasTimedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(killer);
      children?.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      children?.delete(child);
      resolve({ code, signal, stdout, stderr, hasTimedOut });
    });
  });
}

/**
 * Customer-facing reasons: what happened and what to do about it, in words a farmer uses
 * (docs/decisions/046). The status code stays in brackets for support.
 */
export const recordingReasons = {
  refused:
    'The camera refused the connection. Check that it is switched on and that its video (RTSP) service is on in the camera’s app.',
  timedOut:
    'The camera did not answer in time. Check that it is switched on and has mobile signal, then try again.',
  unreachable:
    'The camera could not be reached. Check that it is switched on and has mobile signal, then try again.',
  notFound:
    'The camera has no video at the address we use (RTSP 404). Check the camera model is supported, or contact support.',
  password:
    'The camera asked for a password (RTSP 401). Switch off the video password in the camera’s app, or contact support.',
  cameraBusy: (status: string) =>
    `The camera’s video service is not working at the moment (RTSP ${status}). Restart the camera (switch it off and on again) and try again in a few minutes.`,
  cameraRefusedRequest: (status: string) =>
    `The camera turned down the recording (RTSP ${status}). Restart the camera and try again, or contact support.`,
  noVideo:
    'The camera sent no video. Restart the camera and try again; if it keeps happening, contact support.',
  unreadable:
    'The camera’s video could not be read. Restart the camera and try again; if it keeps happening, contact support.',
  unknown: 'The recording failed. Please try again; if it keeps happening, contact support.',
  tooLong:
    'The camera stopped sending video part-way through the recording. Check its mobile signal, then try again.',
  recorderMissing: 'Our recorder could not start. Please try again later.',
  noFile:
    'The recording produced no video. Please try again; if it keeps happening, contact support.',
} as const;

/** A customer-facing reason for what ffmpeg printed. */
export function describeFfmpegFailure(stderr: string): string {
  const text = stderr.toLowerCase();
  // ffmpeg's RTSP client: "method DESCRIBE failed: 503 Service Unavailable".
  const status = /method \w+ failed: (\d{3})/.exec(text)?.[1];
  if (status === '401' || status === '403' || text.includes('unauthorized')) {
    return recordingReasons.password;
  }
  if (status === '404') return recordingReasons.notFound;
  if (status?.startsWith('5') || text.includes('5xx server error')) {
    return recordingReasons.cameraBusy(status ?? '5xx');
  }
  if (status?.startsWith('4') || text.includes('4xx client error')) {
    return recordingReasons.cameraRefusedRequest(status ?? '4xx');
  }
  if (text.includes('connection refused')) return recordingReasons.refused;
  if (text.includes('timed out') || text.includes('timeout')) return recordingReasons.timedOut;
  if (text.includes('no route to host') || text.includes('network is unreachable')) {
    return recordingReasons.unreachable;
  }
  if (text.includes('does not contain any stream') || text.includes('matches no streams')) {
    return recordingReasons.noVideo;
  }
  // A camera that accepted the connection but never answered in RTSP, or answered garbage.
  if (text.includes('invalid data found')) return recordingReasons.unreadable;
  return recordingReasons.unknown;
}

export function createFfmpegRecorder(options: {
  ffmpegPath: string;
  ffprobePath?: string;
}): Recorder {
  const ffprobePath = options.ffprobePath ?? ffprobePathFor(options.ffmpegPath);
  const children = new Set<ChildProcess>();
  let isStopping = false;

  /** Throws when a shutdown stopped the recorder: the result is not the camera's fault. */
  function refuseIfStopping() {
    if (isStopping) throw new RecordingInterruptedError();
  }

  /** When the first video frame of the raw recording starts (seconds), 0 if unknown. */
  async function firstVideoFrameAt(rawPath: string): Promise<number> {
    const probe = await runTool(
      ffprobePath,
      [
        '-v',
        'error',
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=start_time',
        '-of',
        'csv=p=0',
        rawPath,
      ],
      15_000,
      children,
    );
    const start = Number.parseFloat(probe.stdout.trim());
    return probe.code === 0 && Number.isFinite(start) && start > 0 ? start : 0;
  }

  return {
    async record(request) {
      refuseIfStopping();
      const rawPath = `${request.outputPath}.raw.mp4`;
      try {
        let run;
        try {
          run = await runTool(
            options.ffmpegPath,
            ffmpegArguments(request, rawPath),
            (request.durationSeconds +
              keyFrameAllowanceSeconds +
              socketTimeoutSeconds +
              overrunAllowanceSeconds) *
              1000,
            children,
          );
        } catch (error) {
          throw new RecordingError(
            recordingReasons.recorderMissing,
            error instanceof Error ? error.message : String(error),
          );
        }
        refuseIfStopping();
        const tail = run.stderr.trim().split('\n').slice(-3).join(' | ');
        if (run.hasTimedOut) throw new RecordingError(recordingReasons.tooLong, tail);
        if (run.code !== 0) {
          throw new RecordingError(
            describeFfmpegFailure(run.stderr),
            tail || `exit ${run.code ?? run.signal}`,
          );
        }
        const rawSize = await fs.promises.stat(rawPath).then(
          (stat) => stat.size,
          () => {
            throw new RecordingError(recordingReasons.noFile, tail);
          },
        );
        if (rawSize < minimumClipBytes) {
          throw new RecordingError(recordingReasons.noVideo, `${rawSize} bytes`);
        }
        // The clip starts at the first key frame and lasts exactly as long as asked.
        const trim = await runTool(
          options.ffmpegPath,
          trimArguments(rawPath, await firstVideoFrameAt(rawPath), request),
          30_000,
          children,
        );
        refuseIfStopping();
        if (trim.code !== 0 || trim.hasTimedOut) {
          throw new RecordingError(recordingReasons.noFile, trim.stderr.trim().slice(-300));
        }
        const { size } = await fs.promises.stat(request.outputPath).catch(() => {
          throw new RecordingError(recordingReasons.noFile, 'no trimmed file');
        });
        if (size < minimumClipBytes) {
          throw new RecordingError(recordingReasons.noVideo, `${size} bytes`);
        }
        return { sizeBytes: size };
      } finally {
        await fs.promises.rm(rawPath, { force: true });
      }
    },

    async stop() {
      isStopping = true;
      const running = [...children].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('close', () => resolve());
            // ffmpeg closes its output on SIGTERM; one that hangs on a dead socket is killed.
            child.kill('SIGTERM');
            const killer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
            child.once('close', () => clearTimeout(killer));
          }),
      );
      await Promise.all(running);
    },
  };
}
