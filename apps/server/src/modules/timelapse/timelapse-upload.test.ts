/**
 * Daily timelapses when object storage fails (docs/decisions/105), against the fake S3 server
 * (s3rver) cut off and restored: clips that cannot be read put the day off (never a timelapse of
 * half the day); a built file storage will not take waits on this machine and is stored once it
 * answers, never built twice; a day with a clip still waiting for storage waits for it; a file
 * that never reached storage is given up after seven days. The maker is a stand-in that writes
 * bytes and counts the clips it was given (ffmpeg is tested in timelapse.service.test.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clips, livestreams, timelapses } from '../../db/schema.ts';
import { systemClock } from '../../lib/clock.ts';
import { createInstance } from '../../lib/instance.ts';
import type { TimelapseMaker } from '../../providers/recorder/timelapse-maker.ts';
import { createS3Client, createS3Storage } from '../../providers/storage/s3-storage.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import { createUploadSpool, uploadSpoolPolicy } from '../../providers/storage/upload-spool.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { startTestS3Server, type TestS3Server } from '../../../test/helpers/s3-server.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { timelapseFailedReason } from './timelapse.service.ts';

const farmyard = demoIccid(103);
/** The manual clock says 2026-03-10 12:00 UTC: yesterday is the 9th. */
const yesterday = '2026-03-09';

let context: TestContext;
let s3: TestS3Server;
let storage: ClipStorage;
let folder: string;
let livestreamId: string;
let spoolNow = Date.now();
/** What the stand-in maker was asked to make, and what it wrote. */
const made: { clips: number; bytes: Buffer }[] = [];
let afterMaking: (() => void) | undefined;

const maker: TimelapseMaker = {
  async make({ clips: given, outputPath }) {
    const bytes = randomBytes(32 * 1024);
    await fs.promises.writeFile(outputPath, bytes);
    made.push({ clips: given.length, bytes });
    afterMaking?.();
    return {
      clipCount: given.length,
      frameCount: given.length * 2,
      durationMs: 1500,
      cpuMs: 5,
      sizeBytes: bytes.length,
    };
  },
  async makeSampleClip(outputPath) {
    await fs.promises.writeFile(outputPath, 'sample');
  },
};

const timelapsesOf = (day: string) =>
  context.database.db
    .select()
    .from(timelapses)
    .where(eq(timelapses.day, day))
    .then((rows) => rows.filter((row) => row.livestreamId === livestreamId));
const spooled = async () =>
  fs.promises.readdir(path.join(folder, 'uploads')).catch(() => [] as string[]);

async function addClips(day: string, hours: number[]) {
  for (const hour of hours) {
    const slot = `${day}T${String(hour).padStart(2, '0')}`;
    const key = `livestreams/${livestreamId}/${slot}-${randomUUID().slice(0, 8)}.mp4`;
    const file = path.join(folder, `${randomUUID()}.mp4`);
    await fs.promises.writeFile(file, `clip ${slot}`);
    await storage.putFile(key, file, 'video/mp4');
    await context.database.db.insert(clips).values({
      livestreamId,
      slot,
      status: 'ready',
      durationSeconds: 15,
      storageKey: key,
      recordedAt: new Date(`${slot}:00:00Z`),
    });
  }
}

beforeAll(async () => {
  s3 = await startTestS3Server();
  folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-timelapse-upload-'));
  const instanceId = randomUUID();
  context = await createTestContext(
    { dataDir: folder, logLevel: 'silent' },
    undefined,
    ({ clock }) => {
      storage = createS3Storage({ ...s3, clock });
      return {
        storage,
        uploads: createUploadSpool({
          storage,
          folder: path.join(folder, 'uploads'),
          log: { info: () => undefined, warn: () => undefined },
          immediateRetryDelaysMs: [20, 40],
          now: () => spoolNow,
        }),
        timelapseMaker: maker,
        instanceId,
      };
    },
  );
  await createInstance({
    db: context.database.db,
    clock: systemClock,
    role: 'all',
    id: instanceId,
  }).register();
  await seedDemoData(context.database.db, context.clock);
  // Only this test's days: the demo's queued day is not wanted here.
  await context.database.db.delete(timelapses);
  const [row] = await context.database.db
    .insert(livestreams)
    .values({ simIccid: farmyard, publicId: 'ls_timelapse_upload_0000', isActive: true })
    .returning();
  livestreamId = row!.id;
}, 60_000);
afterAll(async () => {
  await context?.close();
  await s3?.close();
  await fs.promises.rm(folder, { recursive: true, force: true });
});

