/**
 * Scheduled recording: the right slots in UK time, once per slot however many workers race,
 * retries after failures, a bounded history, and the 10-day switch-off. Recordings are real
 * (local RTSP camera, ffmpeg, pg-boss) but cut to a second each.
 */
import fs from 'node:fs';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../db/client.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { clips, livestreams, subscriptions } from '../../db/schema.ts';
import { startJobs } from '../../jobs/job-runner.ts';
import { systemClock } from '../../lib/clock.ts';
import { createInstance } from '../../lib/instance.ts';
import { createLocalSimPlatform } from '../../providers/connectivity/local-sim-platform.ts';
import { createFfmpegRecorder, recordingReasons } from '../../providers/recorder/recorder.ts';
import { createUploadSpool } from '../../providers/storage/upload-spool.ts';
import { signInCustomer, nextIp } from '../../../test/helpers/test-app.ts';
import { recordLivestreamClipJob } from '../../jobs/record-livestream-clip.job.ts';
import { recordingWorkFolder } from '../../lib/instance-workspace.ts';
import { createLateBoundJobQueue } from '../../lib/job-queue.ts';
import { showcaseRetryAfterFailureMs } from './showcase.service.ts';
import { createRecordingService } from './recording.service.ts';
import {
  createLivestreamTestContext,
  waitFor,
  type LivestreamTestContext,
} from '../../../test/helpers/livestream-context.ts';

const farmyard = demoIccid(103);
const calvingPen = demoIccid(104);

