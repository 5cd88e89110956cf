/**
 * A recorded clip when object storage fails (docs/decisions/105), against the fake S3 server
 * (s3rver) cut off and restored: a blip is ridden out by the quick retries; a longer outage
 * keeps the file on this machine (DATA_DIR/uploads) and stores it once storage answers, without
 * recording the slot again; a process that died mid-upload is taken over; a file nobody waits for
 * is dropped; a clip whose file never reached storage is given up after seven days. The recorder
 * is a stand-in that writes bytes (the real one is tested in recording.service.test.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clips, livestreams } from '../../db/schema.ts';
import { systemClock } from '../../lib/clock.ts';
import { createInstance } from '../../lib/instance.ts';
import type { LocalCamera } from '../../providers/camera/local-camera.ts';
import type { Recorder } from '../../providers/recorder/recorder.ts';
import { createS3Client, createS3Storage } from '../../providers/storage/s3-storage.ts';
import { createUploadSpool, uploadSpoolPolicy } from '../../providers/storage/upload-spool.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { startTestS3Server, type TestS3Server } from '../../../test/helpers/s3-server.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { abandonedUploadReason } from './recording.service.ts';

const farmyard = demoIccid(103);

let context: TestContext;
let s3: TestS3Server;
let folder: string;
let livestreamId: string;
/** The spool's clock: its waits after a failed look are skipped by moving it. */
let spoolNow = Date.now();
/** What the stand-in recorder wrote, by output path. */
const recorded: { outputPath: string; bytes: Buffer }[] = [];
let afterRecording: (() => void) | undefined;

const recorder: Recorder = {
  async record({ outputPath }) {
    const bytes = randomBytes(64 * 1024);
    await fs.promises.writeFile(outputPath, bytes);
    recorded.push({ outputPath, bytes });
    afterRecording?.();
    return { sizeBytes: bytes.length };
  },
};
const camera: LocalCamera = {
  check: async () => ({ problem: null, missing: [], packages: [] }),
  ensureRunning: async () => ({ host: '127.0.0.1', port: 8554 }),
  stop: async () => undefined,
};

const recording = () => context.services.livestreaming.recording;
const spoolFolder = () => path.join(folder, 'uploads');
const spooled = async () => fs.promises.readdir(spoolFolder()).catch(() => [] as string[]);
const clipOfSlot = async (slot: string) =>
  (await context.database.db.select().from(clips).where(eq(clips.slot, slot))).find(
    (clip) => clip.livestreamId === livestreamId,
  );

async function objectBytes(key: string): Promise<Buffer> {
  const answer = await createS3Client(s3).send(
    new GetObjectCommand({ Bucket: s3.bucket, Key: key }),
  );
  return Buffer.from(await answer.Body!.transformToByteArray());
}

async function objectKeys(prefix: string): Promise<string[]> {
  const answer = await createS3Client(s3).send(
    new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }),
  );
  return (answer.Contents ?? []).map((object) => object.Key!);
}

beforeAll(async () => {
  s3 = await startTestS3Server();
  folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-clip-upload-'));
  const instanceId = randomUUID();
  context = await createTestContext(
    { dataDir: folder, logLevel: 'silent' },
    undefined,
    ({ clock }) => {
      const storage = createS3Storage({ ...s3, clock });
      return {
        storage,
        uploads: createUploadSpool({
          storage,
          folder: path.join(folder, 'uploads'),
          log: { info: () => undefined, warn: () => undefined },
          immediateRetryDelaysMs: [50, 150],
          now: () => spoolNow,
        }),
        recorder,
        localCamera: camera,
        instanceId,
      };
    },
  );
  // Alive on the system clock, which claims are judged by (business time is the manual clock).
  await createInstance({
    db: context.database.db,
    clock: systemClock,
    role: 'all',
    id: instanceId,
  }).register();
  await seedDemoData(context.database.db, context.clock);
  const [row] = await context.database.db
    .insert(livestreams)
    .values({
      simIccid: farmyard,
      publicId: 'ls_upload_farmyard_00000',
      scheduleHours: [9, 12, 15],
      isActive: true,
      cameraHost: '127.0.0.1',
      cameraPort: 8554,
    })
    .returning();
  livestreamId = row!.id;
}, 60_000);
afterAll(async () => {
  await context?.close();
  await s3?.close();
  await fs.promises.rm(folder, { recursive: true, force: true });
});

