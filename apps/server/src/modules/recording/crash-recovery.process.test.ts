/**
 * A real kill -9 mid-recording (docs/decisions/073): server.ts (ROLE=all) on PostgreSQL records a
 * scheduled slot from the local camera; its whole process group (the server, ffmpeg and the
 * camera) is killed; a second process started on the same data directory takes the slot over
 * within a minute of the kill and records it once, deletes the dead one's half-written files,
 * and leaves no row behind when it stops with SIGTERM. Skipped without TEST_DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  freePort,
  killServerProcess,
  startServerProcess,
  START_UP_MS,
  waitFor,
  type ServerProcess,
} from '../../../test/helpers/server-processes.ts';
import { demoIccid } from '../../seed/demo.ts';
import { recordingWorkFolder } from '../../lib/instance-workspace.ts';

const serverUrl = process.env.TEST_DATABASE_URL;

/** server.ts (ROLE=all) on the shared data directory, with its own local camera port. */
async function startServer(name: string, databaseUrl: string, dataDir: string) {
  return startServerProcess(databaseUrl, {
    name,
    dataDir,
    environment: { ROLE: 'all', LOCAL_CAMERA_PORT: String(await freePort()) },
  });
}

/** Polls until `probe` gives a value, failing at once if a watched server exits. */
const until = <T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  servers: ServerProcess[],
) => waitFor(what, probe, { timeoutMs, watch: servers });

describe.skipIf(!serverUrl)(
  'a worker killed with kill -9 mid-recording (needs TEST_DATABASE_URL: npm run test:pg)',
  () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-kill-'));
    let scratch: { url: string; drop: () => Promise<void> };
    let databaseUrl: string;
    let database: pg.Client;
    const servers: ServerProcess[] = [];

    beforeAll(async () => {
      scratch = await createScratchDatabase(serverUrl as string, 'farmcam_kill');
      databaseUrl = scratch.url;
    });

    afterAll(async () => {
      await Promise.all(servers.map((server) => killServerProcess(server)));
      await database?.end();
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    const instanceOf = async (server: ServerProcess) => {
      const { rows } = await database.query<{ id: string }>(
        'select id from instances where pid = $1 and gone_at is null',
        [server.child.pid],
      );
      return rows[0]?.id;
    };

    it('records the slot once on the next process, within a minute of the kill', async () => {
      const first = await startServer('the first server', databaseUrl, dataDir);
      servers.push(first);
      await until(
        'the first server ready',
        async () => ((await fetch(`${first.baseUrl}/api/readyz`)).ok ? true : undefined),
        START_UP_MS,
        servers,
      );
      database = new pg.Client({ connectionString: databaseUrl });
      await database.connect();
      const firstId = await until('its instance row', () => instanceOf(first), 10_000, servers);

      // The demo farmyard camera (active Heavy plan) with a livestream switched on.
      const {
        rows: [livestream],
      } = await database.query<{ id: string }>(
        `insert into livestreams (sim_iccid, public_id, is_active, activated_at, duration_seconds)
         values ($1, $2, true, now(), 15) returning id`,
        [demoIccid(103), `kill-${randomBytes(6).toString('hex')}`],
      );
      const slot = '2030-01-07T09';
      const boss = new PgBoss({ connectionString: databaseUrl, schedule: false, supervise: false });
      await boss.start();
      await boss.send(
        'livestream-record-clip',
        { kind: 'scheduled', livestreamId: livestream!.id, slot },
        { retryLimit: 3, retryDelay: 20, retryBackoff: true, expireInSeconds: 15 * 60 },
      );
      await boss.stop({ graceful: false });

      const clipOf = async () =>
        (
          await database.query<{
            id: string;
            status: string;
            claimed_by: string | null;
            recoveries: number;
          }>('select id, status, claimed_by, recoveries from clips where slot = $1', [slot])
        ).rows;
      // Recording: the clip is claimed and ffmpeg is writing into the first server's folder.
      const firstFolder = recordingWorkFolder(dataDir, firstId);
      await until(
        'the first recording under way',
        async () => {
          const [clip] = await clipOf();
          if (clip?.status !== 'recording' || clip.claimed_by !== firstId) return undefined;
          const files = fs.readdirSync(firstFolder);
          const sizes = files.map((file) => fs.statSync(path.join(firstFolder, file)).size);
          return sizes.some((size) => size > 0) ? true : undefined;
        },
        30_000,
        servers,
      );

      const killedAt = performance.now();
      await killServerProcess(first);

      const second = await startServer('the second server', databaseUrl, dataDir);
      servers.push(second);
      const secondId = await until('the second instance row', () => instanceOf(second), 60_000, [
        second,
      ]);
      // Taken over within a minute of the kill.
      await until(
        'the slot claimed by the second server',
        async () => ((await clipOf())[0]?.claimed_by === secondId ? true : undefined),
        60_000 - (performance.now() - killedAt),
        [second],
      );
      const recorded = await until(
        'the slot recorded',
        async () => {
          const [clip] = await clipOf();
          return clip?.status === 'ready' ? clip : undefined;
        },
        45_000,
        [second],
      );
      expect(recorded).toMatchObject({ claimed_by: secondId, recoveries: 1 });
      expect(await clipOf()).toHaveLength(1);
      const {
        rows: [dead],
      } = await database.query<{ gone_at: Date | null }>(
        'select gone_at from instances where id = $1',
        [firstId],
      );
      expect(dead?.gone_at).not.toBeNull();
      // The dead server's half-written files are gone (swept after a heartbeat).
      await until(
        'the dead server’s folder deleted',
        async () => (fs.existsSync(path.join(dataDir, 'tmp', firstId)) ? undefined : true),
        20_000,
        [second],
      );

      // A clean stop leaves nothing to recover.
      process.kill(second.child.pid!, 'SIGTERM');
      expect(await second.exited).toBe(0);
      const { rows: left } = await database.query(
        "select id from clips where status = 'recording'",
      );
      expect(left).toEqual([]);
      expect(
        (await database.query('select id from instances where id = $1', [secondId])).rows,
      ).toEqual([]);
      expect(fs.existsSync(path.join(dataDir, 'tmp', secondId))).toBe(false);
    }, 390_000);
  },
);