describe('a daily timelapse when storage fails', () => {
  it('puts the day off while its clips cannot be read, and builds it whole once they can', async () => {
    await addClips(yesterday, [9, 12, 15]);
    s3.setUnreachable(true);
    try {
      const counts = await context.services.timelapses.buildDue();
      expect(counts).toMatchObject({ deferred: 1, ready: 0, failed: 0 });
    } finally {
      s3.setUnreachable(false);
    }
    // No timelapse of part of the day, and nothing marked failed: the day is simply due again.
    expect(made).toEqual([]);
    expect(await timelapsesOf(yesterday)).toEqual([]);

    const counts = await context.services.timelapses.buildDue();
    expect(counts).toMatchObject({ ready: 1 });
    expect(made.map((entry) => entry.clips)).toEqual([3]);
    expect(await timelapsesOf(yesterday)).toMatchObject([{ status: 'ready', clipCount: 3 }]);
  });

  it('keeps a built timelapse storage will not take, shows it as being made, and stores it once', async () => {
    const day = '2026-03-08';
    await addClips(day, [9, 12]);
    afterMaking = () => s3.setUnreachable(true);
    try {
      expect(await context.services.timelapses.buildDue()).toMatchObject({ uploading: 1 });
    } finally {
      afterMaking = undefined;
    }
    const [waiting] = await timelapsesOf(day);
    expect(waiting).toMatchObject({ status: 'uploading', claimedBy: null, clipCount: 2 });
    expect(await spooled()).toEqual([`timelapse.${waiting!.id}.mp4`]);

    // The farmer sees the day being made, not failed and not playable.
    const headers = bearer(await signInCustomer(context, 'demo@example.com'));
    const listed = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/timelapses/${farmyard}`,
      headers,
    });
    expect(listed.json().timelapses).toContainEqual(
      expect.objectContaining({ day, status: 'building', videoUrl: null }),
    );

    // Not built again while it waits.
    const makes = made.length;
    await context.services.timelapses.buildDue();
    expect(made.length).toBe(makes);

    expect(await context.services.retryPendingUploads()).toEqual({ stored: 0 });
    s3.setUnreachable(false);
    spoolNow += uploadSpoolPolicy.firstWaitMs;
    expect(await context.services.retryPendingUploads()).toEqual({ stored: 1 });
    const [stored] = await timelapsesOf(day);
    expect(stored).toMatchObject({ status: 'ready', sizeBytes: 32 * 1024, claimedBy: null });
    const object = await createS3Client(s3).send(
      new GetObjectCommand({ Bucket: s3.bucket, Key: stored!.storageKey! }),
    );
    expect(Buffer.from(await object.Body!.transformToByteArray())).toEqual(made.at(-1)!.bytes);
    expect(await spooled()).toEqual([]);
  });

  it('waits for a clip of the day that is itself still waiting for storage', async () => {
    const day = '2026-03-07';
    await addClips(day, [9]);
    await context.database.db.insert(clips).values({
      livestreamId,
      slot: `${day}T12`,
      status: 'uploading',
      durationSeconds: 15,
      storageKey: `livestreams/${livestreamId}/${day}T12-waiting.mp4`,
      recordedAt: new Date(`${day}T12:00:00Z`),
    });
    await context.services.timelapses.buildDue();
    expect(await timelapsesOf(day)).toEqual([]);
    await context.database.db
      .update(clips)
      .set({ status: 'ready' })
      .where(eq(clips.slot, `${day}T12`));
    await fs.promises.writeFile(path.join(folder, 'late.mp4'), 'late clip');
    await storage.putFile(
      `livestreams/${livestreamId}/${day}T12-waiting.mp4`,
      path.join(folder, 'late.mp4'),
      'video/mp4',
    );
    await context.services.timelapses.buildDue();
    expect(await timelapsesOf(day)).toMatchObject([{ status: 'ready', clipCount: 2 }]);
  });

  it('gives up a timelapse whose file has not reached storage in seven days', async () => {
    const [row] = await context.database.db
      .insert(timelapses)
      .values({
        livestreamId,
        simIccid: farmyard,
        day: '2026-03-01',
        status: 'uploading',
        storageKey: `timelapses/${livestreamId}/2026-03-01-gone.mp4`,
        updatedAt: new Date(Date.now() - 8 * 86_400_000),
      })
      .returning();
    await context.services.timelapses.buildDue();
    const [givenUp] = await context.database.db
      .select()
      .from(timelapses)
      .where(eq(timelapses.id, row!.id));
    expect(givenUp).toMatchObject({ status: 'failed', error: timelapseFailedReason });
  });
});
