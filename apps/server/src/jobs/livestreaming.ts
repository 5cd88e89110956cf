/**
 * Puts livestreaming together: storage, recorder, services, and the jobs that record. It lives
 * with the jobs, above the modules, because the recording queue the services use sends the
 * record-clip job (modules never import jobs: docs/decisions/084). The composition root
 * (process/compose.ts) builds it once, from the storage and recorder it chose, for the routes
 * and the jobs alike (decision 087). The recording queue is bound to
 * pg-boss once it runs; until then (or in a process without workers) recordings on request
 * answer 503 and everything else works.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { JobDefinition, JobRunner } from './job-runner.ts';
import { queueLivestreamRecordingsJob } from './queue-livestream-recordings.job.ts';
import { recordLivestreamClipJob } from './record-livestream-clip.job.ts';
import { recoverDeadWorkersJob } from './recover-dead-workers.job.ts';
import { switchOffUnusedLivestreamsJob } from './switch-off-unused-livestreams.job.ts';
import { alertLivestreamClipsJob } from './alert-livestream-clips.job.ts';
import type { Notifier } from '../modules/notifications/notifier.ts';
import { createLivestreamAlertsService } from '../modules/livestream/livestream-alerts.service.ts';
import type { Clock } from '../lib/clock.ts';
import { recordingWorkFolder } from '../lib/instance-workspace.ts';
import type { RateLimiter } from '../lib/rate-limiter.ts';
import type { LocalCamera } from '../providers/camera/local-camera.ts';
import type { Mailer } from '../providers/mail/mail.ts';
import type { Recorder } from '../providers/recorder/recorder.ts';
import type { ClipStorage } from '../providers/storage/storage.ts';
import type { UploadSpool } from '../providers/storage/upload-spool.ts';
import {
  createLivestreamService,
  type LivestreamService,
} from '../modules/livestream/livestream.service.ts';
import {
  createRecordingService,
  type CameraPortOpener,
  type RecordClipPayload,
  type RecordingQueue,
  type RecordingService,
} from '../modules/livestream/recording.service.ts';

export interface Livestreaming {
  service: LivestreamService;
  recording: RecordingService;
  storage: ClipStorage;
  /** The job definitions to hand to startJobs. */
  // Each definition checks its own payload type; the list only needs the common shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  jobs: JobDefinition<any>[];
  /** Connects the recording queue to the running pg-boss. */
  attachJobRunner(runner: Pick<JobRunner, 'send'>): void;
  /**
   * Graceful shutdown, after the job queue stopped fetching (JobRunner.stop is under way): stops
   * the ffmpeg children, hands over the clips being recorded (none stays "recording") and deletes
   * this process's temporary recording files (docs/decisions/073). Safe to call more than once.
   */
  stop(): Promise<void>;
}

export interface LivestreamingDependencies {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  /** The livestream's alerts to the people who chose them (decision 122). */
  notifier: Notifier;
  rateLimiter: RateLimiter;
  storage: ClipStorage;
  /** Stores recorded clips, keeping them on this machine while storage fails (decision 105). */
  uploads: UploadSpool;
  cameraAccess: CameraPortOpener;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** Chosen once by createRecorder (providers/recorder/create-recorder.ts). */
  recorder: Recorder;
  /** The RTSP address the marketing page's demo clip is recorded from, if any. */
  showcaseSource?: () => Promise<string>;
  /** The local demo camera, when this process runs one (local mode). */
  demoCamera?: Pick<LocalCamera, 'check'>;
  /**
   * This process's id (lib/instance.ts), written on the clips it records and naming its
   * temporary folder under DATA_DIR/tmp. server.ts passes the registered instance; without one
   * (scripts, tests that do not record) a random id is used.
   */
  instanceId?: string;
  /** Wall-clock time for heartbeats and claims; the system clock unless a test injects one. */
  processClock?: Clock;
}

/** Retries: a scheduled slot gets three more tries with back-off; on-request clips one (the person is waiting). */
function sendOptions(payload: RecordClipPayload) {
  return payload.kind === 'scheduled'
    ? { retryLimit: 3, retryDelay: 20, retryBackoff: true, expireInSeconds: 15 * 60 }
    : { retryLimit: 1, retryDelay: 2, expireInSeconds: 5 * 60 };
}

export function createLivestreaming(
  config: Config,
  deps: LivestreamingDependencies,
): Livestreaming {
  const { recorder } = deps;
  let runner: Pick<JobRunner, 'send'> | undefined;
  const instanceId = deps.instanceId ?? randomUUID();

  const recordingQueue: RecordingQueue = {
    async enqueue(payload, options = {}) {
      if (!runner) {
        throw new AppError(
          'PROVIDER_UNAVAILABLE',
          'Recording is not available right now. Please try again later.',
        );
      }
      const id = await runner.send(recordJob, payload, { ...sendOptions(payload), ...options });
      return id !== null;
    },
  };

  const recording = createRecordingService({
    db: deps.db,
    clock: deps.clock,
    mailer: deps.mailer,
    storage: deps.storage,
    uploads: deps.uploads,
    recorder,
    cameraAccess: deps.cameraAccess,
    recordingQueue,
    publicUrl: config.publicUrl,
    clipHistory: config.livestreaming.clipHistory,
    log: deps.log,
    showcaseSource: deps.showcaseSource,
    instanceId,
    processClock: deps.processClock,
    workFolder: recordingWorkFolder(config.dataDir, instanceId),
  });
  const recordJob = recordLivestreamClipJob({
    recording,
    concurrency: config.livestreaming.recordingConcurrency,
  });

  const service = createLivestreamService({
    db: deps.db,
    clock: deps.clock,
    mailer: deps.mailer,
    rateLimiter: deps.rateLimiter,
    storage: deps.storage,
    cameraAccess: deps.cameraAccess,
    recordingQueue,
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    log: deps.log,
    showcaseSource: deps.showcaseSource,
    demoCamera: deps.demoCamera,
  });

  const alerts = createLivestreamAlertsService({
    db: deps.db,
    clock: deps.clock,
    notifier: deps.notifier,
    publicUrl: config.publicUrl,
    log: deps.log,
  });

  return {
    service,
    recording,
    storage: deps.storage,
    jobs: [
      recordJob,
      queueLivestreamRecordingsJob({ recording }),
      switchOffUnusedLivestreamsJob({ recording, alerts }),
      alertLivestreamClipsJob({ alerts }),
      recoverDeadWorkersJob({ recording }),
    ],
    attachJobRunner(jobRunner) {
      runner = jobRunner;
    },
    stop: () => recording.stop(),
  };
}

/**
 * Where the marketing page's demo clip is recorded from: SHOWCASE_RTSP_URL, or else (local mode)
 * the local demo camera's SD stream.
 */
export function showcaseSourceFrom(
  config: Config,
  localCamera: LocalCamera | undefined,
): (() => Promise<string>) | undefined {
  const configured = config.livestreaming.showcaseRtspUrl;
  if (configured) return async () => configured;
  if (!localCamera) return undefined;
  return async () => {
    const address = await localCamera.ensureRunning();
    return `rtsp://${address.host}:${address.port}/12`;
  };
}
