/**
 * Daily timelapses from real tiny clips (ffmpeg testsrc, made here): built once by two workers,
 * H.264 with one frame per sampled still, the date and time burnt in (drawtext with the DejaVu
 * font), an empty day, a dead worker's claim taken over, the camera's list with play and download
 * addresses served with ranges and as an attachment, and the retention purge (decision 097).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TimelapsesResponse } from '@farmcam/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clips, instances, livestreams, timelapses } from '../../db/schema.ts';
import { createFfmpegTimelapseMaker } from '../../providers/recorder/timelapse-maker.ts';
import {
  createFilesystemStorage,
  type FilesystemStorage,
} from '../../providers/storage/filesystem-storage.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  testPublicUrl,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { clipLabel, createTimelapseService, downloadNameOf } from './timelapse.service.ts';
import { createUploadSpool } from '../../providers/storage/upload-spool.ts';

const run = promisify(execFile);
const farmyard = demoIccid(103);
const calvingPen = demoIccid(104);
/** Lambing shed: a livestream whose only clip yesterday failed (its day is empty). */
const lambingShed = demoIccid(102);
/** The manual clock says 2026-03-10 12:00 UTC: yesterday is the 9th (GMT, no summer time). */
const yesterday = '2026-03-09';

let context: TestContext;
let folder: string;
let storage: FilesystemStorage;
let farmyardLivestream: string;
let lambingShedLivestream: string;
const workerIds = [randomUUID(), randomUUID()];

