/**
 * Recording capacity (issue 7): N simultaneous 15 s SD recordings (BENCH_RECORDINGS, 20) from
 * the local GStreamer camera, through the app's own recorder (ffmpeg, RTSP over TCP, video
 * copied) and filesystem storage, as the recording job runs them. Reports wall time, the CPU the
 * recorders used (their CPU-seconds and the share of the machine's cores), the camera's CPU
 * separately (it stands in for hardware on the farm), and checks every clip with ffprobe.
 * Target: all N clips complete (length within 0.6 s, H.264) within 25 s on 2 cores.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ManualClock } from '../../apps/server/src/lib/clock.ts';
import { createLocalCamera } from '../../apps/server/src/providers/camera/local-camera.ts';
import { createFfmpegRecorder } from '../../apps/server/src/providers/recorder/recorder.ts';
import { createFilesystemStorage } from '../../apps/server/src/providers/storage/filesystem-storage.ts';
import { metric, type Scenario } from '../lib/types.ts';

const name = 'recording-capacity';
const clipSeconds = 15;
const toleranceSeconds = 0.6;
const run = promisify(execFile);
const ticksPerSecond = 100;

/** Busy and total jiffies of the whole machine (all cores), from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const fields = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

/** CPU-seconds of a process (utime + stime), and of the children it has waited for. */
function processCpuSeconds(pid: number | 'self'): { own: number; children: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start at state (field 3).
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

/** The pid of our local-camera.py child, to measure it apart from the recorders. */
function cameraPid(): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== process.pid) continue;
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('local-camera.py'))
        return Number(entry);
    } catch {
      // The process ended while we looked.
    }
  }
  return undefined;
}

const scenario: Scenario = {
  name,
  async run(context) {
    const count = Number(process.env.BENCH_RECORDINGS ?? 20) || 20;
    const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-bench-recordings-'));
    const camera = createLocalCamera({ port: 0 });
    const recorder = createFfmpegRecorder({ ffmpegPath: 'ffmpeg' });
    const storage = createFilesystemStorage({
      root: path.join(folder, 'clips'),
      publicUrl: 'http://bench.invalid',
      secret: 'bench',
      clock: new ManualClock(new Date()),
    });
    try {
      const address = await camera.ensureRunning();
      const rtspUrl = `rtsp://${address.host}:${address.port}/12`;
      // One short recording first: the camera's pipeline starts on its first viewer.
      await recorder.record({
        rtspUrl,
        durationSeconds: 1,
        includeAudio: false,
        outputPath: path.join(folder, 'warm-up.mp4'),
      });
      const pid = cameraPid();
      context.log(`  ${count} simultaneous ${clipSeconds} s SD recordings from ${rtspUrl}`);

      const machineBefore = machineTicks();
      const selfBefore = processCpuSeconds('self');
      const cameraBefore = pid ? processCpuSeconds(pid).own : 0;
      const startedAt = performance.now();
      const results = await Promise.allSettled(
        Array.from({ length: count }, async (_, index) => {
          const outputPath = path.join(folder, `recording-${index}.mp4`);
          await recorder.record({
            rtspUrl,
            durationSeconds: clipSeconds,
            includeAudio: false,
            outputPath,
          });
          await storage.putFile(`bench/clip-${index}.mp4`, outputPath, 'video/mp4');
          await fs.promises.rm(outputPath);
          return path.join(storage.root, 'bench', `clip-${index}.mp4`);
        }),
      );
      const wallSeconds = (performance.now() - startedAt) / 1000;
      const machineAfter = machineTicks();
      const recorderCpu = processCpuSeconds('self').children - selfBefore.children;
      const cameraCpu = pid ? processCpuSeconds(pid).own - cameraBefore : null;
      const machineBusyPercent =
        ((machineAfter.busy - machineBefore.busy) /
          Math.max(1, machineAfter.total - machineBefore.total)) *
        100;

      const failures: string[] = [];
      let complete = 0;
      for (const [index, result] of results.entries()) {
        if (result.status === 'rejected') {
          failures.push(`#${index}: ${String(result.reason)}`);
          continue;
        }
        const { stdout } = await run('ffprobe', [
          '-v',
          'error',
          '-show_entries',
          'stream=codec_name,width,height:format=duration',
          '-of',
          'json',
          result.value,
        ]);
        const probe = JSON.parse(stdout) as {
          streams: { codec_name: string; width: number; height: number }[];
          format: { duration: string };
        };
        const duration = Number(probe.format.duration);
        const video = probe.streams[0];
        if (
          Math.abs(duration - clipSeconds) <= toleranceSeconds &&
          video?.codec_name === 'h264' &&
          video.width === 640
        ) {
          complete += 1;
        } else {
          failures.push(
            `#${index}: ${duration.toFixed(2)} s ${video?.codec_name ?? 'no video'} ${video?.width ?? 0}px`,
          );
        }
      }
      for (const failure of failures) context.log(`  incomplete: ${failure}`);

      return {
        metrics: [
          metric(name, `clips complete of ${count}`, complete, 'clips', { atLeast: count }),
          metric(name, 'wall time, all recordings', Number(wallSeconds.toFixed(2)), 's', {
            atMost: clipSeconds + 10,
          }),
          metric(name, 'recorder CPU (ffmpeg, all clips)', Number(recorderCpu.toFixed(2)), 'CPU-s'),
          metric(name, 'recorder CPU per clip', Number((recorderCpu / count).toFixed(3)), 'CPU-s'),
          metric(
            name,
            'recorder share of the machine',
            Number(((recorderCpu / wallSeconds / os.cpus().length) * 100).toFixed(1)),
            '%',
          ),
          metric(
            name,
            'local camera CPU (not part of the portal)',
            cameraCpu === null ? null : Number(cameraCpu.toFixed(2)),
            'CPU-s',
          ),
          metric(name, 'machine busy during the run', Number(machineBusyPercent.toFixed(1)), '%'),
        ],
        details: {
          count,
          clipSeconds,
          wallSeconds,
          recorderCpu,
          cameraCpu,
          machineBusyPercent,
          failures,
          cores: os.cpus().length,
        },
      };
    } finally {
      await camera.stop();
      await fs.promises.rm(folder, { recursive: true, force: true });
    }
  },
};

export default scenario;
