/**
 * The recorder port: pulls a clip of a camera's RTSP stream into an MP4 file.
 *
 * The one implementation runs Debian's ffmpeg (FFMPEG_PATH) exactly as in production: RTSP over
 * TCP (mobile networks drop UDP), `-t` seconds, the H.264 video copied as the camera sent it (no
 * re-encoding: cheap enough for many at once), audio dropped or encoded to AAC, `+faststart` so
 * browsers start playing before the whole file has arrived, all under a hard time-out.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';

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

/** Seconds ffmpeg may wait on the camera's socket before giving up. */
const socketTimeoutSeconds = 10;
/** Slack on top of the clip length before the recording is killed. */
const overrunAllowanceSeconds = 30;
/** Smaller than this, the file has no usable video. */
const minimumClipBytes = 2048;

export function ffmpegArguments(request: RecordingRequest): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-rtsp_transport',
    'tcp',
    '-timeout',
    String(socketTimeoutSeconds * 1_000_000),
    '-i',
    request.rtspUrl,
    '-t',
    String(request.durationSeconds),
    '-map',
    '0:v:0',
    ...(request.includeAudio ? ['-map', '0:a:0?', '-c:a', 'aac', '-b:a', '32k'] : ['-an']),
    '-c:v',
    'copy',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    '-y',
    request.outputPath,
  ];
}

/** A customer-facing reason for what ffmpeg printed. */
export function describeFfmpegFailure(stderr: string): string {
  const text = stderr.toLowerCase();
  if (text.includes('connection refused')) return 'The camera refused the connection';
  if (text.includes('timed out') || text.includes('timeout')) {
    return 'The camera did not answer in time';
  }
  if (text.includes('404')) return 'The camera has no stream at this path';
  if (text.includes('401') || text.includes('unauthorized')) {
    return 'The camera asked for a password';
  }
  if (text.includes('no route to host') || text.includes('network is unreachable')) {
    return 'The camera could not be reached';
  }
  if (text.includes('does not contain any stream') || text.includes('matches no streams')) {
    return 'The camera sent no video';
  }
  return 'The recording failed';
}

export function createFfmpegRecorder(options: { ffmpegPath: string }): Recorder {
  return {
    record(request) {
      return new Promise((resolve, reject) => {
        const child = spawn(options.ffmpegPath, ffmpegArguments(request), {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.setEncoding('utf8');
        child.stderr.on('data', (chunk: string) => {
          // The last few lines say what went wrong; keep the tail only.
          stderr = (stderr + chunk).slice(-4000);
        });
        let hasTimedOut = false;
        const killer = setTimeout(
          () => {
            hasTimedOut = true;
            child.kill('SIGKILL');
          },
          (request.durationSeconds + socketTimeoutSeconds + overrunAllowanceSeconds) * 1000,
        );
        child.on('error', (error) => {
          clearTimeout(killer);
          reject(new RecordingError('The recorder could not start', error.message));
        });
        child.on('close', (code, signal) => {
          clearTimeout(killer);
          const tail = stderr.trim().split('\n').slice(-3).join(' | ');
          if (hasTimedOut) {
            reject(new RecordingError('The recording took too long and was stopped', tail));
            return;
          }
          if (code !== 0) {
            reject(
              new RecordingError(describeFfmpegFailure(stderr), tail || `exit ${code ?? signal}`),
            );
            return;
          }
          fs.promises.stat(request.outputPath).then(
            ({ size }) => {
              if (size < minimumClipBytes) {
                reject(new RecordingError('The camera sent no video', `${size} bytes`));
              } else {
                resolve({ sizeBytes: size });
              }
            },
            () => reject(new RecordingError('The recording produced no file', tail)),
          );
        });
      });
    },
  };
}
