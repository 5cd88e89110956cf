/**
 * A test context with livestreaming wired for real: the local GStreamer camera on a free port,
 * ffmpeg recording from it, clips on disk, and pg-boss running the recording job (the cron jobs
 * are left out: tests call the scheduler themselves, with the manual clock; other jobs stay in
 * the test queue).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestContext, testPublicUrl, type TestContext } from './test-app.ts';
import { testConfig } from '../../src/config/config.ts';
import { startJobs, type JobRunner } from '../../src/jobs/job-runner.ts';
import { recordClipJobName } from '../../src/modules/recording/recording.service.ts';
import { systemClock, type Clock } from '../../src/lib/clock.ts';
import { createInstance, type Instance } from '../../src/lib/instance.ts';
import { createLocalCamera, type LocalCamera } from '../../src/providers/camera/local-camera.ts';
import type { ConnectivityPlatform } from '../../src/providers/connectivity/connectivity.ts';
import { createLocalSimPlatform } from '../../src/providers/connectivity/local-sim-platform.ts';
import { createFfmpegRecorder, type Recorder } from '../../src/providers/recorder/recorder.ts';
import {
  createFilesystemStorage,
  type FilesystemStorage,
} from '../../src/providers/storage/filesystem-storage.ts';
import type { LivestreamingParts } from '../../src/process/compose.ts';

export interface LivestreamTestContext extends TestContext {
  livestreaming: LivestreamingParts;
  /** This test process's instance row (registered, beating on the system clock). */
  instance: Instance;
  /** The data directory the recordings' temporary files go under. */
  dataDir: string;
  storage: FilesystemStorage;
  camera: LocalCamera;
  runner: JobRunner;
  /** ICCIDs whose camera "does not answer": their ports point at a closed port. */
  unreachableCameras: Set<string>;
  /** Every openCameraPorts call, in order. */
  portOpenings: string[];
  /** Set: the demo camera "does not answer" (its address is a closed port). */
  showcase: { isUnreachable: boolean };
  /** What the livestream code logged at warn level. */
  warnings: string[];
}

/**
 * The context. `maxClipSeconds` shortens real recordings (still real RTSP and ffmpeg) so that a
 * test of scheduling does not wait 15 s per clip.
 */
export async function createLivestreamTestContext(
  options: {
    maxClipSeconds?: number;
    clipHistory?: number;
    /** Heartbeats and claims on this clock (a recovery test); the system clock otherwise. */
    processClock?: Clock;
  } = {},
): Promise<LivestreamTestContext> {
  const storageRoot = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-livestream-'));
  const dataDir = path.join(storageRoot, 'data');
  let instance: Instance | undefined;
  const camera = createLocalCamera({ port: 0 });
  const unreachableCameras = new Set<string>();
  const portOpenings: string[] = [];
  const showcase = { isUnreachable: false };
  const warnings: string[] = [];
  // What the app logged at warn level or above (the livestream code's warnings among them).
  const logStream = {
    write(line: string) {
      const { level, msg } = JSON.parse(line) as { level: number; msg?: string };
      if (level >= 40) warnings.push(msg ?? '');
    },
  };
  let storage: FilesystemStorage | undefined;
  const realRecorder = createFfmpegRecorder({ ffmpegPath: 'ffmpeg' });
  const recorder: Recorder = {
    record: (request) =>
      realRecorder.record({
        ...request,
        durationSeconds: Math.min(request.durationSeconds, options.maxClipSeconds ?? Infinity),
      }),
    stop: () => realRecorder.stop!(),
  };

  const context = await createTestContext(
    {
      logLevel: 'warn',
      dataDir,
      livestreaming: {
        ...testConfig().livestreaming,
        clipHistory: options.clipHistory ?? testConfig().livestreaming.clipHistory,
        recordingConcurrency: 4,
      },
    },
    undefined,
    ({ database, clock }) => {
      // The real local SIM platform, its cameras backed by the local RTSP server; a camera
      // listed in `unreachableCameras` answers on a closed port instead.
      const platform = createLocalSimPlatform({ db: database.db, clock, camera });
      const connectivity: ConnectivityPlatform = {
        ...platform,
        async openCameraPorts(iccid, ports) {
          portOpenings.push(iccid);
          const access = await platform.openCameraPorts(iccid, ports);
          if (!unreachableCameras.has(iccid)) return access;
          // Port 9 (discard) is closed on the loopback: the connection is refused at once.
          return { ...access, ports: Object.fromEntries(ports.map((port) => [port, 9])) };
        },
      };
      instance = createInstance({
        db: database.db,
        clock: options.processClock ?? systemClock,
        role: 'all',
      });
      storage = createFilesystemStorage({
        root: storageRoot,
        publicUrl: testPublicUrl,
        secret: 'test-media-secret',
        clock,
      });
      return {
        connectivity,
        storage,
        recorder,
        showcaseSource: async () => {
          if (showcase.isUnreachable) return 'rtsp://127.0.0.1:9/12';
          const address = await camera.ensureRunning();
          return `rtsp://${address.host}:${address.port}/12`;
        },
        localCamera: camera,
        instanceId: instance.id,
        processClock: options.processClock,
        logStream,
      };
    },
  );
  const { livestreaming } = context.services;

  await instance!.register();
  // On the system clock the row must stay alive however long the test runs.
  if (!options.processClock) instance!.startHeartbeat();
  // The recording job runs on pg-boss; every other job stays in the test queue.
  const recordingJobs = context.services.jobs.filter((job) => job.name === recordClipJobName);
  const runner = await startJobs(context.database, recordingJobs, {
    onError: () => undefined,
    pollingIntervalSeconds: 0.5,
  });
  context.jobQueue.forward([recordClipJobName], runner.queue);

  return {
    ...context,
    livestreaming,
    instance: instance!,
    dataDir,
    storage: storage!,
    camera,
    runner,
    unreachableCameras,
    portOpenings,
    showcase,
    warnings,
    close: async () => {
      await runner.stop();
      await instance!.stop();
      await camera.stop();
      await context.close();
      await fs.promises.rm(storageRoot, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
