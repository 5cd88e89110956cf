/**
 * Recording: what the workers do. The scheduler queues one job per due slot (UK hours and days);
 * a job claims its slot's clip row (unique per livestream and slot, so racing workers record it
 * once), reaches the camera through the SIM platform, records with ffmpeg, stores the MP4 (or,
 * while storage fails, keeps it on this machine until storage has it: decision 105), and trims
 * the history. Failures are written on the clip (the customer sees them) and thrown so
 * pg-boss retries with back-off. Each clip names the process recording it; a dead process's
 * clips are taken over by `recoverDeadWorkers`, and `stop` hands this process's over on a
 * graceful shutdown (docs/decisions/073). The same job records clips asked for now
 * (clip-requests.service.ts) and the Livestreaming page's demo clip (showcase.service.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { livestreamRtspPort } from '@farmcam/contract';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { markDeadInstances, mayJudgeOthers } from '../../lib/instance.ts';
import type { JobQueue, JobSendOptions } from '../../lib/job-queue.ts';
import { countRecording } from '../../lib/metrics.ts';
import {
  recordingReasons,
  RecordingError,
  RecordingInterruptedError,
  type Recorder,
} from '../../providers/recorder/recorder.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import {
  uploadSpoolPolicy,
  type PendingUploadOwner,
  type UploadSpool,
} from '../../providers/storage/upload-spool.ts';
import { eligibilityOf } from '../livestream/eligibility.ts';
import type { CameraPortOpener } from '../livestream/livestream-access.ts';
import {
  findLivestream,
  findLivestreamCamera,
  listDueLivestreams,
  type LivestreamRow,
} from '../livestream/livestream.service.ts';
import { slotKeyAt, ukWallClock } from '../livestream/schedule.ts';
import { recordingRepository as repository, type ShowcaseFailure } from './recording.repository.ts';

export const recordClipPayload = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('scheduled'), livestreamId: z.uuid(), slot: z.string().min(1) }),
  z.object({
    kind: z.literal('immediate'),
    clipId: z.uuid(),
    rtspPath: z.enum(['/12', '/11']),
    includeAudio: z.boolean(),
  }),
  z.object({ kind: z.literal('showcase') }),
]);
export type RecordClipPayload = z.infer<typeof recordClipPayload>;

/** The job that records one clip (jobs/record-livestream-clip.job.ts), queued by name. */
export const recordClipJobName = 'livestream-record-clip';

/**
 * Hands a recording to the worker pool through the one job queue; false when an identical one
 * is queued already.
 */
export function queueRecording(
  jobQueue: JobQueue,
  payload: RecordClipPayload,
  options?: JobSendOptions,
): Promise<boolean> {
  return jobQueue.send(recordClipJobName, payload, options);
}

export interface RecordingServiceDependencies {
  db: Database;
  clock: Clock;
  storage: ClipStorage;
  /** Stores recorded files, keeping them on this machine while storage fails (decision 105). */
  uploads: UploadSpool;
  recorder: Recorder;
  cameraAccess: CameraPortOpener;
  jobQueue: JobQueue;
  /** Ready clips kept per livestream; older ones are deleted. */
  clipHistory: number;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** Where the demo clip is recorded from (showcase.service.ts), if anywhere. */
  showcaseSource?: () => Promise<string>;
  /** This process (instances.id): the claim written on the clips it records. */
  instanceId: string;
  /**
   * Wall-clock time for heartbeats and claims (whether a process is alive), kept apart from
   * business time, which tests move by days. The system clock unless a test injects one.
   */
  processClock?: Clock;
  /** This process's own folder for files being recorded (lib/instance-workspace.ts). */
  workFolder: string;
}

/**
 * A clip "recording" this long without a named process (rows from before claims were recorded)
 * has lost its worker. Clips with a claimant are taken over as soon as it is dead.
 */
const staleRecordingMs = 10 * 60_000;

/** What the customer reads on a scheduled clip whose recording was cut short on our side. */
export const interruptedScheduledReason =
  'The recording was interrupted by a restart of our service. It is being recorded again.';
/** What the customer reads on a clip they asked for when the recording was cut short on our side. */
export const interruptedRequestReason =
  'The recording was interrupted by a restart of our service. Please press Record again.';