describe('scheduled recording', () => {
  let context: LivestreamTestContext;
  let headers: Record<string, string>;
  let farmyardId: string;
  let calvingPenId: string;

  const post = (url: string, payload: object) =>
    context.app.inject({ method: 'POST', url, payload, headers, remoteAddress: nextIp() });

  async function setUpLivestream(iccid: string, schedule: string): Promise<string> {
    await post('/api/livestreaming/setup-camera', { sim_number: iccid, ports: [554] });
    const response = await post('/api/livestreaming/configure-rtsp', {
      camera_id: iccid,
      rtsp_port: 554,
      rtsp_path: '/12',
      duration: 15,
      include_audio: false,
      is_active: true,
      schedule,
    });
    expect(response.statusCode).toBe(200);
    const [row] = await context.database.db
      .select()
      .from(livestreams)
      .where(eq(livestreams.simIccid, iccid));
    return row!.id;
  }

  const clipsOf = (livestreamId: string) =>
    context.database.db.select().from(clips).where(eq(clips.livestreamId, livestreamId));

  const settled = (livestreamId: string, slot: string) =>
    waitFor(
      async () => {
        const [clip] = await context.database.db
          .select()
          .from(clips)
          .where(and(eq(clips.livestreamId, livestreamId), eq(clips.slot, slot)));
        return clip && clip.status !== 'recording' ? clip : undefined;
      },
      30_000,
      `the ${slot} recording`,
    );

  beforeAll(async () => {
    context = await createLivestreamTestContext({ maxClipSeconds: 1, clipHistory: 2 });
    await seedDemoData(context.database.db, context.clock);
    headers = { authorization: `Bearer ${await signInCustomer(context, 'demo@example.com')}` };
    farmyardId = await setUpLivestream(farmyard, 'hours=9-17;days=MON-FRI');
    calvingPenId = await setUpLivestream(calvingPen, 'hours=8;days=SAT');
  });

  afterAll(async () => {
    await context?.close();
  });

  it('records at scheduled UK hours on scheduled days only', async () => {
    const { recording } = context.livestreaming;
    context.clock.set('2026-03-10T08:59:00Z'); // Tuesday 08:59 GMT
    expect(await recording.queueDueRecordings()).toEqual({ queued: 0 });

    context.clock.set('2026-03-10T09:02:00Z');
    expect(await recording.queueDueRecordings()).toEqual({ queued: 1 });
    const clip = await settled(farmyardId, '2026-03-10T09');
    expect(clip).toMatchObject({ status: 'ready', durationSeconds: 15 });
    expect(clip.storageKey).toMatch(new RegExp(`^livestreams/${farmyardId}/2026-03-10T09-`));
    expect(fs.existsSync(path.join(context.storage.root, ...clip.storageKey!.split('/')))).toBe(
      true,
    );

    // Later in the same hour: the slot is done.
    context.clock.set('2026-03-10T09:40:00Z');
    expect(await recording.queueDueRecordings()).toEqual({ queued: 0 });
    context.clock.set('2026-03-10T18:00:00Z');
    expect(await recording.queueDueRecordings()).toEqual({ queued: 0 });
    // Saturday 08:00 is the other camera's only slot.
    context.clock.set('2026-03-14T08:10:00Z');
    expect(await recording.queueDueRecordings()).toEqual({ queued: 1 });
    await settled(calvingPenId, '2026-03-14T08');
    expect((await clipsOf(farmyardId)).map((row) => row.slot)).toEqual(['2026-03-10T09']);
  });

  it('follows UK summer time', async () => {
    // 09:00 BST is 08:00 UTC: due at 08:30Z, not at 17:30Z (18:30 BST).
    context.clock.set('2026-07-14T17:30:00Z');
    expect(await context.livestreaming.recording.queueDueRecordings()).toEqual({ queued: 0 });
    context.clock.set('2026-07-14T08:30:00Z');
    expect(await context.livestreaming.recording.queueDueRecordings()).toEqual({ queued: 1 });
    expect((await settled(farmyardId, '2026-07-14T09')).status).toBe('ready');
  });

  it('records a slot once when several workers race for it', async () => {
    // A second process: its own instance row, pg-boss and services on the same database.
    const secondInstance = createInstance({
      db: context.database.db,
      clock: systemClock,
      role: 'worker',
    });
    await secondInstance.register();
    // Its recordings go through its own queue to its own pg-boss, as in a second server.
    const secondQueue = createLateBoundJobQueue();
    const second = {
      recording: createRecordingService({
        db: context.database.db,
        clock: context.clock,
        storage: context.storage,
        uploads: createUploadSpool({
          storage: context.storage,
          folder: path.join(context.dataDir, 'uploads'),
          log: { info: () => undefined, warn: () => undefined },
        }),
        recorder: {
          record: (request) =>
            createFfmpegRecorder({ ffmpegPath: 'ffmpeg' }).record({
              ...request,
              durationSeconds: 1,
            }),
        },
        cameraAccess: createLocalSimPlatform({
          db: context.database.db,
          clock: context.clock,
          camera: context.camera,
        }),
        jobQueue: secondQueue,
        clipHistory: context.config.livestreaming.clipHistory,
        log: { info: () => undefined, warn: () => undefined, error: () => undefined },
        instanceId: secondInstance.id,
        workFolder: recordingWorkFolder(context.dataDir, secondInstance.id),
      }),
    };
    const secondRunner = await startJobs(
      context.database,
      [recordLivestreamClipJob({ recording: second.recording, concurrency: 4 })],
      { onError: () => undefined, pollingIntervalSeconds: 0.5 },
    );
    secondQueue.attach(secondRunner.queue);
    try {
      context.clock.set('2026-03-11T10:05:00Z'); // Wednesday 10:05
      const results = await Promise.all([
        context.livestreaming.recording.queueDueRecordings(),
        second.recording.queueDueRecordings(),
        context.livestreaming.recording.queueDueRecordings(),
      ]);
      expect(results.reduce((sum, result) => sum + result.queued, 0)).toBe(1);
      // Even jobs that slip past the queue's singleton key record the slot once.
      await Promise.all([
        context.livestreaming.recording.handle({
          kind: 'scheduled',
          livestreamId: farmyardId,
          slot: '2026-03-11T10',
        }),
        second.recording.handle({
          kind: 'scheduled',
          livestreamId: farmyardId,
          slot: '2026-03-11T10',
        }),
      ]);
      await settled(farmyardId, '2026-03-11T10');
      const rows = await queryRows<{ count: number }>(
        context.database.db,
        sql`select count(*)::int as count from clips where livestream_id = ${farmyardId} and slot = '2026-03-11T10'`,
      );
      expect(Number(rows[0]?.count)).toBe(1);
    } finally {
      await secondRunner.stop();
      await secondInstance.stop();
    }
  });

  it('skips cameras that are switched off or no longer on an active Heavy plan', async () => {
    context.clock.set('2026-03-12T11:05:00Z'); // Thursday 11:05
    await post('/api/livestreaming/set-active', { camera_id: farmyard, is_active: false });
    expect(await context.livestreaming.recording.queueDueRecordings()).toEqual({ queued: 0 });
    await post('/api/livestreaming/set-active', { camera_id: farmyard, is_active: true });
    await context.database.db
      .update(subscriptions)
      .set({ status: 'past_due' })
      .where(eq(subscriptions.simIccid, farmyard));
    expect(await context.livestreaming.recording.queueDueRecordings()).toEqual({ queued: 0 });
    // A job queued before the change does not record either.
    await context.livestreaming.recording.handle({
      kind: 'scheduled',
      livestreamId: farmyardId,
      slot: '2026-03-12T11',
    });
    expect((await clipsOf(farmyardId)).some((row) => row.slot === '2026-03-12T11')).toBe(false);
    await context.database.db
      .update(subscriptions)
      .set({ status: 'active' })
      .where(eq(subscriptions.simIccid, farmyard));
  });

  it('retries a failed slot with back-off, and the failure is visible meanwhile', async () => {
    context.clock.set('2026-03-12T12:05:00Z');
    context.unreachableCameras.add(farmyard);
    await expect(
      context.livestreaming.recording.handle({
        kind: 'scheduled',
        livestreamId: farmyardId,
        slot: '2026-03-12T12',
      }),
    ).rejects.toMatchObject({ reason: recordingReasons.refused });
    const [failed] = await context.database.db
      .select()
      .from(clips)
      .where(and(eq(clips.livestreamId, farmyardId), eq(clips.slot, '2026-03-12T12')));
    expect(failed).toMatchObject({ status: 'failed', error: recordingReasons.refused });

    // pg-boss holds the retry policy of every queued scheduled recording.
    context.clock.set('2026-03-12T13:05:00Z');
    expect(await context.livestreaming.recording.queueDueRecordings()).toEqual({ queued: 1 });
    const [job] = await queryRows<{
      retry_limit: number;
      retry_backoff: boolean;
      retry_delay: number;
    }>(
      context.database.db,
      sql`select retry_limit, retry_backoff, retry_delay from pgboss.job
          where name = 'livestream-record-clip' and singleton_key = ${`${farmyardId}:2026-03-12T13`}`,
    );
    expect(job).toMatchObject({ retry_limit: 3, retry_backoff: true, retry_delay: 20 });
    await settled(farmyardId, '2026-03-12T13');

    // The retry finds the camera back and records the slot after all.
    context.unreachableCameras.delete(farmyard);
    await context.livestreaming.recording.handle({
      kind: 'scheduled',
      livestreamId: farmyardId,
      slot: '2026-03-12T12',
    });
    const [retried] = await context.database.db
      .select()
      .from(clips)
      .where(and(eq(clips.livestreamId, farmyardId), eq(clips.slot, '2026-03-12T12')));
    expect(retried).toMatchObject({ status: 'ready', error: null });
  });

  it('keeps a bounded history of clips per camera, deleting the old files', async () => {
    const ready = (await clipsOf(farmyardId)).filter((row) => row.status === 'ready');
    // Five slots were recorded above; the history keeps the newest two.
    expect(ready).toHaveLength(2);
    const onDisk = await fs.promises.readdir(
      path.join(context.storage.root, 'livestreams', farmyardId),
    );
    expect(onDisk.sort()).toEqual(ready.map((row) => row.storageKey!.split('/').at(-1)).sort());
  });

  it('switches off a schedule whose code was not seen on a website for 10 days, and e-mails', async () => {
    context.clock.set('2026-03-22T12:00:00Z');
    // Twelve days later the old session has expired.
    headers = { authorization: `Bearer ${await signInCustomer(context, 'demo@example.com')}` };
    // The farmyard's code was seen on a website recently; the calving pen's never.
    await context.database.db
      .update(livestreams)
      .set({ lastSeenOnSiteAt: new Date('2026-03-20T08:00:00Z') })
      .where(eq(livestreams.id, farmyardId));
    expect(await context.livestreaming.alerts.switchOffUnused()).toEqual({ switchedOff: 1 });
    const [pen] = await context.database.db
      .select()
      .from(livestreams)
      .where(eq(livestreams.id, calvingPenId));
    expect(pen).toMatchObject({ isActive: false, disabledReason: 'not-seen-on-website' });
    const [yard] = await context.database.db
      .select()
      .from(livestreams)
      .where(eq(livestreams.id, farmyardId));
    expect(yard?.isActive).toBe(true);
    const [message] = await context.mailer.list({ to: 'demo@example.com', limit: 1 });
    expect(message?.subject).toBe('Livestream of Calving pen switched off');
    expect(message?.text).toContain('in the last 10 days');

    // Once is enough: nothing more to switch off, no second e-mail.
    expect(await context.livestreaming.alerts.switchOffUnused()).toEqual({ switchedOff: 0 });
    const cameras = await context.app.inject({
      method: 'GET',
      url: '/api/livestreaming/cameras',
      headers,
    });
    const summary = cameras
      .json<{ cameras: { SIM_ICCID: string; livestream: { disabledReason: string | null } }[] }>()
      .cameras.find((camera) => camera.SIM_ICCID === calvingPen)!.livestream;
    expect(summary.disabledReason).toBe('not-seen-on-website');

    // Switching it back on restarts the 10 days.
    const on = await post('/api/livestreaming/set-active', {
      camera_id: calvingPen,
      is_active: true,
    });
    expect(on.json().data).toMatchObject({
      isActive: true,
      disabledReason: null,
      switchOffAt: '2026-04-01T12:00:00.000Z',
    });
  });

  it('after a failed demo recording, says the demo is unavailable and logs why', async () => {
    const { recording, showcase } = context.livestreaming;
    context.showcase.isUnreachable = true;
    // The failure is handled (not retried by the queue) and written down.
    await recording.handle({ kind: 'showcase' });
    expect(context.warnings).toContain(
      `The demo clip could not be recorded: ${recordingReasons.refused}`,
    );
    // The page stops showing "Recording a fresh clip…": nothing recording, nothing queued.
    expect(await showcase.showcase()).toEqual({ url: null, recordedAt: null, isRecording: false });
    context.clock.advance(showcaseRetryAfterFailureMs - 60_000);
    expect((await showcase.showcase()).isRecording).toBe(false);
    // After the pause, the next visit tries again.
    context.clock.advance(2 * 60_000);
    context.showcase.isUnreachable = false;
    expect((await showcase.showcase()).isRecording).toBe(true);
  });
});
