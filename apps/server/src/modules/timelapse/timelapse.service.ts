/**
 * Daily timelapses (issue 17 part 4, decision 097): after each UK day, one short MP4 per
 * livestream from that day's ready scheduled clips, made by the timelapse maker (ffmpeg) from the
 * stored clips, so it costs the camera no mobile data. One row per livestream and day: the
 * process that claims it builds it once however many workers run the job; a dead process's claim
 * is taken over by the next run (docs/decisions/073). Kept TIMELAPSE_RETENTION_DAYS.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { TimelapseDay, TimelapsesResponse } from '@farmcam/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.ts';
import { notFound } from '../../errors.ts';
import {
  businessDay,
  businessDayStart,
  dayMs,
  nextDay,
  previousDay,
} from '../../lib/business-calendar.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import {
  TimelapseError,
  type TimelapseClip,
  type TimelapseMaker,
} from '../../providers/recorder/timelapse-maker.ts';
import { StoredObjectMissingError, type ClipStorage } from '../../providers/storage/storage.ts';
import {
  uploadSpoolPolicy,
  type PendingUploadOwner,
  type UploadSpool,
} from '../../providers/storage/upload-spool.ts';
import { timelapseRepository as repository, type DayBounds } from './timelapse.repository.ts';
import { cameraNameOf, ukPartsOf } from '@farmcam/contract/rules';

/** Days before yesterday the job still makes up (a worker that was down over a weekend). */
export const catchUpDays = 3;
/** Signed addresses in a list stay valid this long (the page is re-fetched well before). */
const urlLifetimeSeconds = 6 * 3600;
/** What the customer reads on a day whose timelapse failed for a reason of ours. */
export const timelapseFailedReason =
  'The timelapse for this day could not be made on our side. Your clips are not affected.';