/** A scheduled clip whose worker died twice: given up (the next slot records as usual). */
export const abandonedScheduledReason =
  'The recording was interrupted twice by a fault on our side. The next scheduled recording will go ahead as usual.';

/** A clip whose file waited for storage longer than the spool keeps trying (decision 105). */
export const abandonedUploadReason =
  'The recording could not be stored within 7 days because of a fault on our side. The next scheduled recording will go ahead as usual.';

/** On-request clips (the setup's preview, "record now") have slots like `preview:<id>`. */
export function isRequestedClipSlot(slot: string | null): boolean {
  return slot === null || /^(preview|now):/.test(slot);
}
const showcaseDurationSeconds = 15;

/** What the customer reads when a recording failed. */
export function failureReason(error: unknown): string {
  if (error instanceof RecordingError) return error.reason;
  if (error instanceof AppError) return error.message;
  return recordingReasons.unknown;
}

export type RecordingService = ReturnType<typeof createRecordingService>;

export function createRecordingService(deps: RecordingServiceDependencies) {
  const { db, clock, workFolder, instanceId } = deps;
  const processClock = deps.processClock ?? systemClock;
  /** Set by `stop`: no new recording starts in this process. */
  let isStopping = false;
  /** Recordings under way, so `stop` can wait for them to write their outcome. */
  const inFlight = new Set<Promise<void>>();

  /**
   * Records `rtspUrl` into a file in this process's work folder, then hands it to `keep` (which
   * stores it, or moves it into the upload spool); the file is deleted afterwards either way.
   */
  async function capture<Result>(
    rtspUrl: string,
    options: { durationSeconds: number; includeAudio: boolean },
    keep: (filePath: string) => Promise<Result>,
  ): Promise<Result> {
    await fs.promises.mkdir(workFolder, { recursive: true });
    const outputPath = path.join(workFolder, `${randomUUID()}.mp4`);
    try {
      await deps.recorder.record({ rtspUrl, outputPath, ...options });
      return await keep(outputPath);
    } finally {
      await fs.promises.rm(outputPath, { force: true });
    }
  }

  /** The camera's RTSP address now (the platform may have moved it), kept on the livestream. */
  async function cameraUrl(livestream: LivestreamRow, rtspPath: string): Promise<string> {
    const access = await deps.cameraAccess.openCameraPorts(livestream.simIccid, [
      livestreamRtspPort,
    ]);
    const port = access.ports[livestreamRtspPort];
    if (!port) throw new AppError('PROVIDER_UNAVAILABLE', 'The camera port is not open');
    if (access.host !== livestream.cameraHost || port !== livestream.cameraPort) {
      await repository.saveCameraAddress(db, livestream.id, {
        cameraHost: access.host,
        cameraPort: port,
      });
    }
    return `rtsp://${access.host}:${port}${rtspPath}`;
  }

  async function trimHistory(livestreamId: string): Promise<void> {
    const extra = await repository.clipsBeyondHistory(db, livestreamId, deps.clipHistory);
    for (const clip of extra) {
      if (clip.storage_key && clip.status === 'ready') await deps.storage.delete(clip.storage_key);
      await repository.deleteClip(db, clip.id);
    }
  }

  async function recordClip(
    livestream: LivestreamRow,
    clipId: string,
    storageKey: string,
    options: {
      rtspPath: string;
      durationSeconds: number;
      includeAudio: boolean;
      kind: 'scheduled' | 'immediate';
    },
  ): Promise<void> {
    countRecording(options.kind, 'started');
    try {
      const rtspUrl = await cameraUrl(livestream, options.rtspPath);
      const stored = await capture(rtspUrl, options, (filePath) =>
        deps.uploads.store({
          key: storageKey,
          filePath,
          contentType: 'video/mp4',
          kind: 'clip',
          id: clipId,
        }),
      );
      if (!stored.isStored) {
        // Recorded and kept on this machine: the spool stores it when storage answers, and
        // the slot is not recorded again (decision 105). Done, as far as the job is concerned.
        await repository.awaitUpload(db, clipId, instanceId);
        return;
      }
      await repository.finishClip(
        db,
        clipId,
        { status: 'ready', sizeBytes: stored.sizeBytes },
        instanceId,
      );
      countRecording(options.kind, 'completed');
    } catch (error) {
      if (error instanceof RecordingInterruptedError || isStopping) {
        return handOverInterrupted(clipId, options.kind, error);
      }
      await repository.finishClip(
        db,
        clipId,
        { status: 'failed', error: failureReason(error) },
        instanceId,
      );
      countRecording(options.kind, 'failed');
      deps.log.warn(
        { err: error, livestreamId: livestream.id, clipId },
        `Recording failed: ${failureReason(error)}`,
      );
      throw error;
    }
    await trimHistory(livestream.id);
  }

  /**
   * A recording this process's shutdown cut short (decision 073). A scheduled slot: failed with
   * the claim released and the error thrown, so pg-boss retries the job (on another worker, or
   * here after the restart) and the retry's claim takes the failed slot over. A clip someone
   * asked for: failed with "press Record again" and not retried, so the waiting page stops at
   * once instead of waiting on a worker that may be minutes away.
   */
  async function handOverInterrupted(
    clipId: string,
    kind: 'scheduled' | 'immediate',
    error: unknown,
  ): Promise<void> {
    if (kind === 'scheduled') {
      await repository.releaseClaim(
        db,
        { id: clipId, claimedBy: instanceId },
        interruptedScheduledReason,
        { isRecovery: false },
      );
      deps.log.info({ clipId }, 'Scheduled recording interrupted by shutdown; it will be retried');
      throw error;
    }
    await repository.releaseClaim(
      db,
      { id: clipId, claimedBy: instanceId },
      interruptedRequestReason,
    );
    deps.log.info({ clipId }, 'Requested recording interrupted by shutdown');
  }

  async function recordScheduled(livestreamId: string, slot: string): Promise<void> {
    const livestream = await findLivestream(db, livestreamId);
    const plan = livestream ? await findLivestreamCamera(db, livestreamId) : undefined;
    const now = clock.now();
    // The schedule may have been switched off, or the plan changed, since the job was queued.
    if (!livestream || !plan || !livestream.isActive || !eligibilityOf(plan, now).isEligible) {
      deps.log.info({ livestreamId, slot }, 'Scheduled recording skipped: not active or eligible');
      if (livestream) await repository.dropAwaitingRecovery(db, livestreamId, slot);
      return;
    }
    const storageKey = `livestreams/${livestream.id}/${slot}-${randomUUID().slice(0, 8)}.mp4`;
    const clip = await repository.claimSlot(db, {
      livestreamId,
      slot,
      durationSeconds: livestream.durationSeconds,
      storageKey,
      now,
      aliveAt: processClock.now(),
      claimedBy: instanceId,
      staleBefore: new Date(now.getTime() - staleRecordingMs),
    });
    if (!clip) return;
    await recordClip(livestream, clip.id, clip.storageKey ?? storageKey, {
      rtspPath: livestream.rtspPath,
      durationSeconds: livestream.durationSeconds,
      includeAudio: livestream.includeAudio,
      kind: 'scheduled',
    });
  }

  async function recordImmediate(
    clipId: string,
    options: { rtspPath: string; includeAudio: boolean },
  ): Promise<void> {
    const now = clock.now();
    const clip = await repository.claimClip(db, {
      clipId,
      now,
      aliveAt: processClock.now(),
      claimedBy: instanceId,
    });
    if (!clip?.storageKey) return;
    const livestream = await findLivestream(db, clip.livestreamId);
    if (!livestream) return;
    await recordClip(livestream, clip.id, clip.storageKey, {
      ...options,
      durationSeconds: clip.durationSeconds,
      kind: 'immediate',
    });
  }

  async function recordShowcase(): Promise<void> {
    if (!deps.showcaseSource) return;
    const { state: current } = await repository.readShowcase(db);
    const now = clock.now();
    if (current && now.getTime() - Date.parse(current.recordedAt) < 60_000) return;
    const storageKey = `showcase/${now.toISOString().replace(/[:.]/g, '-')}.mp4`;
    try {
      // The demo clip is not kept for a storage outage: the next visit records a fresh one.
      await capture(
        await deps.showcaseSource(),
        { durationSeconds: showcaseDurationSeconds, includeAudio: false },
        (filePath) => deps.storage.putFile(storageKey, filePath, 'video/mp4'),
      );
    } catch (error) {
      // A shutdown is not the demo camera's fault: the next visit asks again.
      if (isStopping) return;
      // Said in the log (why), and kept so the page stops waiting and says the demo is not
      // available until the next attempt is due (decision 046). Not retried by the queue: the
      // next visit after the pause asks again.
      const failure: ShowcaseFailure = {
        at: clock.now().toISOString(),
        reason: failureReason(error),
      };
      deps.log.warn({ err: error }, `The demo clip could not be recorded: ${failure.reason}`);
      await repository.saveShowcaseFailure(db, failure, clock.now());
      return;
    }
    // The clip before stays one more round: pages that fetched its address still play it.
    await repository.saveShowcase(
      db,
      {
        storageKey,
        recordedAt: clock.now().toISOString(),
        previousKey: current?.storageKey ?? null,
      },
      clock.now(),
    );
    if (current?.previousKey) await deps.storage.delete(current.previousKey);
  }

  async function handleNow(payload: RecordClipPayload): Promise<void> {
    switch (payload.kind) {
      case 'scheduled':
        return recordScheduled(payload.livestreamId, payload.slot);
      case 'immediate':
        return recordImmediate(payload.clipId, payload);
      case 'showcase':
        return recordShowcase();
    }
  }

  /** A job that reached this process while it stops: nothing was claimed yet. */
  async function refuseWhileStopping(payload: RecordClipPayload): Promise<void> {
    if (payload.kind === 'scheduled') {
      // Thrown: pg-boss retries it on a process that is not stopping.
      throw new RecordingInterruptedError();
    }
    if (payload.kind === 'immediate') {
      await repository.failUnclaimed(db, payload.clipId, interruptedRequestReason);
    }
  }

  /** What the upload spool asks of clips whose file waits on this machine (decision 105). */
  const pendingUploads: PendingUploadOwner = {
    async claim(clipId) {
      const aliveAt = processClock.now();
      const claimed = await repository.claimUpload(db, { clipId, claimedBy: instanceId, aliveAt });
      if (claimed) return { key: claimed.storage_key, contentType: 'video/mp4' };
      const state = await repository.uploadState(db, clipId, aliveAt);
      // Its recorder is about to mark it waiting, or another process is storing it now.
      if (state?.is_held && (state.status === 'recording' || state.status === 'uploading')) {
        return 'later';
      }
      // Stored, given up, deleted, or its recorder died before marking it (recorded again).
      return 'unwanted';
    },
    async stored(clipId, sizeBytes) {
      const clip = await repository.finishUpload(db, { clipId, claimedBy: instanceId, sizeBytes });
      if (!clip) return;
      countRecording(isRequestedClipSlot(clip.slot) ? 'immediate' : 'scheduled', 'completed');
      deps.log.info({ clipId }, 'A clip that waited for storage is stored');
      await trimHistory(clip.livestreamId);
    },
    release: (clipId) => repository.releaseUpload(db, clipId, instanceId),
  };

  return {
    /** Clips whose file waits in this machine's upload spool, for the spool's retries. */
    pendingUploads,

    /** The worker's entry point for one queued recording. */
    async handle(payload: RecordClipPayload): Promise<void> {
      if (isStopping) return refuseWhileStopping(payload);
      const work = handleNow(payload);
      const settled = work.then(
        () => undefined,
        () => undefined,
      );
      inFlight.add(settled);
      void settled.finally(() => inFlight.delete(settled));
      return work;
    },

    /**
     * Takes over the recordings of processes that died (no heartbeat for `deadAfterMs`): a
     * scheduled slot is re-recorded once by a fresh job; a second death gives it up with a
     * reason. A clip someone asked for is failed with "press Record again" (they are watching
     * the page; a new press is quicker than a recovery). Safe on every worker at once: each
     * clip is taken by one conditional update. Also marks the dead processes gone
     * (docs/decisions/073). A silence the database caused is no death (decision 102): silences
     * count from the deployment's last resumption, and a process whose own heartbeat fails
     * judges nobody.
     */
    async recoverDeadWorkers(): Promise<{ requeued: number; failed: number }> {
      // A process whose own heartbeats fail cannot tell a dead process from its own lost
      // database: it judges no one until it beats again (decision 102).
      if (!mayJudgeOthers(instanceId)) return { requeued: 0, failed: 0 };
      const now = processClock.now();
      let requeued = 0;
      let failed = 0;
      for (const clip of await repository.listDeadClaims(db, now)) {
        const claim = { id: clip.id, claimedBy: clip.claimed_by };
        if (isRequestedClipSlot(clip.slot)) {
          if (await repository.releaseClaim(db, claim, interruptedRequestReason)) failed += 1;
          continue;
        }
        if (clip.recoveries > 0) {
          if (await repository.releaseClaim(db, claim, abandonedScheduledReason)) failed += 1;
          continue;
        }
        if (await repository.takeDeadClaim(db, claim)) {
          deps.log.warn(
            { clipId: clip.id, deadInstanceId: clip.claimed_by, slot: clip.slot },
            'Recording of a dead worker handed over; queued again',
          );
          requeued += 1;
        }
      }
      // Queued here, after the hand-over, and again on every run until a worker claims it: a
      // worker that dies between the two steps leaves no clip behind. The key is the clip's own
      // (the slot's key, livestream:slot held an hour, would refuse it) and the queue keeps one.
      for (const clip of await repository.listAwaitingRecovery(db)) {
        await queueRecording(
          deps.jobQueue,
          { kind: 'scheduled', livestreamId: clip.livestream_id, slot: clip.slot },
          { singletonKey: `recover:${clip.id}`, singletonSeconds: 3600 },
        );
      }
      // A clip whose file has waited for storage for days with nobody storing it: the machine
      // that holds it is gone (decision 105). Its age is business time, like recorded_at.
      const abandoned = await repository.failAbandonedUploads(db, {
        before: new Date(clock.now().getTime() - uploadSpoolPolicy.giveUpAfterDays * 86_400_000),
        aliveAt: now,
        error: abandonedUploadReason,
      });
      if (abandoned > 0) {
        deps.log.warn({ clips: abandoned }, 'Clips whose file never reached storage given up');
        failed += abandoned;
      }
      const dead = await markDeadInstances(db, now);
      if (dead.length > 0) deps.log.warn({ instanceIds: dead }, 'Processes found dead');
      return { requeued, failed };
    },

    /**
     * Graceful shutdown, once the job queue fetches no more work: no new recording starts, the
     * ffmpeg children are stopped, every clip this process was recording is handed over (see
     * handOverInterrupted) so none stays "recording", and the temporary files are deleted.
     */
    async stop(): Promise<void> {
      isStopping = true;
      await deps.recorder.stop?.();
      await Promise.all(inFlight);
      await fs.promises.rm(workFolder, { recursive: true, force: true });
      // The process's own temporary folder too, unless something else of it is still there.
      await fs.promises.rmdir(path.dirname(workFolder)).catch(() => undefined);
    },

    /**
     * Queues the recordings due now: active, eligible livestreams whose schedule has the current
     * UK hour and weekday and whose slot is not recorded yet. Safe to run from every worker
     * every minute: the queue's singleton key and the clip's unique slot keep it to one.
     */
    async queueDueRecordings(): Promise<{ queued: number }> {
      const now = clock.now();
      const wallClock = ukWallClock(now);
      const slotKey = slotKeyAt(now);
      const due = await listDueLivestreams(db, {
        hour: wallClock.hour,
        day: wallClock.day,
        slotKey,
      });
      let queued = 0;
      for (const row of due) {
        if (!eligibilityOf(row, now).isEligible) continue;
        const isQueued = await queueRecording(
          deps.jobQueue,
          { kind: 'scheduled', livestreamId: row.livestream_id, slot: slotKey },
          { singletonKey: `${row.livestream_id}:${slotKey}`, singletonSeconds: 3600 },
        );
        if (isQueued) queued += 1;
      }
      return { queued };
    },
  };
}
