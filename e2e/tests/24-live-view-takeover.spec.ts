/**
 * A live view survives its worker being killed, as the farmer sees it (issue 27 item 6, decision
 * 153): the portal runs in split roles, an API process and two workers on one PostgreSQL database
 * and one data directory. The farmer watches the Heavy camera in the browser; the worker pulling
 * it is killed with kill -9 (its ffmpeg and demo camera with it); the other worker takes the
 * camera over and the player goes on playing by itself, with no click and no error on screen.
 * The server side (takeover within 15 s, the new generation's segments) is proven by
 * live-view-take-over.process.test.ts; this is the player's half. It needs PostgreSQL, which the
 * embedded database cannot share between processes: `npm test` gives it E2E_DATABASE_URL whenever
 * a PostgreSQL server answers (CI starts one); only a machine without one skips it.
 */
import type { Locator } from '@playwright/test';
import pg from 'pg';
import {
  createScratchDatabase,
  freePort,
  killServerProcess,
  startServerProcess,
  stopServerProcess,
  waitUntilHealthy,
  type ServerProcess,
} from '../../apps/server/test/helpers/server-processes.ts';
import { staffPasswords } from '../fixtures/server.ts';
import { expect, test as portalTest } from '../fixtures/portal.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const databaseServerUrl = process.env.E2E_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const farmyard = '8944110000000001030'; // Heavy Streaming

interface SplitPortal {
  api: ServerProcess;
  workers: ServerProcess[];
  database: pg.Client;
}

/** The portal in split roles on a scratch PostgreSQL database, for the file's one test. */
const test = portalTest.extend<object, { split: SplitPortal }>({
  split: [
    // Playwright fixtures declare their dependencies by destructuring; this one has none.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const scratch = await createScratchDatabase(databaseServerUrl as string, 'farmcam_e2e_live');
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-e2e-live-'));
      // Every process writes links to the API's address: a worker sends the sign-in e-mail.
      const apiPort = await freePort();
      const shared = {
        PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
        WEB_DIST_DIR:
          process.env.E2E_WEB_DIST_DIR ?? path.resolve(import.meta.dirname, '../../apps/web/dist'),
        ADMIN_PASSWORD: staffPasswords.admin,
        TEAM_PASSWORD: staffPasswords.team,
        TRUST_PROXY: 'loopback',
      };
      const api = await startServerProcess(scratch.url, {
        name: 'the API',
        dataDir,
        port: apiPort,
        environment: { ...shared, ROLE: 'api', LOCAL_CAMERA_PORT: String(await freePort()) },
      });
      const workers: ServerProcess[] = [];
      for (const name of ['worker A', 'worker B']) {
        workers.push(
          await startServerProcess(scratch.url, {
            name,
            dataDir,
            environment: { ...shared, ROLE: 'worker', LOCAL_CAMERA_PORT: String(await freePort()) },
          }),
        );
      }
      const database = new pg.Client({ connectionString: scratch.url });
      try {
        await Promise.all([api, ...workers].map((server) => waitUntilHealthy(server, 120_000)));
        await database.connect();
        await use({ api, workers, database });
      } finally {
        await Promise.all([api, ...workers].map((server) => stopServerProcess(server)));
        await database.end().catch(() => undefined);
        await scratch.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    { scope: 'worker', timeout: 240_000 },
  ],
  baseURL: async ({ split }, use) => {
    await use(split.api.baseUrl);
  },
});

/** The video's position (s) and whether it has a picture to show. */
const videoState = (video: Locator) =>
  video.evaluate((element: HTMLVideoElement) => ({
    time: element.currentTime,
    ready: element.readyState,
  }));

test.describe('live view in split roles', () => {
  test.skip(!databaseServerUrl, 'needs PostgreSQL: E2E_DATABASE_URL or TEST_DATABASE_URL');

  test('the player recovers by itself when the worker pulling the camera is killed', async ({
    page,
    signIn,
    split,
  }, testInfo) => {
    test.setTimeout(240_000);
    await signIn('demo@example.com');
    await page
      .getByRole('article')
      .filter({ hasText: 'Farmyard' })
      .getByRole('link', { name: 'Watch live for Farmyard' })
      .click();
    await expect(page).toHaveURL(new RegExp(`/camera/${farmyard}$`));
    const video = page.getByLabel(/^Live view of /);
    await expect
      .poll(async () => (await videoState(video)).ready, {
        timeout: 60_000,
        message: 'the live video has frames to show',
      })
      .toBeGreaterThanOrEqual(2);
    const started = (await videoState(video)).time;
    await expect
      .poll(async () => (await videoState(video)).time, {
        timeout: 30_000,
        message: 'the live video plays',
      })
      .toBeGreaterThan(started + 2);

    // The worker that pulls the camera now, found by its claim on the session.
    const { rows } = await split.database.query<{ pid: number }>(
      `select i.pid from live_view_sessions s join instances i on i.id = s.claimed_by
        where s.sim_iccid = $1 and s.status in ('starting', 'live')`,
      [farmyard],
    );
    const pulling = split.workers.find((worker) => worker.child.pid === rows[0]?.pid);
    expect(pulling, 'one of the workers pulls the camera').toBeDefined();
    const other = split.workers.find((worker) => worker !== pulling)!;

    await killServerProcess(pulling!);
    const killedAt = await videoState(video);
    // The player stalls while the other worker takes the camera over, then plays on with no
    // click: its time moves well past where it was when the worker died.
    await expect
      .poll(async () => (await videoState(video)).time, {
        timeout: 60_000,
        message: `the live video plays on after the takeover (other worker: ${other.name})`,
      })
      .toBeGreaterThan(killedAt.time + 5);
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(page.getByText('Live', { exact: true })).toBeVisible();
    await video.scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath('live-after-takeover-1280.png') });

    // Stopping still stops the pull, now on the other worker.
    await page.getByRole('button', { name: 'Stop watching' }).click();
    await expect
      .poll(
        async () =>
          (
            await split.database.query(
              "select 1 from live_view_sessions where sim_iccid = $1 and status in ('starting', 'live')",
              [farmyard],
            )
          ).rowCount,
        { timeout: 45_000, message: 'the pull stops once the viewer has left' },
      )
      .toBe(0);
  });
});