describe('a recorded clip when storage fails', () => {
  it('rides out a blip of a second: stored after a quick retry, nothing kept', async () => {
    s3.setUnreachable(true);
    afterRecording = () => setTimeout(() => s3.setUnreachable(false), 100);
    try {
      await recording().handle({ kind: 'scheduled', livestreamId, slot: '2026-03-10T09' });
    } finally {
      afterRecording = undefined;
      s3.setUnreachable(false);
    }
    const clip = await clipOfSlot('2026-03-10T09');
    expect(clip).toMatchObject({ status: 'ready', sizeBytes: 64 * 1024 });
    expect(await objectBytes(clip!.storageKey!)).toEqual(recorded.at(-1)!.bytes);
    expect(await spooled()).toEqual([]);
  });

  it('keeps the clip through a long outage, records the slot once, and stores it when storage answers', async () => {
    s3.setUnreachable(true);
    const before = recorded.length;
    // The job succeeds: pg-boss will not run it again, so the camera is not recorded twice.
    await recording().handle({ kind: 'scheduled', livestreamId, slot: '2026-03-10T12' });
    const waiting = await clipOfSlot('2026-03-10T12');
    expect(waiting).toMatchObject({ status: 'uploading', claimedBy: null, sizeBytes: null });
    expect(await spooled()).toEqual([`clip.${waiting!.id}.mp4`]);
    const kept = await fs.promises.readFile(path.join(spoolFolder(), `clip.${waiting!.id}.mp4`));
    expect(kept).toEqual(recorded.at(-1)!.bytes);
    // The work file went; only the spool holds it.
    expect(fs.existsSync(recorded.at(-1)!.outputPath)).toBe(false);

    // The farmer sees it still recording, as it is not playable yet.
    const headers = bearer(await signInCustomer(context, 'demo@example.com'));
    const status = await context.app.inject({
      method: 'GET',
      url: `/api/livestreaming/clip?camera_id=${farmyard}&s3_key=${encodeURIComponent(waiting!.storageKey!)}`,
      headers,
    });
    expect(status.json()).toMatchObject({ status: 'recording', url: null });

    // A late retry of the same job, or another worker, does not record it again.
    await recording().handle({ kind: 'scheduled', livestreamId, slot: '2026-03-10T12' });
    expect(recorded.length).toBe(before + 1);

    // Still down: the spool tries, keeps it, and waits before the next look.
    expect(await context.services.retryPendingUploads()).toEqual({ stored: 0 });
    expect(await spooled()).toHaveLength(1);
    expect((await clipOfSlot('2026-03-10T12'))!.claimedBy).toBeNull();
    spoolNow += 5_000;
    s3.setUnreachable(false);
    expect(await context.services.retryPendingUploads()).toEqual({ stored: 0 });
    spoolNow += uploadSpoolPolicy.firstWaitMs;

    expect(await context.services.retryPendingUploads()).toEqual({ stored: 1 });
    const stored = await clipOfSlot('2026-03-10T12');
    expect(stored).toMatchObject({ status: 'ready', sizeBytes: 64 * 1024, claimedBy: null });
    expect(await objectBytes(stored!.storageKey!)).toEqual(kept);
    expect(await objectKeys(`livestreams/${livestreamId}/2026-03-10T12`)).toEqual([
      stored!.storageKey,
    ]);
    expect(await spooled()).toEqual([]);
    const ready = await context.app.inject({
      method: 'GET',
      url: `/api/livestreaming/clip?camera_id=${farmyard}&s3_key=${encodeURIComponent(stored!.storageKey!)}`,
      headers,
    });
    expect(ready.json()).toMatchObject({ status: 'ready', url: expect.any(String) });
  });

  it('takes over a file whose uploader died, leaves one still being recorded, drops one nobody waits for', async () => {
    const spoolFile = async (id: string) => {
      await fs.promises.mkdir(spoolFolder(), { recursive: true });
      await fs.promises.writeFile(path.join(spoolFolder(), `clip.${id}.mp4`), `clip ${id}`);
    };
    const insert = async (slot: string, values: Partial<typeof clips.$inferInsert>) => {
      const [row] = await context.database.db
        .insert(clips)
        .values({
          livestreamId,
          slot,
          status: 'uploading',
          durationSeconds: 15,
          storageKey: `livestreams/${livestreamId}/${slot}-test.mp4`,
          recordedAt: context.clock.now(),
          ...values,
        })
        .returning();
      await spoolFile(row!.id);
      return row!;
    };
    const orphan = await insert('2026-03-10T13', { claimedBy: randomUUID() });
    const living = createInstance({ db: context.database.db, clock: systemClock, role: 'worker' });
    await living.register();
    const beingRecorded = await insert('2026-03-10T14', {
      status: 'recording',
      claimedBy: living.id,
    });
    const done = await insert('2026-03-10T15', { status: 'ready', sizeBytes: 10 });

    spoolNow += uploadSpoolPolicy.maxWaitMs;
    expect(await context.services.retryPendingUploads()).toEqual({ stored: 1 });
    expect(await clipOfSlot('2026-03-10T13')).toMatchObject({ status: 'ready', claimedBy: null });
    expect((await objectBytes(orphan.storageKey!)).toString()).toBe(`clip ${orphan.id}`);
    // Its recorder is about to mark it: left for a later look.
    expect(await spooled()).toEqual([`clip.${beingRecorded.id}.mp4`]);
    expect(await clipOfSlot('2026-03-10T14')).toMatchObject({ status: 'recording' });
    // Already stored by someone else: dropped, and its object left as it was.
    expect(await objectKeys(done.storageKey!)).toEqual([]);
    await fs.promises.rm(path.join(spoolFolder(), `clip.${beingRecorded.id}.mp4`));
  });

  it('gives up a clip whose file has not reached storage in seven days', async () => {
    const [stale] = await context.database.db
      .insert(clips)
      .values({
        livestreamId,
        slot: '2026-03-02T09',
        status: 'uploading',
        durationSeconds: 15,
        storageKey: `livestreams/${livestreamId}/2026-03-02T09-gone.mp4`,
        recordedAt: new Date(context.clock.now().getTime() - 8 * 86_400_000),
      })
      .returning();
    const [recent] = await context.database.db
      .insert(clips)
      .values({
        livestreamId,
        slot: '2026-03-08T09',
        status: 'uploading',
        durationSeconds: 15,
        storageKey: `livestreams/${livestreamId}/2026-03-08T09-waiting.mp4`,
        recordedAt: new Date(context.clock.now().getTime() - 2 * 86_400_000),
      })
      .returning();
    await recording().recoverDeadWorkers();
    const [givenUp] = await context.database.db.select().from(clips).where(eq(clips.id, stale!.id));
    expect(givenUp).toMatchObject({ status: 'failed', error: abandonedUploadReason });
    const [kept] = await context.database.db.select().from(clips).where(eq(clips.id, recent!.id));
    expect(kept).toMatchObject({ status: 'uploading' });
  });
});
