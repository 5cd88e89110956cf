/**
 * Daily timelapse cost (issue 17 part 4, decision 097): one camera-day made the way the
 * build-timelapse job makes it: BENCH_TIMELAPSE_CLIPS (24, an hourly schedule) stored clips of
 * BENCH_TIMELAPSE_CLIP_SECONDS (15) SD H.264 (640x360, 15 fps, a key frame every 2 s, as cameras
 * send), read back through the filesystem storage, two stills per clip with the time burnt in,
 * encoded into the MP4 and stored. Reports the CPU-seconds of the camera-day (what the job writes
 * in timelapses.cpu_ms, cross-checked with this process's reaped children in /proc), wall time and
 * output size; the clips are made before the clock starts. Runs BENCH_TIMELAPSE_DAYS (3) days and
 * reports the median. No target: a measurement for capacity planning (docs/operations.md).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ManualClock } from '../../apps/server/src/lib/clock.ts';
import { createFfmpegTimelapseMaker } from '../../apps/server/src/providers/recorder/timelapse-maker.ts';
import { createFilesystemStorage } from '../../apps/server/src/providers/storage/filesystem-storage.ts';
import { metric, type Scenario } from '../lib/types.ts';

const name = 'timelapse';
const run = promisify(execFile);
const ticksPerSecond = 100;

/** CPU-seconds of the children this process has waited for (cutime + cstime). */
function childrenCpuSeconds(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return ((fields[13] ?? 0) + (fields[14] ?? 0)) / ticksPerSecond;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const scenario: Scenario = {
  name,
  async run(context) {
    const clipCount = Number(process.env.BENCH_TIMELAPSE_CLIPS ?? 24) || 24;
    const clipSeconds = Number(process.env.BENCH_TIMELAPSE_CLIP_SECONDS ?? 15) || 15;
    const days = Number(process.env.BENCH_TIMELAPSE_DAYS ?? 3) || 3;
    const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-bench-timelapse-'));
    const storage = createFilesystemStorage({
      root: path.join(folder, 'store'),
      publicUrl: 'http://bench.invalid',
      secret: 'bench',
      clock: new ManualClock(new Date()),
    });
    const maker = createFfmpegTimelapseMaker({ ffmpegPath: 'ffmpeg' });
    try {
      context.log(`  making ${clipCount} clips of ${clipSeconds} s (not measured)`);
      const keys: string[] = [];
      for (let index = 0; index < clipCount; index += 1) {
        const file = path.join(folder, `source-${index}.mp4`);
        await run('ffmpeg', [
          '-hide_banner',
          '-loglevel',
          'error',
          '-f',
          'lavfi',
          '-i',
          `testsrc2=size=640x360:rate=15:duration=${clipSeconds}`,
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-g',
          '30',
          '-pix_fmt',
          'yuv420p',
          '-y',
          file,
        ]);
        const key = `livestreams/bench/clip-${index}.mp4`;
        await storage.putFile(key, file, 'video/mp4');
        await fs.promises.rm(file);
        keys.push(key);
      }

      const runs: {
        ffmpegCpu: number;
        childrenCpu: number;
        ownCpu: number;
        wall: number;
        sizeBytes: number;
        frames: number;
        durationMs: number;
      }[] = [];
      for (let day = 0; day < days; day += 1) {
        const work = path.join(folder, `work-${day}`);
        await fs.promises.mkdir(work, { recursive: true });
        const childrenBefore = childrenCpuSeconds();
        const ownBefore = process.cpuUsage();
        const startedAt = performance.now();
        // What the job does for one camera-day: read the clips back, make, store.
        const clips = [];
        for (const [index, key] of keys.entries()) {
          const filePath = path.join(work, `clip-${index}.mp4`);
          await storage.copyToFile(key, filePath);
          clips.push({
            filePath,
            durationSeconds: clipSeconds,
            label: `Mon 23 Nov 2026 ${String(index % 24).padStart(2, '0')}:00`,
          });
        }
        const outputPath = path.join(work, 'timelapse.mp4');
        const made = await maker.make({ clips, outputPath, workFolder: work });
        await storage.putFile(`timelapses/bench/day-${day}.mp4`, outputPath, 'video/mp4');
        const wall = (performance.now() - startedAt) / 1000;
        const own = process.cpuUsage(ownBefore);
        runs.push({
          ffmpegCpu: made.cpuMs / 1000,
          childrenCpu: childrenCpuSeconds() - childrenBefore,
          ownCpu: (own.user + own.system) / 1e6,
          wall,
          sizeBytes: made.sizeBytes,
          frames: made.frameCount,
          durationMs: made.durationMs,
        });
        await fs.promises.rm(work, { recursive: true, force: true });
        context.log(
          `  day ${day + 1}: ffmpeg ${made.cpuMs / 1000} CPU-s, wall ${wall.toFixed(2)} s, ${made.frameCount} frames, ${(made.sizeBytes / 1000).toFixed(0)} KB`,
        );
      }
      const output = path.join(storage.root, 'timelapses', 'bench', 'day-0.mp4');
      const { stdout } = await run('ffprobe', [
        '-v',
        'error',
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=codec_name,width,pix_fmt',
        '-of',
        'csv=p=0',
        output,
      ]);
      const [first] = runs;
      return {
        metrics: [
          metric(
            name,
            `CPU per camera-day (ffmpeg, cpu_ms; ${clipCount} clips of ${clipSeconds} s)`,
            Number(median(runs.map((entry) => entry.ffmpegCpu)).toFixed(3)),
            'CPU-s',
          ),
          metric(
            name,
            'CPU per camera-day (reaped children in /proc: ffmpeg and its shell)',
            Number(median(runs.map((entry) => entry.childrenCpu)).toFixed(2)),
            'CPU-s',
          ),
          metric(
            name,
            'CPU per camera-day (the job in Node: copying, spawning)',
            Number(median(runs.map((entry) => entry.ownCpu)).toFixed(3)),
            'CPU-s',
          ),
          metric(
            name,
            'wall time per camera-day',
            Number(median(runs.map((entry) => entry.wall)).toFixed(2)),
            's',
          ),
          metric(name, 'timelapse size', Math.round(first!.sizeBytes / 1000), 'KB'),
          metric(name, 'timelapse length', first!.durationMs / 1000, 's'),
          metric(name, 'frames', first!.frames, 'frames', { atLeast: clipCount * 2 }),
        ],
        details: { clipCount, clipSeconds, days, runs, output: stdout.trim() },
      };
    } finally {
      await fs.promises.rm(folder, { recursive: true, force: true });
    }
  },
};

export default scenario;
