/**
 * Crash recovery of recordings (docs/decisions/073), with real pg-boss, the local RTSP camera and
 * ffmpeg: a dead worker's scheduled clip is queued again once and recorded by a living process;
 * the dead worker's own job, retried late by pg-boss, records nothing twice; a clip someone asked
 * for is failed with what to do; and stop() kills a real ffmpeg child mid-recording, leaving no
 * temporary file and no "recording" row. Process time (heartbeats) is a manual clock apart from
 * business time.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextIp, signInCustomer } from '../../../test/helpers/test-app.ts';
import { queryRows } from '../../db/client.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { clips, instances, livestreams } from '../../db/schema.ts';
import { ManualClock } from '../../lib/clock.ts';
import {
  createInstance,
  deadAfterMs,
  heartbeatIntervalMs,
  type Instance,
} from '../../lib/instance.ts';
import { recordingWorkFolder } from '../../lib/instance-workspace.ts';
import { RecordingInterruptedError } from '../../providers/recorder/recorder.ts';
import { recordingRepository } from './recording.repository.ts';
import {
  createLivestreamTestContext,
  waitFor,
  type LivestreamTestContext,
} from '../../../test/helpers/livestream-context.ts';
import {
  abandonedScheduledReason,
  interruptedRequestReason,
  interruptedScheduledReason,
} from './recording.service.ts';

const run = promisify(execFile);
const farmyard = demoIccid(103);

/** Sets up the farmyard camera's livestream through the API, as a customer would. */
async function setUpFarmyard(context: LivestreamTestContext): Promise<string> {
  const headers = {
    authorization: `Bearer ${await signInCustomer(context, 'demo@example.com')}`,
  };
  const post = (url: string, payload: object) =>
    context.app.inject({ method: 'POST', url, payload, headers, remoteAddress: nextIp() });
  await post('/api/livestreaming/setup-camera', { sim_number: farmyard, ports: [554] });
  const response = await post('/api/livestreaming/configure-rtsp', {
    camera_id: farmyard,
    rtsp_port: 554,
    rtsp_path: '/12',
    duration: 15,
    include_audio: false,
    is_active: true,
    schedule: 'hours=0-23;days=MON-SUN',
  });
  expect(response.statusCode).toBe(200);
  const [row] = await context.database.db
    .select()
    .from(livestreams)
    .where(eq(livestreams.simIccid, farmyard));
  return row!.id;
}