async function makeClip(key: string, seconds: number): Promise<void> {
  const file = path.join(folder, `${randomUUID()}.mp4`);
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=320x240:rate=10:duration=${seconds}`,
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-y',
    file,
  ]);
  await storage.putFile(key, file, 'video/mp4');
}

async function probe(file: string) {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-count_frames',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=codec_name,pix_fmt,width,nb_read_frames',
    '-of',
    'json',
    file,
  ]);
  return (JSON.parse(stdout) as { streams: Record<string, string | number>[] }).streams[0]!;
}

function serviceFor(instanceId: string) {
  return createTimelapseService({
    db: context.database.db,
    clock: context.clock,
    storage,
    uploads: createUploadSpool({
      storage,
      folder: path.join(folder, 'uploads'),
      log: { info: () => {}, warn: () => {} },
    }),
    maker: createFfmpegTimelapseMaker({ ffmpegPath: 'ffmpeg' }),
    retentionDays: 30,
    instanceId,
    workFolder: path.join(folder, 'work', instanceId),
    log: { info: () => {}, warn: () => {}, error: () => {} },
  });
}

async function addLivestream(iccid: string, publicId: string): Promise<string> {
  const [row] = await context.database.db
    .insert(livestreams)
    .values({ simIccid: iccid, publicId, scheduleHours: [9, 12, 15], isActive: true })
    .returning();
  return row!.id;
}

beforeAll(async () => {
  folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-timelapse-'));
  context = await createTestContext({ dataDir: folder }, undefined, ({ clock }) => {
    storage = createFilesystemStorage({
      root: path.join(folder, 'clips'),
      publicUrl: testPublicUrl,
      secret: 'test-secret',
      clock,
    });
    return { storage };
  });
  await seedDemoData(context.database.db, context.clock);
  farmyardLivestream = await addLivestream(farmyard, 'ls_timelapse_farmyard_000');
  lambingShedLivestream = await addLivestream(lambingShed, 'ls_timelapse_lambing_0000');
  // Three ready scheduled clips yesterday, a failed one, a preview (not scheduled), one today.
  const rows = [
    { slot: `${yesterday}T09`, at: `${yesterday}T09:00:00Z`, status: 'ready' as const },
    { slot: `${yesterday}T12`, at: `${yesterday}T12:00:00Z`, status: 'ready' as const },
    { slot: `${yesterday}T15`, at: `${yesterday}T15:00:00Z`, status: 'ready' as const },
    { slot: `${yesterday}T18`, at: `${yesterday}T18:00:00Z`, status: 'failed' as const },
    { slot: `preview:${randomUUID()}`, at: `${yesterday}T10:00:00Z`, status: 'ready' as const },
    { slot: '2026-03-10T09', at: '2026-03-10T09:00:00Z', status: 'ready' as const },
  ];
  for (const row of rows) {
    const key = `livestreams/${farmyardLivestream}/${row.slot.replace(':', '-')}.mp4`;
    if (row.status === 'ready') await makeClip(key, 2);
    await context.database.db.insert(clips).values({
      livestreamId: farmyardLivestream,
      slot: row.slot,
      status: row.status,
      durationSeconds: 2,
      storageKey: key,
      recordedAt: new Date(row.at),
    });
  }
  // The lambing shed's only clip yesterday failed: its day is empty.
  await context.database.db.insert(clips).values({
    livestreamId: lambingShedLivestream,
    slot: `${yesterday}T09`,
    status: 'failed',
    durationSeconds: 2,
    recordedAt: new Date(`${yesterday}T09:00:00Z`),
  });
  const now = new Date();
  for (const id of workerIds) {
    await context.database.db
      .insert(instances)
      .values({ id, role: 'worker', host: 'test', pid: 1, startedAt: now, heartbeatAt: now });
  }
}, 60_000);
afterAll(async () => {
  await context.close();
  await fs.promises.rm(folder, { recursive: true, force: true });
});

describe('daily timelapse', () => {
  it('labels say the UK date and time; download names say the camera and day', () => {
    expect(clipLabel(new Date('2026-03-09T09:00:00Z'))).toBe('Mon 9 Mar 2026 09:00');
    // British Summer Time: 08:00 UTC is 09:00 in London.
    expect(clipLabel(new Date('2026-07-01T08:00:00Z'))).toBe('Wed 1 Jul 2026 09:00');
    expect(downloadNameOf('Top gate', '2026-11-23')).toBe('Top-gate-2026-11-23-timelapse.mp4');
    expect(downloadNameOf('Ç’s pen!', '2026-11-23')).toBe('C-s-pen-2026-11-23-timelapse.mp4');
  });

  it('two workers build each camera-day once: H.264, yuv420p, 640 px, two frames per clip', async () => {
    const [first, second] = await Promise.all(workerIds.map((id) => serviceFor(id).buildDue()));
    // Farmyard's day, and the demo's queued day of Calving pen (seed/demo-timelapse.ts).
    expect(first!.ready + second!.ready).toBe(2);
    expect(first!.empty + second!.empty).toBe(1);
    const rows = await context.database.db
      .select()
      .from(timelapses)
      .where(eq(timelapses.livestreamId, farmyardLivestream));
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toMatchObject({
      day: yesterday,
      status: 'ready',
      clipCount: 3,
      frameCount: 6,
      durationMs: 1500,
      claimedBy: null,
    });
    expect(row!.cpuMs).toBeGreaterThan(0);
    const file = path.join(storage.root, ...row!.storageKey!.split('/'));
    expect(row!.sizeBytes).toBe(fs.statSync(file).size);
    expect(await probe(file)).toMatchObject({
      codec_name: 'h264',
      pix_fmt: 'yuv420p',
      width: 640,
      nb_read_frames: '6',
    });
    // The work folders are gone.
    for (const id of workerIds) {
      const work = path.join(folder, 'work', id);
      expect(fs.existsSync(work) ? fs.readdirSync(work) : []).toEqual([]);
    }
    // Running again builds nothing.
    expect(await serviceFor(workerIds[0]!).buildDue()).toMatchObject({ ready: 0, empty: 0 });
  }, 60_000);

  it("a day with no ready scheduled clip is 'empty'", async () => {
    const [row] = await context.database.db
      .select()
      .from(timelapses)
      .where(eq(timelapses.livestreamId, lambingShedLivestream));
    expect(row).toMatchObject({ status: 'empty', clipCount: 0, storageKey: null });
  });

  it("the demo's queued day is made from made-up clips, with the hours burnt in", async () => {
    const [row] = await context.database.db
      .select()
      .from(timelapses)
      .where(eq(timelapses.simIccid, calvingPen));
    expect(row).toMatchObject({
      day: yesterday,
      status: 'ready',
      clipCount: 10,
      frameCount: 20,
      durationMs: 5000,
    });
    const file = path.join(storage.root, ...row!.storageKey!.split('/'));
    expect(await probe(file)).toMatchObject({ codec_name: 'h264', nb_read_frames: '20' });
  });

  it("a dead worker's half-built day is taken over by the next run", async () => {
    const day = '2026-03-08';
    const key = `livestreams/${lambingShedLivestream}/${day}T09.mp4`;
    await makeClip(key, 2);
    await context.database.db.insert(clips).values({
      livestreamId: lambingShedLivestream,
      slot: `${day}T09`,
      status: 'ready',
      durationSeconds: 2,
      storageKey: key,
      recordedAt: new Date(`${day}T09:00:00Z`),
    });
    await context.database.db.insert(timelapses).values({
      livestreamId: lambingShedLivestream,
      simIccid: lambingShed,
      day,
      status: 'building',
      claimedBy: randomUUID(),
    });
    expect(await serviceFor(workerIds[1]!).buildDue()).toMatchObject({ ready: 1 });
    const [row] = await context.database.db
      .select()
      .from(timelapses)
      .where(eq(timelapses.day, day));
    expect(row).toMatchObject({ status: 'ready', clipCount: 1, frameCount: 2 });
  }, 60_000);

  it('the camera lists its days with addresses that play with ranges and download as a file', async () => {
    const token = await signInCustomer(context, 'demo@example.com');
    const answer = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/timelapses/${farmyard}`,
      headers: bearer(token),
    });
    expect(answer.statusCode).toBe(200);
    const body = answer.json<TimelapsesResponse>();
    expect(body.hasLivestream).toBe(true);
    expect(body.retentionDays).toBe(30);
    const [latest] = body.timelapses;
    expect(latest).toMatchObject({
      day: yesterday,
      status: 'ready',
      downloadName: `Farmyard-${yesterday}-timelapse.mp4`,
    });
    const local = (url: string) => url.slice(testPublicUrl.length);
    const ranged = await context.app.inject({
      method: 'GET',
      url: local(latest!.videoUrl!),
      headers: { range: 'bytes=0-99' },
    });
    expect(ranged.statusCode).toBe(206);
    expect(ranged.headers['content-disposition']).toBeUndefined();
    const download = await context.app.inject({ method: 'GET', url: local(latest!.downloadUrl!) });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="Farmyard-${yesterday}-timelapse.mp4"`,
    );
    expect(download.rawPayload.length).toBe(latest!.sizeBytes);
    // The download name is signed: another name is refused.
    const renamed = local(latest!.downloadUrl!).replace('download=Farmyard', 'download=Other');
    expect((await context.app.inject({ method: 'GET', url: renamed })).statusCode).toBe(403);

    // A camera without a livestream says so; another customer's camera is not found.
    const topGate = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/timelapses/${demoIccid(101)}`,
      headers: bearer(token),
    });
    expect(topGate.json<TimelapsesResponse>()).toMatchObject({
      hasLivestream: false,
      timelapses: [],
    });
    const other = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/timelapses/${demoIccid(201)}`,
      headers: bearer(token),
    });
    expect(other.statusCode).toBe(404);
  });

  it('the purge deletes timelapses past the retention, file and row', async () => {
    const [row] = await context.database.db
      .select()
      .from(timelapses)
      .where(eq(timelapses.livestreamId, farmyardLivestream));
    const file = path.join(storage.root, ...row!.storageKey!.split('/'));
    expect(fs.existsSync(file)).toBe(true);
    const service = serviceFor(workerIds[0]!);
    expect(await service.purgeExpired()).toEqual({ deleted: 0 });
    // 30 days kept: on 2026-04-08 the 9th of March is the 30th day back, still kept.
    context.clock.set(new Date('2026-04-08T12:00:00Z'));
    expect(await service.purgeExpired()).toEqual({ deleted: 1 });
    context.clock.set(new Date('2026-04-09T12:00:00Z'));
    expect(await service.purgeExpired()).toEqual({ deleted: 3 });
    expect(fs.existsSync(file)).toBe(false);
    expect(await context.database.db.select().from(timelapses)).toEqual([]);
  });
});
