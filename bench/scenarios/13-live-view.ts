/**
 * Live view (issue 27 item 7): on one worker, 1, 10 and 30 cameras pulled live at once from the
 * local GStreamer camera through the app's own live puller (ffmpeg, RTSP over TCP, video copied
 * into 1 s fMP4 HLS) with every segment stored in filesystem storage as the worker stores it,
 * and 3 viewers per camera reading the playlist and every new segment back from storage. For
 * each level: time to first picture (start of the pull to its first stored segment: what a
 * player can show first), how far the newest stored segment is behind the clock
 * (EXT-X-PROGRAM-DATE-TIME; a player at the live edge adds its 1.5 s sync), and CPU per live
 * camera (ffmpeg children plus this process's storing and serving, per camera, as a share of one
 * core). Side by side, the scheduled-clip recorder on the same camera and machine: 10 clips of
 * 10 s at once, its CPU per camera the same way. Levels: BENCH_LIVE_LEVELS ("1,10,30"), each held
 * BENCH_LIVE_SECONDS (20) after its first picture.
 * Targets (issue 27): first picture <= 3 s and <= 4 s behind the camera at one camera.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../apps/server/src/lib/clock.ts';
import { createLocalCamera } from '../../apps/server/src/providers/camera/local-camera.ts';
import { createFfmpegLivePuller } from '../../apps/server/src/providers/recorder/live-puller.ts';
import { createFfmpegRecorder } from '../../apps/server/src/providers/recorder/recorder.ts';
import { createFilesystemStorage } from '../../apps/server/src/providers/storage/filesystem-storage.ts';
import { metric, type Metric, type Scenario } from '../lib/types.ts';

const name = 'live-view';
const viewersPerCamera = 3;
const ticksPerSecond = 100;

/** CPU-seconds of this process and of the children it has waited for (ffmpeg that ended). */
function selfCpuSeconds(): { own: number; children: number } {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const field = (index: number) => fields[index] ?? 0;
  return {
    own: (field(11) + field(12)) / ticksPerSecond,
    children: (field(13) + field(14)) / ticksPerSecond,
  };
}

/** CPU-seconds of our running ffmpeg children (they are reaped only when they end). */
function runningFfmpegCpuSeconds(): number {
  let ticks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid) continue;
      if (!stat.includes('(ffmpeg)')) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Ended while we looked.
    }
  }
  return ticks / ticksPerSecond;
}

const median = (values: number[]) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const round = (value: number | null, digits = 2) =>
  value === null ? null : Number(value.toFixed(digits));

interface LevelResult {
  cameras: number;
  started: number;
  firstPictureSeconds: number[];
  behindSeconds: number[];
  cpuPercentPerCamera: number;
  segmentsRead: number;
}