describe('recovering the recordings of a dead worker', () => {
  const processClock = new ManualClock('2026-06-01T00:00:00Z');
  let context: LivestreamTestContext;
  let livestreamId: string;

  const clipAt = async (slot: string) =>
    (
      await context.database.db
        .select()
        .from(clips)
        .where(and(eq(clips.livestreamId, livestreamId), eq(clips.slot, slot)))
    )[0];

  /** A worker that claims a clip and is then killed (its heartbeat stops). */
  async function workerClaiming(slot: string): Promise<Instance> {
    const worker = createInstance({ db: context.database.db, clock: processClock, role: 'worker' });
    await worker.register();
    const clip = await recordingRepository.claimSlot(context.database.db, {
      livestreamId,
      slot,
      durationSeconds: 15,
      storageKey: `livestreams/${livestreamId}/${slot}-dead.mp4`,
      now: context.clock.now(),
      aliveAt: processClock.now(),
      claimedBy: worker.id,
      staleBefore: new Date(0),
    });
    expect(clip).toMatchObject({ status: 'recording', claimedBy: worker.id });
    return worker;
  }

  /**
   * Process time passes beyond the dead threshold while this test process keeps beating every
   * interval (a deployment silent as a whole would be the database's fault, decision 102).
   */
  async function passDeadThreshold() {
    for (let elapsed = 0; elapsed <= deadAfterMs; elapsed += heartbeatIntervalMs) {
      processClock.advance(heartbeatIntervalMs);
      await context.instance.beat();
    }
  }

  beforeAll(async () => {
    context = await createLivestreamTestContext({ maxClipSeconds: 1, processClock });
    await seedDemoData(context.database.db, context.clock);
    context.clock.set('2026-03-10T09:05:00Z');
    livestreamId = await setUpFarmyard(context);
  });

  afterAll(async () => {
    await context?.close();
  });

  it('queues a dead worker’s scheduled clip again once, and refuses its late original job', async () => {
    const { recording } = context.livestreaming;
    const slot = '2026-03-10T09';
    const dead = await workerClaiming(slot);

    // While the worker beats, its clip is its own: no recovery, and a duplicate job is refused.
    expect(await recording.recoverDeadWorkers()).toEqual({ requeued: 0, failed: 0 });
    await recording.handle({ kind: 'scheduled', livestreamId, slot });
    expect(await clipAt(slot)).toMatchObject({ status: 'recording', claimedBy: dead.id });

    await passDeadThreshold();
    // Every worker runs the job at once: the clip is queued again once.
    const results = await Promise.all([
      recording.recoverDeadWorkers(),
      recording.recoverDeadWorkers(),
      recording.recoverDeadWorkers(),
    ]);
    expect(results.reduce((sum, result) => sum + result.requeued, 0)).toBe(1);
    const jobs = await queryRows<{ singleton_key: string }>(
      context.database.db,
      sql`select singleton_key from pgboss.job where name = 'livestream-record-clip'
            and data->>'slot' = ${slot}`,
    );
    expect(jobs.map((job) => job.singleton_key)).toEqual([`recover:${(await clipAt(slot))!.id}`]);

    // This process's worker records it.
    const recorded = await waitFor(
      async () => {
        const clip = await clipAt(slot);
        return clip?.status === 'ready' ? clip : undefined;
      },
      30_000,
      'the recovered recording',
    );
    expect(recorded).toMatchObject({ claimedBy: context.instance.id, recoveries: 1, error: null });
    const [deadRow] = await context.database.db
      .select()
      .from(instances)
      .where(eq(instances.id, dead.id));
    expect(deadRow?.goneAt).not.toBeNull();

    // pg-boss retries the dead worker's own job after its expiry: the slot is done.
    await recording.handle({ kind: 'scheduled', livestreamId, slot });
    expect(await clipAt(slot)).toEqual(recorded);
    expect(await recording.recoverDeadWorkers()).toEqual({ requeued: 0, failed: 0 });
  }, 60_000);

  it('refuses a late job while a living worker records the clip again', async () => {
    const { recording } = context.livestreaming;
    const slot = '2026-03-10T10';
    await workerClaiming(slot);
    await passDeadThreshold();
    // A living worker has re-claimed it (the recovery's job, here by hand).
    const successor = await workerClaiming(slot);
    await recording.handle({ kind: 'scheduled', livestreamId, slot });
    expect(await clipAt(slot)).toMatchObject({ status: 'recording', claimedBy: successor.id });
    expect(await recording.recoverDeadWorkers()).toEqual({ requeued: 0, failed: 0 });
    // Only the holder of the claim writes the outcome.
    const clipId = (await clipAt(slot))!.id;
    await recordingRepository.finishClip(
      context.database.db,
      clipId,
      { status: 'failed', error: 'not the holder' },
      context.instance.id,
    );
    expect(await clipAt(slot)).toMatchObject({ status: 'recording', claimedBy: successor.id });
    await recordingRepository.finishClip(
      context.database.db,
      clipId,
      { status: 'ready', sizeBytes: 4096 },
      successor.id,
    );
    expect(await clipAt(slot)).toMatchObject({ status: 'ready' });
    await successor.stop();
  });

  it('gives up a slot whose worker died twice, saying so', async () => {
    const slot = '2026-03-10T11';
    const first = await workerClaiming(slot);
    await passDeadThreshold();
    await context.database.db
      .update(clips)
      .set({ recoveries: 1 })
      .where(and(eq(clips.livestreamId, livestreamId), eq(clips.claimedBy, first.id)));
    expect(await context.livestreaming.recording.recoverDeadWorkers()).toEqual({
      requeued: 0,
      failed: 1,
    });
    expect(await clipAt(slot)).toMatchObject({
      status: 'failed',
      error: abandonedScheduledReason,
      claimedBy: null,
    });
  });

  it('fails a requested clip of a dead worker with what to do, and its late job records nothing', async () => {
    const { recording } = context.livestreaming;
    const worker = createInstance({ db: context.database.db, clock: processClock, role: 'worker' });
    await worker.register();
    const inserted = await recordingRepository.insertClip(context.database.db, {
      livestreamId,
      slot: `now:${crypto.randomUUID()}`,
      durationSeconds: 15,
      storageKey: `livestreams/${livestreamId}/now-dead.mp4`,
      now: context.clock.now(),
    });
    await recordingRepository.claimClip(context.database.db, {
      clipId: inserted.id,
      now: context.clock.now(),
      aliveAt: processClock.now(),
      claimedBy: worker.id,
    });
    await passDeadThreshold();
    expect(await recording.recoverDeadWorkers()).toEqual({ requeued: 0, failed: 1 });
    const failed = await recordingRepository.findClip(context.database.db, inserted.id);
    expect(failed).toMatchObject({ status: 'failed', error: interruptedRequestReason });
    // The setup page stops waiting at once; the job's late retry does not record it after all.
    await recording.handle({
      kind: 'immediate',
      clipId: inserted.id,
      rtspPath: '/12',
      includeAudio: false,
    });
    expect(await recordingRepository.findClip(context.database.db, inserted.id)).toEqual(failed);
  });
});

