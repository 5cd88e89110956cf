/**
 * Recording: what the workers do. The scheduler queues one job per due slot (UK hours and days);
 * a job claims its slot's clip row (unique per livestream and slot, so racing workers record it
 * once), reaches the camera through the SIM platform, records with ffmpeg, stores the MP4, and
 * trims the history. Failures are written on the clip (the customer sees them) and thrown so
 * pg-boss retries with back-off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { livestreamRtspPort, unusedLivestreamDays } from '@farmcam/contract';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { Database } from '../../db/client.ts';
import { appSettings, customers, sims } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { renderEmail, type Mailer } from '../../providers/mail/mail.ts';
import {
  recordingReasons,
  RecordingError,
  type Recorder,
} from '../../providers/recorder/recorder.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import { eq } from 'drizzle-orm';
import { livestreamRepository as repository, type LivestreamRow } from './livestream.repository.ts';
import { eligibilityOf } from './eligibility.ts';
import { notSeenOnWebsiteReason, type CameraPortOpener } from './livestream.service.ts';
import { slotKeyAt, ukWallClock } from './schedule.ts';

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

/** Hands recordings to the worker pool (pg-boss); false when an identical one is queued. */
export interface RecordingQueue {
  enqueue(
    payload: RecordClipPayload,
    options?: { singletonKey?: string; singletonSeconds?: number },
  ): Promise<boolean>;
}

export interface RecordingServiceDependencies {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  storage: ClipStorage;
  recorder: Recorder;
  cameraAccess: CameraPortOpener;
  recordingQueue: RecordingQueue;
  publicUrl: string;
  /** Ready clips kept per livestream; older ones are deleted. */
  clipHistory: number;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  showcaseSource?: () => Promise<string>;
}

/** A recording still "recording" this long after it started has lost its worker. */
const staleRecordingMs = 10 * 60_000;
const showcaseKey = 'livestream-showcase';
const showcaseDurationSeconds = 15;

/** The last failed attempt at the demo clip, kept in app_settings. */
export interface ShowcaseFailure {
  at: string;
  reason: string;
}
export const showcaseFailureKey = 'livestream-showcase-failure';

/** The marketing page's demo clip, kept in app_settings. */
interface ShowcaseState {
  storageKey: string;
  recordedAt: string;
  previousKey: string | null;
}

/** What the customer reads when a recording failed. */
export function failureReason(error: unknown): string {
  if (error instanceof RecordingError) return error.reason;
  if (error instanceof AppError) return error.message;
  return recordingReasons.unknown;
}

export type RecordingService = ReturnType<typeof createRecordingService>;