const scenario: Scenario = {
  name,
  async run(context) {
    const levels = (process.env.BENCH_LIVE_LEVELS ?? '1,10,30')
      .split(',')
      .map(Number)
      .filter((value) => value > 0);
    const holdSeconds = Number(process.env.BENCH_LIVE_SECONDS ?? 20) || 20;
    const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-bench-live-'));
    const camera = createLocalCamera({ port: 0 });
    const storage = createFilesystemStorage({
      root: path.join(folder, 'storage'),
      publicUrl: 'http://bench.invalid',
      secret: 'bench',
      clock: new ManualClock(new Date()),
    });
    const puller = createFfmpegLivePuller({ ffmpegPath: 'ffmpeg' });
    const recorder = createFfmpegRecorder({ ffmpegPath: 'ffmpeg' });
    const results: LevelResult[] = [];
    try {
      const address = await camera.ensureRunning();
      const rtspUrl = `rtsp://${address.host}:${address.port}/12`;
      // The camera's pipeline starts on its first viewer: one short recording first.
      await recorder.record({
        rtspUrl,
        durationSeconds: 1,
        includeAudio: false,
        outputPath: path.join(folder, 'warm-up.mp4'),
      });

      for (const cameras of levels) {
        context.log(`  ${cameras} live camera(s), ${viewersPerCamera} viewers each`);
        const firstPicture: number[] = [];
        const behind: number[] = [];
        let segmentsRead = 0;
        let measuring = false;
        const pulls = Array.from({ length: cameras }, (_, index) => {
          const pullFolder = path.join(folder, `level-${cameras}`, `camera-${index}`);
          fs.mkdirSync(pullFolder, { recursive: true });
          const startedAt = performance.now();
          let hasPicture = false;
          const pull = puller.start({
            rtspUrl,
            folder: pullFolder,
            async onUpdate(update) {
              for (const file of update.files) {
                const key = `live/bench-${cameras}-${index}/${file.name}`;
                await storage.putFile(key, file.filePath, 'video/mp4');
                if (!file.name.endsWith('.m4s')) continue;
                if (!hasPicture) {
                  hasPicture = true;
                  firstPicture.push((performance.now() - startedAt) / 1000);
                }
                // The viewers: each reads the playlist's newest segment back from storage.
                for (let viewer = 0; viewer < viewersPerCamera; viewer += 1) {
                  await fs.promises.readFile(path.join(storage.root, key));
                  segmentsRead += 1;
                }
              }
              const stamps = [...update.playlist.matchAll(/#EXT-X-PROGRAM-DATE-TIME:(.+)/g)].map(
                (match) => Date.parse(match[1]!),
              );
              if (measuring && stamps.length > 0)
                behind.push((Date.now() - Math.max(...stamps)) / 1000);
            },
          });
          return pull;
        });
        // Wait for every first picture (or 20 s), then measure the hold.
        const deadline = Date.now() + 20_000;
        while (firstPicture.length < cameras && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        measuring = true;
        const cpuBefore = selfCpuSeconds().own + runningFfmpegCpuSeconds();
        const holdStart = performance.now();
        await new Promise((resolve) => setTimeout(resolve, holdSeconds * 1000));
        const cpu = selfCpuSeconds().own + runningFfmpegCpuSeconds() - cpuBefore;
        const wall = (performance.now() - holdStart) / 1000;
        await Promise.all(pulls.map((pull) => pull.stop()));
        results.push({
          cameras,
          started: firstPicture.length,
          firstPictureSeconds: firstPicture,
          behindSeconds: behind,
          cpuPercentPerCamera: (cpu / wall / cameras) * 100,
          segmentsRead,
        });
        await fs.promises.rm(path.join(folder, `level-${cameras}`), {
          recursive: true,
          force: true,
        });
      }

      // The scheduled-clip recorder on the same camera, for comparison: 10 clips of 10 s at once.
      const recordings = 10;
      const recordSeconds = 10;
      const before = selfCpuSeconds();
      const recordStart = performance.now();
      await Promise.all(
        Array.from({ length: recordings }, (_, index) =>
          recorder.record({
            rtspUrl,
            durationSeconds: recordSeconds,
            includeAudio: false,
            outputPath: path.join(folder, `clip-${index}.mp4`),
          }),
        ),
      );
      const recordWall = (performance.now() - recordStart) / 1000;
      const after = selfCpuSeconds();
      const recorderCpu = after.children - before.children + (after.own - before.own);
      const recorderPercentPerCamera = (recorderCpu / recordWall / recordings) * 100;

      const metrics: Metric[] = [];
      for (const level of results) {
        const first = median(level.firstPictureSeconds);
        const worstFirst = level.firstPictureSeconds.length
          ? Math.max(...level.firstPictureSeconds)
          : null;
        const lag = median(level.behindSeconds);
        const isOne = level.cameras === 1;
        metrics.push(
          metric(name, `${level.cameras} cameras: pulls with a picture`, level.started, 'pulls', {
            atLeast: level.cameras,
          }),
          metric(
            name,
            `${level.cameras} cameras: first picture, median`,
            round(first),
            's',
            isOne ? { atMost: 3 } : undefined,
          ),
          metric(name, `${level.cameras} cameras: first picture, slowest`, round(worstFirst), 's'),
          metric(
            name,
            `${level.cameras} cameras: newest segment behind the clock, median`,
            round(lag),
            's',
            isOne ? { atMost: 4 } : undefined,
          ),
          metric(
            name,
            `${level.cameras} cameras: CPU per live camera (${viewersPerCamera} viewers)`,
            round(level.cpuPercentPerCamera, 1),
            '% of a core',
          ),
        );
      }
      metrics.push(
        metric(
          name,
          'scheduled-clip recorder: CPU per camera (10 at once, same camera)',
          round(recorderPercentPerCamera, 1),
          '% of a core',
        ),
      );
      return {
        metrics,
        details: {
          levels: results,
          holdSeconds,
          recorder: { recordings, recordSeconds, recordWall, recorderCpu },
          cores: os.cpus().length,
        },
      };
    } finally {
      await puller.stopAll();
      await camera.stop();
      await fs.promises.rm(folder, { recursive: true, force: true });
    }
  },
};

export default scenario;
