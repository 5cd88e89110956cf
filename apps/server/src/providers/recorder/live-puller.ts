/**
 * The live puller port: one camera's RTSP stream pulled into low-latency HLS in a local folder
 * (decision 151). The one implementation runs Debian's ffmpeg as the recorder does (RTSP over
 * TCP, the H.264 video copied as the camera sent it, no re-encoding, so one pull costs little
 * CPU), writing fMP4 segments of about one second (the camera's key frames decide the cut) with
 * EXT-X-PROGRAM-DATE-TIME, and hands each finished segment to the caller, which stores it.
 * Audio is left out: cameras send G.711, which fMP4 cannot carry without transcoding.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describeFfmpegFailure, recordingReasons, rtspInputOptions } from './recorder.ts';

/** A finished file of the stream: the init segment (`init.mp4`) or a media segment. */
export interface LiveFile {
  name: string;
  filePath: string;
  sizeBytes: number;
}

export interface LiveUpdate {
  /** Files finished since the last update, init segment first. */
  files: LiveFile[];
  /** The playlist as ffmpeg wrote it, naming files relative to the folder. */
  playlist: string;
}

export interface LivePullRequest {
  rtspUrl: string;
  /** An empty folder of this process's own; the puller writes and deletes files in it. */
  folder: string;
  /** Called once per playlist change with the files it newly names; awaited in order. */
  onUpdate(update: LiveUpdate): Promise<void>;
}

export interface LivePull {
  /** Settles when ffmpeg exits: null when stopped, else a reason fit to show the viewer. */
  readonly ended: Promise<{ reason: string | null; detail: string }>;
  /** Stops ffmpeg (SIGTERM, then SIGKILL) and resolves once it has exited. */
  stop(): Promise<void>;
}

export interface LivePuller {
  start(request: LivePullRequest): LivePull;
  /** Stops every pull of this process (graceful shutdown). */
  stopAll(): Promise<void>;
}

/** Segment length asked of ffmpeg; a copied stream can only cut at the camera's key frames. */
export const liveSegmentSeconds = 1;
/** Segments a playlist lists: enough for a player that fell behind by a few seconds. */
export const livePlaylistLength = 6;
const watchIntervalMs = 100;
const stopGraceMs = 2_000;
export const livePlaylistName = 'index.m3u8';
export const liveInitName = 'init.mp4';

export function liveFfmpegArguments(rtspUrl: string, folder: string): string[] {
  return [
    ...rtspInputOptions(),
    // Start at once: no probing beyond the first frames, no input buffering.
    '-fflags',
    'nobuffer',
    '-probesize',
    '500000',
    '-analyzeduration',
    '500000',
    '-i',
    rtspUrl,
    '-map',
    '0:v:0',
    '-an',
    '-c:v',
    'copy',
    '-f',
    'hls',
    '-hls_time',
    String(liveSegmentSeconds),
    '-hls_list_size',
    String(livePlaylistLength),
    '-hls_segment_type',
    'fmp4',
    '-hls_fmp4_init_filename',
    liveInitName,
    '-hls_flags',
    'delete_segments+program_date_time+independent_segments+temp_file',
    '-hls_delete_threshold',
    '4',
    '-hls_segment_filename',
    path.join(folder, 'seg-%d.m4s'),
    path.join(folder, livePlaylistName),
  ];
}

/** The files a playlist names, init segment first. */
export function playlistFiles(playlist: string): string[] {
  const names: string[] = [];
  for (const line of playlist.split('\n')) {
    const trimmed = line.trim();
    const map = /^#EXT-X-MAP:.*URI="([^"]+)"/.exec(trimmed);
    if (map) names.push(map[1]!);
    else if (trimmed !== '' && !trimmed.startsWith('#')) names.push(trimmed);
  }
  return names;
}

export function createFfmpegLivePuller(options: { ffmpegPath: string }): LivePuller {
  const pulls = new Set<LivePull>();

  return {
    start(request) {
      const child: ChildProcess = spawn(
        options.ffmpegPath,
        liveFfmpegArguments(request.rtspUrl, request.folder),
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-4000);
      });
      let isStopped = false;
      const handed = new Set<string>();
      let lastPlaylist = '';
      let watching: Promise<void> = Promise.resolve();

      async function look(): Promise<void> {
        const playlistPath = path.join(request.folder, livePlaylistName);
        const playlist = await fs.promises.readFile(playlistPath, 'utf8').catch(() => '');
        if (playlist === '' || playlist === lastPlaylist) return;
        const files: LiveFile[] = [];
        for (const name of playlistFiles(playlist)) {
          if (handed.has(name)) continue;
          const filePath = path.join(request.folder, name);
          const stat = await fs.promises.stat(filePath).catch(() => undefined);
          if (!stat) return; // Named before it is on disk: look again next time.
          files.push({ name, filePath, sizeBytes: stat.size });
        }
        lastPlaylist = playlist;
        for (const file of files) handed.add(file.name);
        await request.onUpdate({ files, playlist });
      }

      const timer = setInterval(() => {
        watching = watching.then(look).catch(() => undefined);
      }, watchIntervalMs);

      const ended = new Promise<{ reason: string | null; detail: string }>((resolve) => {
        child.on('error', (error) => {
          clearInterval(timer);
          resolve({ reason: recordingReasons.recorderMissing, detail: error.message });
        });
        child.on('close', (code, signal) => {
          clearInterval(timer);
          const detail =
            stderr.trim().split('\n').slice(-3).join(' | ') || `exit ${code ?? signal}`;
          void watching.then(() =>
            resolve({
              reason: isStopped ? null : describeFfmpegFailure(stderr),
              detail,
            }),
          );
        });
      });

      const pull: LivePull = {
        ended,
        async stop() {
          isStopped = true;
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGTERM');
            const killer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
            await ended;
            clearTimeout(killer);
          }
          await ended;
        },
      };
      pulls.add(pull);
      void ended.then(() => pulls.delete(pull));
      return pull;
    },

    async stopAll() {
      await Promise.all([...pulls].map((pull) => pull.stop()));
    },
  };
}
