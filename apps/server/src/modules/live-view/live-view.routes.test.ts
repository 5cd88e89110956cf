/**
 * Live view end to end on this machine (issue 27): the local GStreamer camera behind the local
 * SIM platform, ffmpeg pulling it into HLS, segments in file storage, the playlist from the API.
 * One pull shared by three viewers, leaving stops it and deletes its segments, each role and a
 * second customer, the refusals with their reasons, and the Activity log.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  liveViewTimings,
  type LiveViewCamerasResponse,
  type LiveViewHeartbeatResponse,
  type LiveViewStatusResponse,
  type StartLiveViewResponse,
} from '@farmcam/contract';
import { desc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { auditLog, clips, dataCaps, liveViewSessions, livestreams } from '../../db/schema.ts';
import { registry } from '../../lib/metrics.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import {
  addMembers,
  createActors,
  expectAccessMatrix,
  matrixOf,
  type Actors,
  type MemberActor,
} from '../../../test/helpers/authorization.ts';
import {
  createLivestreamTestContext,
  waitFor,
  type LivestreamTestContext,
} from '../../../test/helpers/livestream-context.ts';
import { liveViewMessages } from './live-view.service.ts';

const run = promisify(execFile);
const farmyard = demoIccid(103); // Heavy Streaming, monthly
const calvingPen = demoIccid(104); // Heavy Streaming, the member's other camera
const topGate = demoIccid(101); // Light Streaming

let context: LivestreamTestContext;
let actors: Actors & { memberIds: Record<MemberActor, string> };

beforeAll(async () => {
  context = await createLivestreamTestContext();
  actors = await createActors(context, 'demo@example.com').then(async (base) => {
    await seedDemoData(context.database.db, context.clock);
    return addMembers(context, base, { thisIccid: farmyard, otherIccid: calvingPen });
  });
  context.services.liveView.puller.start();
}, 60_000);
afterAll(async () => {
  await context.services.liveView.puller.stop();
  await context.close();
});

type Who = keyof Actors['headers'];
const call = (who: Who, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  context.app.inject({
    method,
    url,
    headers: actors.headers[who],
    ...(payload ? { payload } : {}),
  });

async function heartbeat(who: Who, iccid: string, viewerId: string, stillWatching = false) {
  const response = await call(
    who,
    'POST',
    `/api/live-view/${iccid}/viewers/${viewerId}/heartbeat`,
    {
      stillWatching,
    },
  );
  expect(response.statusCode, response.body).toBe(200);
  return response.json<LiveViewHeartbeatResponse>();
}

async function start(who: Who, iccid = farmyard): Promise<StartLiveViewResponse> {
  const response = await call(who, 'POST', `/api/live-view/${iccid}/watch`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<StartLiveViewResponse>();
}

const openSessions = () =>
  context.database.db
    .select()
    .from(liveViewSessions)
    .where(sql`status in ('starting', 'live')`);

describe('live view', () => {
  it('says why a camera without streaming hours cannot be watched, and which plan has them', async () => {
    const status = (
      await call('owner', 'GET', `/api/live-view/${topGate}`)
    ).json<LiveViewStatusResponse>();
    expect(status.canWatch).toBe(false);
    expect(status.reason).toBe(
      'This camera is on Light Streaming, which has no hours of live view. Heavy Streaming includes 120 hours of live view a month.',
    );
    expect(status.action?.label).toBe('Change to Heavy Streaming');
    const refused = await call('owner', 'POST', `/api/live-view/${topGate}/watch`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(status.reason);
  });

  it("tells the dashboard which cards offer Watch live, within the person's cameras", async () => {
    const owner = (await call('owner', 'GET', '/api/live-view')).json<LiveViewCamerasResponse>();
    const byIccid = new Map(owner.cameras.map((camera) => [camera.iccid, camera]));
    expect(byIccid.get(farmyard)).toMatchObject({ hasLiveView: true, still: null });
    expect(byIccid.get(topGate)?.hasLiveView).toBe(false);
    const viewer = (
      await call('viewerOfThis', 'GET', '/api/live-view')
    ).json<LiveViewCamerasResponse>();
    expect(viewer.cameras.map((camera) => camera.iccid)).toEqual([farmyard]);
    const other = (
      await call('otherCustomer', 'GET', '/api/live-view')
    ).json<LiveViewCamerasResponse>();
    expect(other.cameras.map((camera) => camera.iccid)).not.toContain(farmyard);
  });

  it('lets the owner, managers and viewers of the camera and staff in the portal ask; nobody else', async () => {
    const matrix = matrixOf({ ability: 'read', camera: true });
    await expectAccessMatrix(
      context,
      actors,
      () => ({ method: 'GET', url: `/api/live-view/${farmyard}` }),
      matrix,
    );
    const status = (
      await call('viewerOfThis', 'GET', `/api/live-view/${farmyard}`)
    ).json<LiveViewStatusResponse>();
    expect(status).toMatchObject({ canWatch: true, isEnabled: true, canChangeSetting: false });
    expect(status.allowance.hoursIncluded).toBe(120);
    expect(status.allowance.dataLeftBytes).toBeGreaterThan(0);
    // Another customer and a member of another camera cannot start one either.
    expect(
      (await call('otherCustomer', 'POST', `/api/live-view/${farmyard}/watch`)).statusCode,
    ).toBe(404);
    expect(
      (await call('viewerOfOther', 'POST', `/api/live-view/${farmyard}/watch`)).statusCode,
    ).toBe(404);
    expect((await call('anonymous', 'POST', `/api/live-view/${farmyard}/watch`)).statusCode).toBe(
      401,
    );
    expect(
      (await call('teamUnscoped', 'POST', `/api/live-view/${farmyard}/watch`)).statusCode,
    ).toBe(403);
  });

  it('plays live: three viewers share one pull, the data figure moves, leaving stops it and deletes its segments', async () => {
    const owner = await start('owner');
    const manager = await start('manager');
    const viewer = await start('viewerOfThis');
    expect(await openSessions()).toHaveLength(1);

    const live = await waitFor(
      async () => {
        const beat = await heartbeat('owner', farmyard, owner.viewerId);
        return beat.state === 'live' ? beat : undefined;
      },
      20_000,
      'the first picture',
    );
    expect(live.viewersNow).toBe(3);
    // This worker's metrics: one camera pulled, three people watching, a start measured.
    await context.services.liveView.puller.tick();
    expect(await registry.getSingleMetricAsString('farmcam_live_view_sessions')).toMatch(/ 1$/m);
    expect(await registry.getSingleMetricAsString('farmcam_live_view_viewers')).toMatch(/ 3$/m);
    expect(await registry.getSingleMetricAsString('farmcam_live_view_start_seconds')).toMatch(
      /farmcam_live_view_start_seconds_count 1$/m,
    );

    // The playlist: low-latency fMP4 HLS whose files are signed storage addresses.
    const playlist = await context.app.inject({ method: 'GET', url: owner.playlistUrl });
    expect(playlist.statusCode).toBe(200);
    expect(playlist.headers['content-type']).toContain('application/vnd.apple.mpegurl');
    expect(playlist.body).toContain('#EXT-X-PROGRAM-DATE-TIME:');
    expect(playlist.body).toMatch(
      /#EXT-X-MAP:URI="[^"]*\/media\/clips\/live\/[^"]+init\.mp4\?expires=/,
    );
    const segmentUrl = playlist.body.split('\n').find((line) => line.includes('.m4s'))!;
    const segment = await context.app.inject({
      method: 'GET',
      url: new URL(segmentUrl).pathname + new URL(segmentUrl).search,
    });
    expect(segment.statusCode).toBe(200);
    expect(segment.rawPayload.length).toBeGreaterThan(1000);
    // Behind the camera by at most a few seconds (the playlist's own clock).
    const stamps = [...playlist.body.matchAll(/#EXT-X-PROGRAM-DATE-TIME:(.+)/g)].map((match) =>
      Date.parse(match[1]!),
    );
    expect(Date.now() - stamps.at(-1)!).toBeLessThan(6_000);

    const first = await heartbeat('manager', farmyard, manager.viewerId);
    const later = await waitFor(
      async () => {
        const beat = await heartbeat('manager', farmyard, manager.viewerId);
        return beat.bytesThisView > first.bytesThisView ? beat : undefined;
      },
      10_000,
      'more data',
    );
    expect(later.bytesThisView).toBeGreaterThan(0);

    // Another customer's token-less call to a viewer of this customer: 404 as for nothing.
    expect(
      (
        await call(
          'otherCustomer',
          'POST',
          `/api/live-view/${farmyard}/viewers/${owner.viewerId}/heartbeat`,
          {},
        )
      ).statusCode,
    ).toBe(404);

    const [session] = await openSessions();
    for (const [who, started] of [
      ['owner', owner],
      ['manager', manager],
      ['viewerOfThis', viewer],
    ] as const) {
      expect(
        (await call(who, 'DELETE', `/api/live-view/${farmyard}/viewers/${started.viewerId}`))
          .statusCode,
      ).toBe(204);
    }
    expect(await openSessions()).toHaveLength(0);
    expect((await context.app.inject({ method: 'GET', url: owner.playlistUrl })).statusCode).toBe(
      404,
    );

    // Its segments leave storage within the next sweeps.
    const folder = path.join(context.storage.root, 'live', session!.id);
    await waitFor(
      async () => {
        await context.services.liveView.puller.tick();
        const files = await fs.promises.readdir(folder, { recursive: true }).catch(() => []);
        return files.filter(
          (name) => String(name).endsWith('.m4s') || String(name).endsWith('.mp4'),
        ).length === 0
          ? true
          : undefined;
      },
      15_000,
      'the segments deleted',
    );
    expect(context.services.liveView.puller.runningSessionIds()).toEqual([]);

    // Each viewer's session is on the Activity log: who, which camera, how long, how much data.
    const entries = await context.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'live-view.watched'));
    expect(entries).toHaveLength(3);
    expect(new Set(entries.map((entry) => entry.actorRole ?? entry.actorType))).toEqual(
      new Set(['customer', 'manager', 'viewer']),
    );
    for (const entry of entries) {
      expect(entry.subjectId).toBe(farmyard);
      expect(entry.details).toMatchObject({ camera: 'Farmyard' });
      expect((entry.details as { bytes: number }).bytes).toBeGreaterThan(0);
    }
    const activity = await call('owner', 'GET', '/api/activity');
    expect(activity.body).toContain('Watched \\"Farmyard\\" live for');

    // The view's newest picture is the camera's latest still, at no extra data.
    const still = await waitFor(
      async () => {
        const status = (
          await call('viewerOfThis', 'GET', `/api/live-view/${farmyard}`)
        ).json<LiveViewStatusResponse>();
        return status.still ?? undefined;
      },
      10_000,
      'the live still',
    );
    expect(still.source).toBe('live');
    const picture = await context.app.inject({
      method: 'GET',
      url: new URL(still.url).pathname + new URL(still.url).search,
    });
    expect(picture.statusCode).toBe(200);
    expect(picture.headers['content-type']).toBe('image/jpeg');
    expect(picture.rawPayload.subarray(0, 2).toString('hex')).toBe('ffd8');
  }, 60_000);

  it('asks "Still watching?" after ten minutes and stops the view of one who does not answer', async () => {
    const owner = await start('owner');
    await waitFor(
      async () =>
        (await heartbeat('owner', farmyard, owner.viewerId)).state === 'live' ? true : undefined,
      20_000,
      'the first picture',
    );
    expect((await heartbeat('owner', farmyard, owner.viewerId)).isStillWatchingDue).toBe(false);
    // Ten minutes pass as they do for a page left open: a heartbeat every 10 s. One jump of ten
    // minutes raced the puller's own ticks (every 500 ms), which end a viewer quiet for 20 s.
    const watchFor = async (milliseconds: number) => {
      let beat: LiveViewHeartbeatResponse | undefined;
      for (let passed = 0; passed < milliseconds; passed += 10_000) {
        context.clock.advance(Math.min(10_000, milliseconds - passed));
        beat = await heartbeat('owner', farmyard, owner.viewerId);
      }
      return beat!;
    };
    const due = await watchFor(601_000);
    expect(due.state).toBe('live');
    expect(due.isStillWatchingDue).toBe(true);
    expect((await heartbeat('owner', farmyard, owner.viewerId, true)).isStillWatchingDue).toBe(
      false,
    );
    // Asked again ten minutes on, and no answer within the minute's grace: the view stops.
    expect((await watchFor(601_000)).isStillWatchingDue).toBe(true);
    await watchFor(61_000);
    await context.services.liveView.puller.tick();
    await context.services.liveView.puller.tick();
    const after = await heartbeat('owner', farmyard, owner.viewerId);
    expect(after.state).toBe('ended');
    expect(await openSessions()).toHaveLength(0);
  }, 30_000);

  it('fails a view that has no picture 30 s after the ask, saying why', async () => {
    const { db } = context.database;
    // A session no worker ever picked up (every worker gone), with its viewer.
    await context.services.liveView.puller.stop();
    const owner = await start('owner');
    context.clock.advance(31_000);
    const beat = await heartbeat('owner', farmyard, owner.viewerId);
    expect(beat).toMatchObject({ state: 'failed', reason: liveViewMessages.noPicture });
    expect(await openSessions()).toHaveLength(0);
    await db.delete(liveViewSessions).where(eq(liveViewSessions.status, 'failed'));
    context.services.liveView.puller.start();
  });

  it('stops the pull within 30 s of the last viewer vanishing without a word', async () => {
    const owner = await start('owner');
    await heartbeat('owner', farmyard, owner.viewerId);
    expect(await openSessions()).toHaveLength(1);
    // The page closed without its leave: no heartbeat for longer than a viewer is kept.
    context.clock.advance((liveViewTimings.viewerGoneSeconds + 1) * 1000);
    await context.services.liveView.puller.tick();
    expect(await openSessions()).toHaveLength(0);
    const [entry] = await context.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'live-view.watched'))
      .orderBy(desc(auditLog.at))
      .limit(1);
    // Watched until the last heartbeat, not until it was noticed.
    expect((entry?.details as { seconds: number }).seconds).toBeLessThan(5);
  });

  it('lets only the owner turn live view off per camera, and says so to the others', async () => {
    const put = (who: Who, isEnabled: boolean) =>
      call(who, 'PUT', `/api/live-view/${farmyard}/setting`, { isEnabled });
    expect((await put('manager', false)).json().message).toBe(liveViewMessages.settingOwnerOnly);
    await expectAccessMatrix(
      context,
      actors,
      () => ({
        method: 'PUT',
        url: `/api/live-view/${farmyard}/setting`,
        payload: { isEnabled: true },
      }),
      matrixOf({ ability: 'manageBilling', camera: true }),
    );
    expect((await put('owner', false)).statusCode).toBe(200);
    const refused = await call('viewerOfThis', 'POST', `/api/live-view/${farmyard}/watch`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(
      'The account owner has turned live view off for this camera. Ask them to turn it on.',
    );
    expect((await put('owner', true)).statusCode).toBe(200);
    const [entry] = await context.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'live-view.turned-off'));
    expect(entry?.details).toMatchObject({ camera: 'Farmyard' });
  });

  it('refuses a camera whose data is paused at the allowance, and one whose Hours are used up', async () => {
    const month = '2026-03';
    await context.database.db
      .insert(dataCaps)
      .values({ simIccid: calvingPen, month, cappedAt: context.clock.now() });
    const capped = await call('owner', 'POST', `/api/live-view/${calvingPen}/watch`);
    expect(capped.statusCode).toBe(409);
    expect(capped.json().message).toBe(
      'This camera’s data is paused: it has used its monthly allowance. Resume its data on the dashboard, or wait until 1 April.',
    );
    await context.database.db.delete(dataCaps).where(eq(dataCaps.simIccid, calvingPen));

    const now = context.clock.now();
    await context.database.db.insert(liveViewSessions).values({
      simIccid: calvingPen,
      customerId: actors.ownerId,
      status: 'ended',
      requestedAt: new Date(now.getTime() - 121 * 3_600_000),
      pullStartedAt: new Date(now.getTime() - 121 * 3_600_000),
      endedAt: now,
    });
    const status = (
      await call('owner', 'GET', `/api/live-view/${calvingPen}`)
    ).json<LiveViewStatusResponse>();
    expect(status.allowance.secondsLeft).toBe(0);
    expect(status.reason).toBe(
      'This month’s 120 hours of live view are used up. They start again on 1 April.',
    );
  });

  it("gives a camera that recorded a clip its clip's last picture, and one that recorded nothing none", async () => {
    const { db } = context.database;
    const clipFile = path.join(context.dataDir, 'still-source.mp4');
    await fs.promises.mkdir(context.dataDir, { recursive: true });
    await run('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=640x360:rate=10:duration=2',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-y',
      clipFile,
    ]);
    await context.storage.putFile('livestreams/still-test/clip.mp4', clipFile, 'video/mp4');
    const [livestream] = await db
      .insert(livestreams)
      .values({ simIccid: topGate, publicId: 'ls_still_test' })
      .returning();
    const recordedAt = new Date('2026-03-10T11:00:00Z');
    await db.insert(clips).values({
      livestreamId: livestream!.id,
      storageKey: 'livestreams/still-test/clip.mp4',
      status: 'ready',
      durationSeconds: 15,
      slot: '2026-03-10T11',
      recordedAt,
    });
    expect(
      (await call('owner', 'GET', `/api/live-view/${calvingPen}`)).json<LiveViewStatusResponse>()
        .still,
    ).toBeNull();
    expect(await context.services.liveView.stills.refreshFromClips()).toEqual({ made: 1 });
    // Nothing newer: nothing made again.
    expect(await context.services.liveView.stills.refreshFromClips()).toEqual({ made: 0 });
    const list = (await call('owner', 'GET', '/api/live-view')).json<LiveViewCamerasResponse>();
    const still = list.cameras.find((camera) => camera.iccid === topGate)?.still;
    expect(still).toMatchObject({ source: 'clip', takenAt: '2026-03-10T11:00:15.000Z' });
    expect(list.cameras.find((camera) => camera.iccid === calvingPen)?.still).toBeNull();
  });

  it('forgets sessions ended two months ago, keeping the Activity log', async () => {
    const { db } = context.database;
    const long = new Date(context.clock.now().getTime() - 63 * 86_400_000);
    const [old] = await db
      .insert(liveViewSessions)
      .values({
        simIccid: calvingPen,
        customerId: actors.ownerId,
        status: 'ended',
        requestedAt: long,
        pullStartedAt: long,
        endedAt: long,
      })
      .returning();
    // A fresh puller (its hourly purge is due at its first sweep).
    const { createLiveViewPuller } = await import('./live-view-puller.service.ts');
    const puller = createLiveViewPuller({
      db,
      clock: context.clock,
      storage: context.storage,
      puller: {
        start: () => {
          throw new Error('no pull here');
        },
        stopAll: async () => undefined,
      },
      cameraAccess: context.services.connectivity,
      instanceId: '00000000-0000-4000-8000-000000000001',
      camerasPerWorker: 0,
      workFolder: path.join(context.dataDir, 'purge-test'),
      log: { info() {}, warn() {}, error() {} },
    });
    await puller.tick();
    const left = await db.select().from(liveViewSessions).where(eq(liveViewSessions.id, old!.id));
    expect(left).toEqual([]);
  });

  it('says when every place for a live camera is taken', async () => {
    const { createLiveViewService } = await import('./live-view.service.ts');
    const full = createLiveViewService({
      db: context.database.db,
      clock: context.clock,
      storage: context.storage,
      camerasPerWorker: 1,
      log: { info() {}, warn() {} },
    });
    await context.database.db.insert(liveViewSessions).values({
      simIccid: topGate,
      customerId: actors.ownerId,
      requestedAt: context.clock.now(),
    });
    const principal = {
      customerId: actors.ownerId,
      customerEmail: 'demo@example.com',
      staffId: null,
      staffEmail: null,
      access: {
        role: 'owner' as const,
        memberId: null,
        personEmail: 'demo@example.com',
        allCameras: true,
        cameraIds: new Set<string>(),
        accessUntil: null,
      },
    };
    await expect(full.start(actors.ownerId, principal, farmyard)).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      message: liveViewMessages.full,
    });
    await context.database.db
      .delete(liveViewSessions)
      .where(eq(liveViewSessions.simIccid, topGate));
  });
});