describe('stopping the recordings on shutdown', () => {
  let context: LivestreamTestContext;
  let livestreamId: string;

  /** ffmpeg processes this test process started and that are still running. */
  async function ffmpegChildren(): Promise<string[]> {
    const { stdout } = await run('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)]).catch(
      () => ({ stdout: '' }),
    );
    return stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.endsWith('ffmpeg'));
  }

  beforeAll(async () => {
    // Clips of 15 s: long enough to be stopped part-way.
    context = await createLivestreamTestContext();
    await seedDemoData(context.database.db, context.clock);
    context.clock.set('2026-03-10T09:05:00Z');
    livestreamId = await setUpFarmyard(context);
  });

  afterAll(async () => {
    await context?.close();
  });

  it('kills ffmpeg mid-recording and leaves no temporary file and no "recording" row', async () => {
    const { recording } = context.livestreaming;
    const workFolder = recordingWorkFolder(context.dataDir, context.instance.id);
    const requested = await recordingRepository.insertClip(context.database.db, {
      livestreamId,
      slot: `now:${crypto.randomUUID()}`,
      durationSeconds: 15,
      storageKey: `livestreams/${livestreamId}/now-stopped.mp4`,
      now: context.clock.now(),
    });
    const scheduled = recording.handle({ kind: 'scheduled', livestreamId, slot: '2026-03-10T09' });
    const immediate = recording.handle({
      kind: 'immediate',
      clipId: requested.id,
      rtspPath: '/12',
      includeAudio: false,
    });
    const scheduledOutcome = scheduled.then(
      () => 'resolved',
      (error: unknown) => error,
    );

    // Both are recording: two ffmpeg children writing into this process's folder.
    await waitFor(
      async () => {
        const files = await fs.promises.readdir(workFolder).catch(() => []);
        const written = await Promise.all(
          files.map((file) => fs.promises.stat(path.join(workFolder, file)).then((s) => s.size)),
        );
        return written.filter((size) => size > 0).length >= 2 ? true : undefined;
      },
      20_000,
      'two recordings under way',
    );
    expect(await ffmpegChildren()).toHaveLength(2);

    const startedAt = Date.now();
    await recording.stop();
    // Well before the 15-second clips would have ended.
    expect(Date.now() - startedAt).toBeLessThan(5_000);

    expect(await ffmpegChildren()).toEqual([]);
    expect(fs.existsSync(path.dirname(workFolder))).toBe(false);
    // The scheduled job fails back to pg-boss, whose retry takes the failed slot over.
    expect(await scheduledOutcome).toBeInstanceOf(RecordingInterruptedError);
    await immediate;
    const rows = await context.database.db
      .select()
      .from(clips)
      .where(eq(clips.livestreamId, livestreamId));
    expect(rows.filter((row) => row.status === 'recording')).toEqual([]);
    expect(rows.find((row) => row.slot === '2026-03-10T09')).toMatchObject({
      status: 'failed',
      error: interruptedScheduledReason,
      claimedBy: null,
    });
    expect(rows.find((row) => row.id === requested.id)).toMatchObject({
      status: 'failed',
      error: interruptedRequestReason,
      claimedBy: null,
    });

    // A job that still reaches the stopping process is handed back without recording.
    await expect(
      recording.handle({ kind: 'scheduled', livestreamId, slot: '2026-03-10T10' }),
    ).rejects.toBeInstanceOf(RecordingInterruptedError);
    expect(await ffmpegChildren()).toEqual([]);
  }, 60_000);
});