export function createRecordingService(deps: RecordingServiceDependencies) {
  const { db, clock } = deps;
  const workFolder = path.join(os.tmpdir(), 'farmcam-recordings');

  /** Records `rtspUrl` into storage under `storageKey`; returns the stored size. */
  async function captureTo(
    rtspUrl: string,
    storageKey: string,
    options: { durationSeconds: number; includeAudio: boolean },
  ): Promise<number> {
    await fs.promises.mkdir(workFolder, { recursive: true });
    const outputPath = path.join(workFolder, `${randomUUID()}.mp4`);
    try {
      await deps.recorder.record({ rtspUrl, outputPath, ...options });
      const { sizeBytes } = await deps.storage.putFile(storageKey, outputPath, 'video/mp4');
      return sizeBytes;
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
      await repository.update(db, livestream.id, { cameraHost: access.host, cameraPort: port });
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
    options: { rtspPath: string; durationSeconds: number; includeAudio: boolean },
  ): Promise<void> {
    try {
      const rtspUrl = await cameraUrl(livestream, options.rtspPath);
      const sizeBytes = await captureTo(rtspUrl, storageKey, options);
      await repository.finishClip(db, clipId, { status: 'ready', sizeBytes });
    } catch (error) {
      await repository.finishClip(db, clipId, { status: 'failed', error: failureReason(error) });
      deps.log.warn(
        { err: error, livestreamId: livestream.id, clipId },
        `Recording failed: ${failureReason(error)}`,
      );
      throw error;
    }
    await trimHistory(livestream.id);
  }

  async function recordScheduled(livestreamId: string, slot: string): Promise<void> {
    const livestream = await repository.findById(db, livestreamId);
    const plan = livestream
      ? await repository.findCameraPlanByLivestream(db, livestreamId)
      : undefined;
    const now = clock.now();
    // The schedule may have been switched off, or the plan changed, since the job was queued.
    if (!livestream || !plan || !livestream.isActive || !eligibilityOf(plan, now).isEligible) {
      deps.log.info({ livestreamId, slot }, 'Scheduled recording skipped: not active or eligible');
      return;
    }
    const storageKey = `livestreams/${livestream.id}/${slot}-${randomUUID().slice(0, 8)}.mp4`;
    const clip = await repository.claimSlot(db, {
      livestreamId,
      slot,
      durationSeconds: livestream.durationSeconds,
      storageKey,
      now,
      staleBefore: new Date(now.getTime() - staleRecordingMs),
    });
    if (!clip) return;
    await recordClip(livestream, clip.id, clip.storageKey ?? storageKey, {
      rtspPath: livestream.rtspPath,
      durationSeconds: livestream.durationSeconds,
      includeAudio: livestream.includeAudio,
    });
  }

  async function recordImmediate(
    clipId: string,
    options: { rtspPath: string; includeAudio: boolean },
  ): Promise<void> {
    const clip = await repository.restartClip(db, clipId, clock.now());
    if (!clip?.storageKey) return;
    const livestream = await repository.findById(db, clip.livestreamId);
    if (!livestream) return;
    await recordClip(livestream, clip.id, clip.storageKey, {
      ...options,
      durationSeconds: clip.durationSeconds,
    });
  }

  async function recordShowcase(): Promise<void> {
    if (!deps.showcaseSource) return;
    const [row] = await db.select().from(appSettings).where(eq(appSettings.key, showcaseKey));
    const current = row?.value as ShowcaseState | undefined;
    const now = clock.now();
    if (current && now.getTime() - Date.parse(current.recordedAt) < 60_000) return;
    const storageKey = `showcase/${now.toISOString().replace(/[:.]/g, '-')}.mp4`;
    try {
      await captureTo(await deps.showcaseSource(), storageKey, {
        durationSeconds: showcaseDurationSeconds,
        includeAudio: false,
      });
    } catch (error) {
      // Said in the log (why), and kept so the page stops waiting and says the demo is not
      // available until the next attempt is due (decision 046). Not retried by the queue: the
      // next visit after the pause asks again.
      const failure: ShowcaseFailure = {
        at: clock.now().toISOString(),
        reason: failureReason(error),
      };
      deps.log.warn({ err: error }, `The demo clip could not be recorded: ${failure.reason}`);
      await db
        .insert(appSettings)
        .values({ key: showcaseFailureKey, value: failure })
        .onConflictDoUpdate({
          target: appSettings.key,
          set: { value: failure, updatedAt: clock.now() },
        });
      return;
    }
    // The clip before stays one more round: pages that fetched its address still play it.
    const value: ShowcaseState = {
      storageKey,
      recordedAt: clock.now().toISOString(),
      previousKey: current?.storageKey ?? null,
    };
    await db
      .insert(appSettings)
      .values({ key: showcaseKey, value })
      .onConflictDoUpdate({ target: appSettings.key, set: { value, updatedAt: clock.now() } });
    if (current?.previousKey) await deps.storage.delete(current.previousKey);
  }

  return {
    /** The worker's entry point for one queued recording. */
    async handle(payload: RecordClipPayload): Promise<void> {
      switch (payload.kind) {
        case 'scheduled':
          return recordScheduled(payload.livestreamId, payload.slot);
        case 'immediate':
          return recordImmediate(payload.clipId, payload);
        case 'showcase':
          return recordShowcase();
      }
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
      const due = await repository.listDue(db, {
        hour: wallClock.hour,
        day: wallClock.day,
        slotKey,
      });
      let queued = 0;
      for (const row of due) {
        if (!eligibilityOf(row, now).isEligible) continue;
        const isQueued = await deps.recordingQueue.enqueue(
          { kind: 'scheduled', livestreamId: row.livestream_id, slot: slotKey },
          { singletonKey: `${row.livestream_id}:${slotKey}`, singletonSeconds: 3600 },
        );
        if (isQueued) queued += 1;
      }
      return { queued };
    },

    /**
     * Spec §9: a schedule whose code has not been seen on a website for 10 days (since it was
     * switched on) is switched off, and the customer told by e-mail.
     */
    async switchOffUnused(): Promise<{ switchedOff: number }> {
      const now = clock.now();
      const cutoff = new Date(now.getTime() - unusedLivestreamDays * 86_400_000);
      const switchedOff = await repository.switchOffUnused(db, cutoff, now, notSeenOnWebsiteReason);
      for (const livestream of switchedOff) {
        const [owner] = await db
          .select({ email: customers.email, nickname: sims.nickname })
          .from(sims)
          .innerJoin(customers, eq(customers.id, sims.customerId))
          .where(eq(sims.iccid, livestream.sim_iccid));
        if (!owner) continue;
        const cameraName = owner.nickname ?? 'your camera';
        try {
          await deps.mailer.send(
            renderEmail({
              to: owner.email,
              subject: `Livestream of ${cameraName} switched off`,
              heading: 'Your livestream schedule has been switched off',
              paragraphs: [
                `We have not seen the livestream code of the "${cameraName}" camera on a website in the last ${unusedLivestreamDays} days, so we have stopped its scheduled recordings to save the camera's data.`,
                'Once the code is on your website, switch the schedule back on from the Livestreaming page.',
              ],
              action: { label: 'Open Livestreaming', url: `${deps.publicUrl}/livestreaming` },
            }),
          );
        } catch (error) {
          deps.log.error({ err: error, livestreamId: livestream.id }, 'Could not send the e-mail');
        }
      }
      return { switchedOff: switchedOff.length };
    },
  };
}