export interface TimelapseServiceDependencies {
  db: Database;
  /** Business time: which UK day it is. */
  clock: Clock;
  storage: ClipStorage;
  /** Stores the built file, keeping it on this machine while storage fails (decision 105). */
  uploads: UploadSpool;
  maker: TimelapseMaker;
  retentionDays: number;
  /** This process (instances.id): the claim written on the timelapses it builds. */
  instanceId: string;
  /** Wall-clock time for claims (whether a process is alive); the system clock by default. */
  processClock?: Clock;
  /** This process's own folder for clips and stills being worked on. */
  workFolder: string;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

/**
 * `uploading`: built, its file waiting on this machine for storage; `deferred`: its clips could
 * not be read (storage failing), so a later run builds it (decision 105).
 */
export type TimelapseOutcome =
  'ready' | 'uploading' | 'deferred' | 'empty' | 'failed' | 'not-claimed';

/** Storage could not hand a clip back: not the day's fault; the build is tried again later. */
class StorageUnavailableError extends Error {}

function boundsOf(day: string): DayBounds {
  return { day, start: businessDayStart(day), end: businessDayStart(nextDay(day)) };
}

/** The words burnt onto a clip's stills: "Mon 23 Nov 2026 09:00" (UK time). */
export function clipLabel(recordedAt: Date): string {
  const parts = ukPartsOf(recordedAt, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return `${parts.weekday} ${parts.day} ${parts.month} ${parts.year} ${parts.hour}:${parts.minute}`;
}

/** "Top gate", 2026-11-23 → "Top-gate-2026-11-23-timelapse.mp4". */
export function downloadNameOf(cameraName: string, day: string): string {
  const safe = cameraName
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${safe || 'camera'}-${day}-timelapse.mp4`;
}

export type TimelapseService = ReturnType<typeof createTimelapseService>;

export function createTimelapseService(deps: TimelapseServiceDependencies) {
  const { db, clock, instanceId } = deps;
  const processClock = deps.processClock ?? systemClock;
  /** The last build found storage failing (logged once until a build works again). */
  let isStorageFailing = false;

  /** The first UK day still kept today. */
  function firstKeptDay(): string {
    const today = businessDay(clock.now());
    return new Date(Date.parse(`${today}T00:00:00Z`) - deps.retentionDays * dayMs)
      .toISOString()
      .slice(0, 10);
  }

  /** The demo's day, where no camera records: made-up clips on the hour, 08:00 to 17:00. */
  async function sampleClips(folder: string, bounds: DayBounds): Promise<TimelapseClip[]> {
    const made: TimelapseClip[] = [];
    for (let hour = 8; hour <= 17; hour += 1) {
      const filePath = path.join(folder, `sample-${hour}.mp4`);
      await deps.maker.makeSampleClip(filePath, { seconds: 1, seed: hour * 7919 });
      made.push({
        filePath,
        durationSeconds: 1,
        label: clipLabel(new Date(bounds.start.getTime() + hour * 3_600_000)),
      });
    }
    return made;
  }

  async function makeFromClips(
    timelapseId: string,
    livestreamId: string,
    bounds: DayBounds,
    options: { isSample?: boolean } = {},
  ): Promise<TimelapseOutcome> {
    const clips = await repository.readyClipsOfDay(db, livestreamId, bounds);
    if (clips.length === 0 && !options.isSample) {
      await repository.finish(db, timelapseId, instanceId, {
        status: 'empty',
        updatedAt: processClock.now(),
      });
      return 'empty';
    }
    const folder = path.join(deps.workFolder, randomUUID());
    await fs.promises.mkdir(folder, { recursive: true });
    try {
      const local: TimelapseClip[] = clips.length === 0 ? await sampleClips(folder, bounds) : [];
      for (const [index, clip] of clips.entries()) {
        const filePath = path.join(folder, `clip-${index}.mp4`);
        try {
          await deps.storage.copyToFile(clip.storage_key, filePath);
        } catch (error) {
          if (!(error instanceof StoredObjectMissingError)) {
            // Storage failing: no timelapse of half the day; the whole day is built later.
            throw new StorageUnavailableError('Storage did not hand a clip back', { cause: error });
          }
          // A clip gone from storage (history trimmed, deleted) is left out, not the day.
          deps.log.warn({ err: error, clipId: clip.id }, 'Timelapse: a clip could not be read');
          continue;
        }
        local.push({
          filePath,
          durationSeconds: clip.duration_seconds,
          label: clipLabel(new Date(clip.recorded_at)),
        });
      }
      if (local.length === 0) {
        throw new TimelapseError(
          "None of the day's clips could be read, so there is no timelapse for this day.",
          'no clip copied from storage',
        );
      }
      const outputPath = path.join(folder, 'timelapse.mp4');
      const made = await deps.maker.make({ clips: local, outputPath, workFolder: folder });
      const storageKey = `timelapses/${livestreamId}/${bounds.day}-${randomUUID().slice(0, 8)}.mp4`;
      const stored = await deps.uploads.store({
        key: storageKey,
        filePath: outputPath,
        contentType: 'video/mp4',
        kind: 'timelapse',
        id: timelapseId,
      });
      if (!stored.isStored) {
        // Kept on this machine: the spool stores it when storage answers (decision 105).
        const isHeld = await repository.awaitUpload(db, timelapseId, instanceId, {
          storageKey,
          clipCount: made.clipCount,
          frameCount: made.frameCount,
          durationMs: made.durationMs,
          cpuMs: made.cpuMs,
          updatedAt: processClock.now(),
        });
        return isHeld ? 'uploading' : 'not-claimed';
      }
      const { sizeBytes } = stored;
      const isHeld = await repository.finish(db, timelapseId, instanceId, {
        status: 'ready',
        storageKey,
        clipCount: made.clipCount,
        frameCount: made.frameCount,
        durationMs: made.durationMs,
        sizeBytes,
        cpuMs: made.cpuMs,
        error: null,
        updatedAt: processClock.now(),
      });
      // Taken over meanwhile (this process was thought dead): the other build's file stays.
      if (!isHeld) await deps.storage.delete(storageKey);
      return isHeld ? 'ready' : 'not-claimed';
    } finally {
      await fs.promises.rm(folder, { recursive: true, force: true });
      // And the timelapses folder once no other build uses it, so a clean stop leaves no
      // temporary folder of this process behind (the recorder's stop removes the rest).
      await fs.promises.rmdir(deps.workFolder).catch(() => undefined);
    }
  }

  async function buildDay(
    livestream: { id: string; simIccid: string },
    day: string,
  ): Promise<TimelapseOutcome> {
    const timelapseId = await repository.claim(db, {
      livestreamId: livestream.id,
      simIccid: livestream.simIccid,
      day,
      claimedBy: instanceId,
      now: processClock.now(),
      aliveAt: processClock.now(),
    });
    if (!timelapseId) return 'not-claimed';
    return buildClaimed(timelapseId, livestream.id, day);
  }

  async function buildClaimed(
    timelapseId: string,
    livestreamId: string,
    day: string,
    options: { isSample?: boolean } = {},
  ): Promise<TimelapseOutcome> {
    try {
      const outcome = await makeFromClips(timelapseId, livestreamId, boundsOf(day), options);
      if (outcome === 'ready' || outcome === 'uploading') isStorageFailing = false;
      return outcome;
    } catch (error) {
      if (error instanceof StorageUnavailableError) {
        await repository.releaseBuild(db, timelapseId, instanceId, {
          isQueued: options.isSample === true,
        });
        // Said once while it lasts; every minute's run tries again.
        if (!isStorageFailing) {
          deps.log.warn(
            { err: error.cause, livestreamId, day },
            'Timelapse put off: storage does not hand the clips back; it is built when it does',
          );
        }
        isStorageFailing = true;
        return 'deferred';
      }
      const reason = error instanceof TimelapseError ? error.reason : timelapseFailedReason;
      deps.log.warn({ err: error, livestreamId, day }, `Timelapse failed: ${reason}`);
      await repository.finish(db, timelapseId, instanceId, {
        status: 'failed',
        error: reason,
        updatedAt: processClock.now(),
      });
      return 'failed';
    }
  }

  /** What the upload spool asks of timelapses whose file waits on this machine (decision 105). */
  const pendingUploads: PendingUploadOwner = {
    async claim(id) {
      const aliveAt = processClock.now();
      const claimed = await repository.claimUpload(db, { id, claimedBy: instanceId, aliveAt });
      if (claimed) return { key: claimed.storage_key, contentType: 'video/mp4' };
      const state = await repository.uploadState(db, id, aliveAt);
      if (state?.is_held && (state.status === 'building' || state.status === 'uploading')) {
        return 'later';
      }
      return 'unwanted';
    },
    async stored(id, sizeBytes) {
      const isStored = await repository.finishUpload(db, {
        id,
        claimedBy: instanceId,
        sizeBytes,
        now: processClock.now(),
      });
      if (isStored)
        deps.log.info({ timelapseId: id }, 'A timelapse that waited for storage is stored');
    },
    release: (id) => repository.releaseUpload(db, id, instanceId),
  };

  return {
    /** Timelapses whose file waits in this machine's upload spool, for the spool's retries. */
    pendingUploads,

    /** Builds (or, when another process has it, leaves) one livestream's timelapse of a UK day. */
    buildDay,

    /**
     * The job's work: for yesterday and the `catchUpDays` before it, every livestream that
     * recorded scheduled clips that day and has no timelapse yet (or one a dead process was
     * building). Safe on every worker at once: each camera-day is claimed by one of them.
     */
    async buildDue(): Promise<Record<TimelapseOutcome, number>> {
      const counts: Record<TimelapseOutcome, number> = {
        ready: 0,
        uploading: 0,
        deferred: 0,
        empty: 0,
        failed: 0,
        'not-claimed': 0,
      };
      // A day whose file waited for storage for days with nobody storing it: its machine is gone.
      const now = processClock.now();
      counts.failed += await repository.failAbandonedUploads(db, {
        before: new Date(now.getTime() - uploadSpoolPolicy.giveUpAfterDays * dayMs),
        aliveAt: now,
        error: timelapseFailedReason,
        now,
      });
      // Days queued without a claim: the demo's, made from its clips or, having none, from
      // made-up ones (seed/demo-timelapse.ts).
      for (const row of await repository.listQueued(db)) {
        if (!(await repository.claimQueued(db, row.id, instanceId, processClock.now()))) continue;
        counts[await buildClaimed(row.id, row.livestreamId, row.day, { isSample: true })] += 1;
      }
      let day = previousDay(businessDay(clock.now()));
      for (let index = 0; index <= catchUpDays; index += 1, day = previousDay(day)) {
        if (day < firstKeptDay()) break;
        for (const row of await repository.listDue(db, boundsOf(day), processClock.now())) {
          counts[await buildDay({ id: row.id, simIccid: row.sim_iccid }, day)] += 1;
        }
      }
      return counts;
    },

    /** Deletes timelapses (row and stored file) older than the retention. */
    async purgeExpired(): Promise<{ deleted: number }> {
      const keptFrom = firstKeptDay();
      let deleted = 0;
      for (;;) {
        const batch = await repository.listExpired(db, keptFrom, 100);
        for (const row of batch) {
          // The file first: a row without its file would list a day that cannot play.
          if (row.storageKey) await deps.storage.delete(row.storageKey);
          await repository.delete(db, row.id);
          deleted += 1;
        }
        if (batch.length < 100) return { deleted };
      }
    },

    /** A camera's timelapses for its details page, with signed addresses to play and download. */
    async listForCamera(customerId: string, iccid: string): Promise<TimelapsesResponse> {
      const camera = await repository.findCamera(db, customerId, iccid);
      if (!camera) throw notFound('Camera not found');
      const base = {
        hasLivestream: camera.livestreamId !== null,
        retentionDays: deps.retentionDays,
      };
      const rows = await repository.listForCamera(db, iccid, firstKeptDay());
      const cameraName = cameraNameOf(camera.nickname, iccid);
      const timelapses = await Promise.all(
        rows.map(async (row): Promise<TimelapseDay> => {
          const isReady = row.status === 'ready' && row.storageKey !== null;
          const downloadName = isReady ? downloadNameOf(cameraName, row.day) : null;
          return {
            day: row.day,
            // A file waiting for storage is not there yet: still being made, to the farmer.
            status: row.status === 'uploading' ? 'building' : row.status,
            clipCount: row.clipCount,
            frameCount: row.frameCount,
            durationMs: row.durationMs,
            sizeBytes: row.sizeBytes,
            videoUrl: isReady
              ? await deps.storage.playbackUrl(row.storageKey!, urlLifetimeSeconds)
              : null,
            downloadUrl: isReady
              ? await deps.storage.playbackUrl(row.storageKey!, urlLifetimeSeconds, {
                  downloadName: downloadName!,
                })
              : null,
            downloadName,
            problem: row.status === 'failed' ? (row.error ?? timelapseFailedReason) : null,
          };
        }),
      );
      return { ...base, timelapses };
    },
  };
}
