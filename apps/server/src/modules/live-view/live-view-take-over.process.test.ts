/**
 * Live view in split roles (issue 27 item 6, decision 153): an API process and two workers on one
 * PostgreSQL database and one data directory (file storage). A viewer watches the Heavy camera;
 * the worker pulling it is killed with kill -9 (its ffmpeg and its demo camera with it); the
 * other worker takes the camera over within 15 s, and the playlist the API serves goes on with
 * fresh segments, which is all a player needs to recover by itself. Skipped without
 * TEST_DATABASE_URL.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  freePort,
  killServerProcess,
  sleep,
  startServerProcess,
  stopServerProcess,
  waitFor,
  waitUntilHealthy,
  START_UP_MS,
  type ServerProcess,
} from '../../../test/helpers/server-processes.ts';
import { demoIccid } from '../../seed/demo.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const serverUrl = process.env.TEST_DATABASE_URL;
const farmyard = demoIccid(103);

/** The newest segment's program date in a playlist (ms), or 0. */
const newestProgramDate = (playlist: string) =>
  Math.max(
    0,
    ...[...playlist.matchAll(/#EXT-X-PROGRAM-DATE-TIME:(.+)/g)].map((match) =>
      Date.parse(match[1]!),
    ),
  );

describe.skipIf(!serverUrl)(
  'a live view survives its worker being killed (needs TEST_DATABASE_URL: npm run test:pg)',
  () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-live-'));
    let scratch: { url: string; drop: () => Promise<void> };
    let database: pg.Client;
    let api: ServerProcess;
    const workers: ServerProcess[] = [];
    let isWatching = true;

    beforeAll(async () => {
      scratch = await createScratchDatabase(serverUrl as string, 'farmcam_live');
      api = await startServerProcess(scratch.url, {
        name: 'the API',
        dataDir,
        environment: { ROLE: 'api' },
      });
      await waitUntilHealthy(api);
    }, START_UP_MS + 10_000);

    beforeAll(async () => {
      for (const name of ['worker A', 'worker B']) {
        workers.push(
          await startServerProcess(scratch.url, {
            name,
            dataDir,
            environment: { ROLE: 'worker', LOCAL_CAMERA_PORT: String(await freePort()) },
          }),
        );
      }
      await Promise.all(workers.map((worker) => waitUntilHealthy(worker)));
      database = new pg.Client({ connectionString: scratch.url });
      await database.connect();
    }, START_UP_MS + 10_000);

    afterAll(async () => {
      isWatching = false;
      await Promise.all([api, ...workers].map((server) => stopServerProcess(server)));
      await database?.end();
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    async function signIn(): Promise<Record<string, string>> {
      const requestedAt = new Date();
      const requested = await fetch(`${api.baseUrl}/api/auth/request-login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'demo@example.com' }),
      });
      expect(requested.status).toBe(200);
      const loginToken = await waitFor(
        'a login link in the outbox',
        async () => {
          const { rows } = await database.query<{ text: string }>(
            'select text from outbox where "to" = $1 and created_at >= $2 order by created_at desc limit 1',
            ['demo@example.com', new Date(requestedAt.getTime() - 2_000)],
          );
          return /\/login\/([A-Za-z0-9_-]+)/.exec(rows[0]?.text ?? '')?.[1];
        },
        { timeoutMs: 30_000, watch: [api, ...workers] },
      );
      const exchanged = await fetch(
        `${api.baseUrl}/api/auth/login?token=${encodeURIComponent(loginToken)}`,
      );
      const { token } = (await exchanged.json()) as { token: string };
      return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    }

    it('hands the camera to the other worker within 15 s, and the playlist goes on', async () => {
      const headers = await signIn();
      const started = await fetch(`${api.baseUrl}/api/live-view/${farmyard}/watch`, {
        method: 'POST',
        headers,
        body: '{}',
      });
      expect(started.status).toBe(200);
      const { viewerId, playlistUrl } = (await started.json()) as {
        viewerId: string;
        playlistUrl: string;
      };
      // The viewer's page: a heartbeat every 5 s for as long as the test watches.
      const beating = (async () => {
        while (isWatching) {
          await fetch(`${api.baseUrl}/api/live-view/${farmyard}/viewers/${viewerId}/heartbeat`, {
            method: 'POST',
            headers,
            body: '{}',
          }).catch(() => undefined);
          await sleep(2_000);
        }
      })();

      const playlist = async () => {
        const response = await fetch(`${api.baseUrl}${playlistUrl}`);
        return response.ok ? response.text() : undefined;
      };
      await waitFor('the first picture', playlist, { timeoutMs: 30_000, watch: [api, ...workers] });

      const session = async () => {
        const { rows } = await database.query<{ claimed_by: string; generation: number }>(
          "select claimed_by, generation from live_view_sessions where status in ('starting', 'live')",
        );
        return rows[0];
      };
      const first = (await session())!;
      const { rows } = await database.query<{ pid: number }>(
        'select pid from instances where id = $1',
        [first.claimed_by],
      );
      const pulling = workers.find((worker) => worker.child.pid === rows[0]?.pid);
      const other = workers.find((worker) => worker !== pulling)!;
      expect(pulling, 'one of the workers pulls the camera').toBeDefined();

      const killedAt = Date.now();
      await killServerProcess(pulling!);
      // The other worker claims it, and fresh segments appear in the playlist the API serves.
      const takenOver = await waitFor(
        'the camera taken over',
        async () => {
          const now = await session();
          if (!now || now.claimed_by === first.claimed_by) return undefined;
          const text = await playlist();
          return text && newestProgramDate(text) > killedAt ? { ...now, text } : undefined;
        },
        { timeoutMs: 20_000, watch: [api, other] },
      );
      const seconds = (Date.now() - killedAt) / 1000;
      expect(seconds).toBeLessThan(15);
      expect(takenOver.generation).toBe(first.generation + 1);
      // The new generation's segments play from storage through their signed addresses.
      const segmentUrl = takenOver.text.split('\n').find((line) => line.includes('.m4s'))!;
      expect(segmentUrl).toContain(`/${takenOver.generation}/seg-`);
      const segment = await fetch(segmentUrl);
      expect(segment.status).toBe(200);
      expect((await segment.arrayBuffer()).byteLength).toBeGreaterThan(1000);

      // Leaving stops the pull on the worker that has it now.
      isWatching = false;
      await beating;
      const left = await fetch(`${api.baseUrl}/api/live-view/${farmyard}/viewers/${viewerId}`, {
        method: 'DELETE',
        headers: { authorization: headers.authorization! },
      });
      expect(left.status).toBe(204);
      expect(await session()).toBeUndefined();
    }, 180_000);
  },
);
