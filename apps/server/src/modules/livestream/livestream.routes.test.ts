/**
 * The livestreaming endpoints end to end on a fresh database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL): ownership and eligibility on every customer call, real recordings from the
 * local RTSP camera through pg-boss, the public livestream-url and embed page.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../db/client.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { livestreams, subscriptions } from '../../db/schema.ts';
import { recordingReasons } from '../../providers/recorder/recorder.ts';
import { createActors, expectOwnerOnly, type Actors } from '../../../test/helpers/authorization.ts';
import { nextIp, testPublicUrl } from '../../../test/helpers/test-app.ts';
import {
  createLivestreamTestContext,
  waitFor,
  type LivestreamTestContext,
} from '../../../test/helpers/livestream-context.ts';

const demoCustomerEmail = 'demo@example.com';
const farmyard = demoIccid(103); // Heavy monthly, active
const calvingPen = demoIccid(104); // Heavy annual, active
const topGate = demoIccid(101); // Light, active
const stableYard = demoIccid(201); // second@example.com's camera

const defaultSchedule =
  'hours=9,10,11,12,13,14,15,16,17;days=MONDAY,TUESDAY,WEDNESDAY,THURSDAY,FRIDAY';

describe('livestreaming endpoints', () => {
  let context: LivestreamTestContext;
  let actors: Actors;
  let owner: Record<string, string>;

  beforeAll(async () => {
    context = await createLivestreamTestContext({ maxClipSeconds: 2 });
    actors = await createActors(context, demoCustomerEmail);
    await seedDemoData(context.database.db, context.clock);
    // These tests set cameras up from scratch: the demo's own Calving pen livestream (its public
    // links and timelapse, seed/demo-links.ts) is not theirs.
    await context.database.db.delete(livestreams).where(eq(livestreams.simIccid, calvingPen));
    owner = actors.headers.owner;
  });

  afterAll(async () => {
    await context?.close();
  });

  const post = (url: string, payload: object, headers = owner) =>
    context.app.inject({ method: 'POST', url, payload, headers, remoteAddress: nextIp() });
  const get = (url: string, headers: Record<string, string> = owner) =>
    context.app.inject({ method: 'GET', url, headers });
  const setup = (iccid: string, headers = owner) =>
    post('/api/livestreaming/setup-camera', { sim_number: iccid, ports: [554] }, headers);
  const configure = (overrides: Record<string, unknown> = {}, headers = owner) =>
    post(
      '/api/livestreaming/configure-rtsp',
      {
        camera_id: farmyard,
        rtsp_port: 554,
        rtsp_path: '/12',
        duration: 15,
        include_audio: false,
        is_active: true,
        schedule: defaultSchedule,
        ...overrides,
      },
      headers,
    );

  describe('GET /api/livestreaming/cameras', () => {
    it('lists only the active Heavy Streaming cameras, to the owner only', async () => {
      const response = await get('/api/livestreaming/cameras');
      expect(response.statusCode).toBe(200);
      const { cameras } = response.json<{ cameras: { SIM_ICCID: string }[] }>();
      expect(cameras.map((camera) => camera.SIM_ICCID).sort()).toEqual(
        [farmyard, calvingPen].sort(),
      );
      expect(cameras[0]).toMatchObject({
        SubStatus: 'active',
        stripeSubscription: { productName: 'Heavy Streaming' },
        dataAllowanceGb: 50,
        livestream: null,
      });
      // Another customer gets their own (empty) list, never these cameras.
      await expectOwnerOnly(
        context,
        actors,
        () => ({ method: 'GET', url: '/api/livestreaming/cameras' }),
        {
          otherCustomerStatus: 200,
        },
      );
      const other = await get('/api/livestreaming/cameras', actors.headers.otherCustomer);
      expect(other.json()).toEqual({ cameras: [], supportEmail: 'support@farmcam.example' });
    });
  });

  describe('POST /api/livestreaming/setup-camera', () => {
    it('opens the RTSP port and creates the livestream with an unguessable public id', async () => {
      await expectOwnerOnly(context, actors, () => ({
        method: 'POST',
        url: '/api/livestreaming/setup-camera',
        payload: { sim_number: farmyard, ports: [554] },
      }));
      const response = await setup(farmyard);
      expect(response.statusCode).toBe(200);
      const body = response.json<{
        success: boolean;
        message: string;
        data: { camera_id: string; public_id: string };
      }>();
      expect(body).toMatchObject({ success: true, data: { camera_id: farmyard } });
      expect(body.data.public_id).toMatch(/^ls_[A-Za-z0-9_-]{22}$/);
      expect(body.data.public_id).not.toContain(farmyard);
      expect(context.portOpenings).toContain(farmyard);

      // Repeating it keeps the same stream (the embed code stays valid).
      const again = await setup(farmyard);
      expect(again.json().data.public_id).toBe(body.data.public_id);
      const [row] = await context.database.db
        .select()
        .from(livestreams)
        .where(eq(livestreams.simIccid, farmyard));
      expect(row).toMatchObject({ cameraHost: '127.0.0.1', isActive: false });
    });

    it('refuses cameras without an active Heavy plan, and other customers’ cameras', async () => {
      const light = await setup(topGate);
      expect(light.statusCode).toBe(422);
      expect(light.json().message).toContain('Heavy Streaming plan');

      await context.database.db
        .update(subscriptions)
        .set({ status: 'past_due' })
        .where(eq(subscriptions.simIccid, calvingPen));
      const pastDue = await setup(calvingPen);
      expect(pastDue.statusCode).toBe(422);
      expect(pastDue.json().message).toContain("this camera's is past_due");
      await context.database.db
        .update(subscriptions)
        .set({ status: 'active' })
        .where(eq(subscriptions.simIccid, calvingPen));

      expect((await setup(stableYard)).statusCode).toBe(404);
      expect((await setup('8944110000000999999')).statusCode).toBe(404);
    });

    it('validates the body', async () => {
      const wrongPort = await post('/api/livestreaming/setup-camera', {
        sim_number: farmyard,
        ports: [80],
      });
      expect(wrongPort.statusCode).toBe(400);
      expect(wrongPort.json().message).toContain('Only the camera’s RTSP port 554 can be opened.');
      expect(wrongPort.json().message).not.toMatch(/ports: ports/);
      const badIccid = await post('/api/livestreaming/setup-camera', {
        sim_number: '12',
        ports: [554],
      });
      expect(badIccid.statusCode).toBe(400);
      expect(badIccid.json().code).toBe('VALIDATION_FAILED');
    });
  });

  describe('POST /api/livestreaming/configure-rtsp', () => {
    it('saves the schedule and settings and answers the livestream summary', async () => {
      await expectOwnerOnly(context, actors, () => ({
        method: 'POST',
        url: '/api/livestreaming/configure-rtsp',
        payload: {
          camera_id: farmyard,
          rtsp_port: 554,
          rtsp_path: '/12',
          duration: 15,
          include_audio: false,
          is_active: true,
          schedule: defaultSchedule,
        },
      }));
      const response = await configure({
        duration: 30,
        include_audio: true,
        schedule: 'hours=9-11;days=mon,wed',
      });
      expect(response.statusCode).toBe(200);
      const { data } = response.json();
      expect(data).toMatchObject({
        quality: 'SD',
        durationSeconds: 30,
        includeAudio: true,
        scheduleHours: [9, 10, 11],
        scheduleDays: ['MONDAY', 'WEDNESDAY'],
        schedule: 'hours=9,10,11;days=MONDAY,WEDNESDAY',
        isActive: true,
        isConfigured: true,
        // Tuesday 10 March 2026, 12:00 UK → Wednesday 09:00 GMT.
        nextRecordingAt: '2026-03-11T09:00:00.000Z',
        switchOffAt: '2026-03-20T12:00:00.000Z',
      });
      expect(data.embedCode).toBe(
        `<iframe src="${testPublicUrl}/embed/${data.publicId}" title="Farm camera livestream" width="640" height="360" style="border:0;max-width:100%;height:auto;aspect-ratio:16/9" allow="autoplay; fullscreen" loading="lazy"></iframe>`,
      );
      expect(data.embedCode).not.toContain(farmyard);
      expect(data.viewsByDay).toHaveLength(14);

      const hd = await configure({ rtsp_path: '/11' });
      expect(hd.json().data.quality).toBe('HD');
      await configure();
    });

    it('explains bad input', async () => {
      const schedule = await configure({ schedule: 'hours=25;days=MON' });
      expect(schedule.statusCode).toBe(400);
      expect(schedule.json().message).toMatch(/hour 25 is not between 0 and 23/i);
      expect((await configure({ rtsp_port: 555 })).json().message).toContain(
        'rtsp_port must be 554',
      );
      expect((await configure({ duration: 20 })).json().message).toContain('15, 30 or 60');
      expect((await configure({ rtsp_path: '/13' })).statusCode).toBe(400);
      // Empty lists are allowed: hours and days have no minimum.
      const empty = await configure({ schedule: 'hours=;days=' });
      expect(empty.statusCode).toBe(200);
      expect(empty.json().data.nextRecordingAt).toBeNull();
      await configure();
    });

    it('needs the camera set up first, and eligibility', async () => {
      const notSetUp = await configure({ camera_id: calvingPen });
      expect(notSetUp.statusCode).toBe(409);
      expect((await configure({ camera_id: topGate })).statusCode).toBe(422);
      expect((await configure({ camera_id: stableYard })).statusCode).toBe(404);
    });
  });

  describe('POST /api/livestreaming/set-active', () => {
    it('switches the saved schedule off and on', async () => {
      await expectOwnerOnly(context, actors, () => ({
        method: 'POST',
        url: '/api/livestreaming/set-active',
        payload: { camera_id: farmyard, is_active: true },
      }));
      const off = await post('/api/livestreaming/set-active', {
        camera_id: farmyard,
        is_active: false,
      });
      expect(off.json().data).toMatchObject({
        isActive: false,
        nextRecordingAt: null,
        switchOffAt: null,
      });
      context.clock.advance(60_000);
      const on = await post('/api/livestreaming/set-active', {
        camera_id: farmyard,
        is_active: true,
      });
      expect(on.json().data).toMatchObject({
        isActive: true,
        switchOffAt: '2026-03-20T12:01:00.000Z',
      });
    });

    it('needs a saved schedule', async () => {
      await setup(calvingPen);
      const response = await post('/api/livestreaming/set-active', {
        camera_id: calvingPen,
        is_active: true,
      });
      expect(response.statusCode).toBe(409);
      expect(response.json().message).toBe('Choose a schedule for this livestream first');
    });
  });

  describe('POST /api/livestreaming/rtsp-now and GET /api/livestreaming/clip', () => {
    it('records a real preview from the camera and plays it back', async () => {
      const response = await post('/api/livestreaming/rtsp-now', {
        camera_id: farmyard,
        rtsp_port: 554,
        rtsp_path: '/12',
        duration: 5,
        include_audio: false,
      });
      expect(response.statusCode).toBe(200);
      const { data } = response.json<{
        data: { s3_key: string; clip_id: string; status: string };
      }>();
      expect(data.status).toBe('recording');
      expect(data.s3_key).toMatch(/^livestreams\/[0-9a-f-]{36}\/preview-.+\.mp4$/);

      const clipUrl = `/api/livestreaming/clip?camera_id=${farmyard}&s3_key=${encodeURIComponent(data.s3_key)}`;
      const ready = await waitFor(
        async () => {
          const status = (await get(clipUrl)).json<{
            status: string;
            url: string | null;
            error: string | null;
          }>();
          if (status.status === 'failed') throw new Error(status.error ?? 'failed');
          return status.status === 'ready' ? status : undefined;
        },
        30_000,
        'the preview',
      );
      expect(ready.url).toMatch(new RegExp(`^${testPublicUrl}/media/clips/`));

      const media = await context.app.inject({
        method: 'GET',
        url: ready.url!.replace(testPublicUrl, ''),
      });
      expect(media.statusCode).toBe(200);
      expect(media.headers['content-type']).toBe('video/mp4');
      expect(media.rawPayload.subarray(4, 8).toString('latin1')).toBe('ftyp');

      await expectOwnerOnly(context, actors, () => ({ method: 'GET', url: clipUrl }));
      expect(
        (await get(`/api/livestreaming/clip?camera_id=${farmyard}&s3_key=livestreams/none.mp4`))
          .statusCode,
      ).toBe(404);
    });

    it('is owner-only, eligible-only, validated and rate limited', async () => {
      const body = {
        camera_id: farmyard,
        rtsp_port: 554,
        rtsp_path: '/12',
        duration: 5,
        include_audio: false,
      };
      await expectOwnerOnly(context, actors, () => ({
        method: 'POST',
        url: '/api/livestreaming/rtsp-now',
        payload: body,
      }));
      expect(
        (await post('/api/livestreaming/rtsp-now', { ...body, camera_id: topGate })).statusCode,
      ).toBe(422);
      expect(
        (await post('/api/livestreaming/rtsp-now', { ...body, duration: 7 })).json().message,
      ).toContain('5, 15, 30 or 60');
      // These recordings fail at once (connection refused): the limit is what is tested here.
      context.unreachableCameras.add(farmyard);
      let status = 200;
      for (let attempt = 0; attempt < 20 && status === 200; attempt += 1) {
        status = (await post('/api/livestreaming/rtsp-now', body)).statusCode;
      }
      expect(status).toBe(429);
      // Let the queued recordings finish before the next tests look at clips.
      await waitFor(
        async () => {
          const [row] = await queryRows<{ count: number }>(
            context.database.db,
            sql`select count(*)::int as count from clips where status = 'recording'`,
          );
          return Number(row?.count) === 0 ? true : undefined;
        },
        120_000,
        'the queued recordings',
      );
      context.unreachableCameras.delete(farmyard);
    }, 150_000);

    it('shows a failed recording with its reason', async () => {
      await setup(calvingPen);
      context.unreachableCameras.add(calvingPen);
      const response = await post('/api/livestreaming/rtsp-now', {
        camera_id: calvingPen,
        rtsp_port: 554,
        rtsp_path: '/12',
        duration: 5,
        include_audio: false,
      });
      const key = response.json().data.s3_key as string;
      const failed = await waitFor(
        async () => {
          const status = (
            await get(
              `/api/livestreaming/clip?camera_id=${calvingPen}&s3_key=${encodeURIComponent(key)}`,
            )
          ).json<{ status: string; error: string | null }>();
          return status.status === 'failed' ? status : undefined;
        },
        30_000,
        'the failure',
      );
      expect(failed.error).toBe(recordingReasons.refused);
      context.unreachableCameras.delete(calvingPen);

      const { cameras } = (await get('/api/livestreaming/cameras')).json<{
        cameras: {
          SIM_ICCID: string;
          livestream: { recordingFailures: number; lastFailure: { error: string } };
        }[];
      }>();
      const pen = cameras.find((camera) => camera.SIM_ICCID === calvingPen)!;
      expect(pen.livestream.recordingFailures).toBeGreaterThanOrEqual(1);
      expect(pen.livestream.lastFailure.error).toBe(recordingReasons.refused);
    });
  });

  describe('public livestream-url and embed page', () => {
    let publicId: string;

    beforeAll(async () => {
      publicId = (await setup(farmyard)).json().data.public_id;
    });

    it('answers the latest clip as plain text, to any origin, briefly cached', async () => {
      const response = await context.app.inject({
        method: 'GET',
        url: `/api/livestreaming/livestream-url?camera_id=${publicId}&site=www.farm-shop.example`,
        headers: { origin: 'https://www.farm-shop.example' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['cache-control']).toBe('public, max-age=30');
      expect(response.headers['cross-origin-resource-policy']).toBeUndefined();
      expect(response.body).toMatch(
        new RegExp(`^${testPublicUrl}/media/clips/livestreams/.+\\.mp4\\?expires=\\d+&signature=`),
      );
      expect(response.body).not.toContain(farmyard);
      const media = await context.app.inject({
        method: 'GET',
        url: response.body.replace(testPublicUrl, ''),
      });
      expect(media.statusCode).toBe(200);

      const preflight = await context.app.inject({
        method: 'OPTIONS',
        url: '/api/livestreaming/livestream-url',
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
    });

    it('counts views per UK day and network, and notes the code is on a website', async () => {
      // A view counts once per network and UK day, from browsers only; its site only from the
      // embed page's page-load token, never from a site= value, a Referer or an Origin alone
      // (decision 100; more in public-playback/public-playback.routes.test.ts). A player's Origin still notes
      // that the code is on a website (the 10-day rule, decision 063).
      const browser = {
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156',
        'accept-language': 'en-GB',
      };
      const view = (query: string, headers: Record<string, string>, remoteAddress: string) =>
        context.app.inject({
          method: 'GET',
          url: `/api/livestreaming/livestream-url?camera_id=${publicId}${query}`,
          headers: { ...browser, ...headers },
          remoteAddress,
        });
      await view('', { origin: 'https://shop.example:8443' }, '198.51.100.1');
      await view(
        '&site=blog.example',
        { referer: 'https://blog.example/visit-the-farm' },
        '198.51.100.2',
      );
      await view('&refresh=1', { origin: 'https://shop.example:8443' }, '198.51.100.3');
      await view(
        '',
        { origin: 'http://portal.test', 'user-agent': 'Mozilla/5.0 Edg/150' },
        '198.51.100.1',
      );
      const page = await context.app.inject({
        method: 'GET',
        url: `/embed/${publicId}`,
        headers: {
          ...browser,
          referer: 'https://www.farm-shop.example/',
          'sec-fetch-dest': 'iframe',
        },
        remoteAddress: '198.51.100.4',
      });
      const load = /data-page-load="([^"]+)"/.exec(page.body)![1]!;
      await view(`&load=${encodeURIComponent(load)}`, {}, '198.51.100.4');
      const rows = await queryRows<{ referrer_host: string; views: number; day: string }>(
        context.database.db,
        sql`select referrer_host, views, day::text as day from livestream_views order by referrer_host`,
      );
      // Two networks with no page load behind them, one through the farm shop's page; the
      // refresh and the first network's second browser count nothing.
      expect(rows).toEqual([
        { referrer_host: 'direct', views: 2, day: '2026-03-10' },
        { referrer_host: 'www.farm-shop.example', views: 1, day: '2026-03-10' },
      ]);
      const [row] = await context.database.db
        .select()
        .from(livestreams)
        .where(eq(livestreams.publicId, publicId));
      expect(row?.lastSeenOnSiteAt?.toISOString()).toBe(context.clock.now().toISOString());

      const { cameras } = (await get('/api/livestreaming/cameras')).json<{
        cameras: {
          SIM_ICCID: string;
          livestream: { viewsByDay: { day: string; views: number }[]; latestClipAt: string };
        }[];
      }>();
      const summary = cameras.find((camera) => camera.SIM_ICCID === farmyard)!.livestream;
      expect(summary.viewsByDay.at(-1)).toEqual({ day: '2026-03-10', views: 3 });
      expect(summary.latestClipAt).not.toBeNull();
    });

    it('answers 404 in plain text for unknown, clip-less or no longer eligible streams', async () => {
      const unknown = await context.app.inject({
        method: 'GET',
        url: '/api/livestreaming/livestream-url?camera_id=ls_AAAAAAAAAAAAAAAAAAAAAA',
      });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.body).toBe(
        'There is no livestream at this address. Check the link or code you were given.',
      );
      expect(unknown.headers['x-livestream-state']).toBe('missing');
      expect(unknown.headers['access-control-allow-origin']).toBe('*');

      const iccidAsId = await context.app.inject({
        method: 'GET',
        url: `/api/livestreaming/livestream-url?camera_id=${farmyard}`,
      });
      expect(iccidAsId.statusCode).toBe(400);

      await context.database.db
        .update(subscriptions)
        .set({ status: 'paused' })
        .where(eq(subscriptions.simIccid, farmyard));
      const paused = await context.app.inject({
        method: 'GET',
        url: `/api/livestreaming/livestream-url?camera_id=${publicId}`,
      });
      expect(paused.statusCode).toBe(404);
      await context.database.db
        .update(subscriptions)
        .set({ status: 'active' })
        .where(eq(subscriptions.simIccid, farmyard));
    });

    it('serves the embed page with its own policy, framable, with no inline script', async () => {
      const page = await context.app.inject({ method: 'GET', url: `/embed/${publicId}` });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['x-frame-options']).toBeUndefined();
      const policy = String(page.headers['content-security-policy']);
      expect(policy).toContain('frame-ancestors *');
      expect(policy).toContain("script-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      expect(page.body).toContain('Loading livestream...');
      expect(page.body).toContain('<video muted autoplay loop playsinline');
      expect(page.body).toContain(`/api/livestreaming/livestream-url?camera_id=${publicId}`);
      expect(page.body).not.toContain(farmyard);
      // Every script is a file of ours.
      expect(page.body.match(/<script[^>]*>/g)).toEqual([
        '<script src="/embed/livestream-embed.js" defer>',
      ]);

      const script = await context.app.inject({ method: 'GET', url: '/embed/livestream-embed.js' });
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(script.body).toContain('This page tries again by itself.');
      expect(
        (await context.app.inject({ method: 'GET', url: '/embed/livestream-embed.css' }))
          .statusCode,
      ).toBe(200);

      const missing = await context.app.inject({
        method: 'GET',
        url: '/embed/ls_nothing_here_at_all_00',
      });
      expect(missing.statusCode).toBe(404);
      expect(missing.body).toContain('There is no livestream at this address.');
    });
  });

  describe('POST /api/livestreaming/share-code', () => {
    it("e-mails the server's embed code, never the request's HTML", async () => {
      const body = {
        camera_id: farmyard,
        email_address: 'Webmaster@Farm-Shop.example',
        html_code: '<script>alert("not from us")</script>',
      };
      await expectOwnerOnly(context, actors, () => ({
        method: 'POST',
        url: '/api/livestreaming/share-code',
        payload: body,
      }));
      const send = vi.spyOn(context.mailer, 'send');
      const response = await post('/api/livestreaming/share-code', body);
      // Who sent it: the recipient can answer the customer directly.
      expect(send.mock.calls.at(-1)?.[0].replyTo).toBe(demoCustomerEmail);
      send.mockRestore();
      expect(response.json()).toEqual({
        success: true,
        message: 'Livestream code shared successfully!',
      });
      const [message] = await context.mailer.list({ to: 'webmaster@farm-shop.example', limit: 1 });
      const [row] = await context.database.db
        .select()
        .from(livestreams)
        .where(eq(livestreams.simIccid, farmyard));
      expect(message?.subject).toMatch(/^Livestream code for the Farmyard camera, from /);
      // The demo customer has no name on file: the address says who it is.
      expect(message?.text).toContain(`${demoCustomerEmail} has sent you the code`);
      expect(message?.text).toContain(`${testPublicUrl}/embed/${row!.publicId}`);
      expect(message?.text).not.toContain('not from us');
      expect(message?.html).not.toContain('<script>');
      expect(message?.text).not.toContain(farmyard);
    });

    it('validates, checks eligibility and limits the rate', async () => {
      const share = (email: string, camera = farmyard) =>
        post('/api/livestreaming/share-code', {
          camera_id: camera,
          email_address: email,
          html_code: '',
        });
      expect((await share('')).statusCode).toBe(400);
      expect((await share('not-an-address')).json().message).toContain(
        'Please enter a valid e-mail address.',
      );
      expect((await share('a@b.example', topGate)).statusCode).toBe(422);
      let status = 200;
      for (let attempt = 0; attempt < 12 && status === 200; attempt += 1) {
        status = (await share(`manager${attempt}@example.com`)).statusCode;
      }
      expect(status).toBe(429);
    });
  });

  describe('GET /api/livestreaming/showcase', () => {
    it('queues a demo clip when there is none, then serves it', async () => {
      const first = await get('/api/livestreaming/showcase');
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ url: null, recordedAt: null, isRecording: true });
      const ready = await waitFor(
        async () => {
          const body = (await get('/api/livestreaming/showcase')).json<{ url: string | null }>();
          return body.url ?? undefined;
        },
        60_000,
        'the showcase clip',
      );
      expect(ready).toMatch(new RegExp(`^${testPublicUrl}/media/clips/showcase/`));
      expect((await get('/api/livestreaming/showcase', {})).statusCode).toBe(401);
    }, 70_000);
  });

  describe('GET /api/livestreaming/demo-camera', () => {
    it('says the demo camera can run here (the suite needs it), to signed-in customers only', async () => {
      const response = await get('/api/livestreaming/demo-camera');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ problem: null, packages: [] });
      expect((await get('/api/livestreaming/demo-camera', {})).statusCode).toBe(401);
    });
  });
});
