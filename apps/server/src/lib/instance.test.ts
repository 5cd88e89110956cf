/**
 * Process identity and heartbeats on a manual clock: a process is alive while it beats, dead
 * three missed beats later, marked gone once and deleted after a week; a clean stop deletes its
 * row. The start-up sweep deletes the temporary folders of processes that are not alive.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { instances } from '../db/schema.ts';
import { ManualClock } from './clock.ts';
import {
  createInstance,
  deadAfterMs,
  deadRowRetentionMs,
  heartbeatIntervalMs,
  liveInstanceIds,
  markDeadInstances,
  mayJudgeOthers,
} from './instance.ts';
import { recordingWorkFolder, sweepTemporaryFolders, temporaryRoot } from './instance-workspace.ts';

describe('process instances and heartbeats', () => {
  let database: DatabaseHandle;
  const clock = new ManualClock('2026-05-01T10:00:00Z');

  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  const rowOf = async (id: string) =>
    (await database.db.select().from(instances).where(eq(instances.id, id)))[0];

  it('registers who the process is, and is alive while it beats', async () => {
    const worker = createInstance({ db: database.db, clock, role: 'worker' });
    await worker.register();
    expect(await rowOf(worker.id)).toMatchObject({
      role: 'worker',
      host: os.hostname(),
      pid: process.pid,
      startedAt: clock.now(),
      heartbeatAt: clock.now(),
      goneAt: null,
    });
    // Beating on time keeps it alive however long it runs.
    for (let beat = 0; beat < 10; beat += 1) {
      clock.advance(heartbeatIntervalMs);
      await worker.beat();
    }
    clock.advance(deadAfterMs - 1);
    expect(await liveInstanceIds(database.db, clock.now())).toContain(worker.id);
    expect(await markDeadInstances(database.db, clock.now())).not.toContain(worker.id);
    await worker.stop();
  });

  it('is dead once its heartbeat is older than the threshold, marked gone once', async () => {
    const worker = createInstance({ db: database.db, clock, role: 'worker' });
    const api = createInstance({ db: database.db, clock, role: 'api' });
    await worker.register();
    await api.register();
    clock.advance(deadAfterMs / 2);
    await api.beat();
    clock.advance(deadAfterMs / 2 + 1);
    // The worker missed three beats; the API beat half-way.
    const alive = await liveInstanceIds(database.db, clock.now());
    expect(alive.has(worker.id)).toBe(false);
    expect(alive.has(api.id)).toBe(true);
    expect(await markDeadInstances(database.db, clock.now())).toEqual([worker.id]);
    expect((await rowOf(worker.id))?.goneAt).toEqual(clock.now());
    // Found once: a second look (another worker's job) does not mark it again.
    expect(await markDeadInstances(database.db, clock.now())).toEqual([]);

    // A process that was only paused comes back when it beats again.
    await worker.beat();
    expect((await liveInstanceIds(database.db, clock.now())).has(worker.id)).toBe(true);
    await worker.stop();
    await api.stop();
  });

  it('declares no one dead for a silence of the whole deployment (the database gone for everyone)', async () => {
    const worker = createInstance({ db: database.db, clock, role: 'worker' });
    const api = createInstance({ db: database.db, clock, role: 'api' });
    await worker.register();
    await api.register();
    // The database is down for a minute: nobody's heartbeat reaches it.
    clock.advance(60_000);
    // The API's first beat after it came back; the worker's comes a few seconds later.
    await api.beat();
    expect(await markDeadInstances(database.db, clock.now())).toEqual([]);
    expect((await liveInstanceIds(database.db, clock.now())).has(worker.id)).toBe(true);
    clock.advance(heartbeatIntervalMs / 2);
    await worker.beat();
    // A process that really died during the outage is dead 30 s after the database's return.
    const crashed = createInstance({ db: database.db, clock, role: 'worker' });
    await crashed.register();
    for (let beat = 0; beat < 4; beat += 1) {
      clock.advance(heartbeatIntervalMs);
      await api.beat();
      await worker.beat();
    }
    expect(await markDeadInstances(database.db, clock.now())).toEqual([crashed.id]);
    await worker.stop();
    await api.stop();
  });

  it('judges no one while its own heartbeat fails, and tries again within seconds', async () => {
    const lost = await openTestDatabase();
    await lost.close();
    const worker = createInstance({ db: lost.db, clock, role: 'worker', intervalMs: 200 });
    const failures: number[] = [];
    worker.startHeartbeat({ onError: () => void failures.push(performance.now()) });
    await vi.waitFor(() => expect(failures.length).toBeGreaterThanOrEqual(3), { timeout: 5_000 });
    expect(worker.isBeating).toBe(false);
    expect(mayJudgeOthers(worker.id)).toBe(false);
    // Retries come sooner than the interval (here both are short; the retry is the smaller).
    expect(failures[2]! - failures[1]!).toBeLessThan(1_000);
    await worker.stop().catch(() => undefined);
    expect(mayJudgeOthers(worker.id)).toBe(true);
  });

  it('deletes its row on a clean stop, and dead rows after a week', async () => {
    const clean = createInstance({ db: database.db, clock, role: 'all' });
    const crashed = createInstance({ db: database.db, clock, role: 'worker' });
    await clean.register();
    await crashed.register();
    await clean.stop();
    expect(await rowOf(clean.id)).toBeUndefined();

    clock.advance(deadAfterMs + 1);
    await markDeadInstances(database.db, clock.now());
    clock.advance(deadRowRetentionMs - 1000);
    await markDeadInstances(database.db, clock.now());
    expect(await rowOf(crashed.id)).toBeDefined();
    clock.advance(2000);
    await markDeadInstances(database.db, clock.now());
    expect(await rowOf(crashed.id)).toBeUndefined();
  });

  it('beats on its own timer until stopped', async () => {
    const realClock = { now: () => new Date() };
    const worker = createInstance({
      db: database.db,
      clock: realClock,
      role: 'worker',
      intervalMs: 20,
    });
    await worker.register();
    let beats = 0;
    worker.startHeartbeat({ onBeat: async () => void (beats += 1) });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await worker.stop();
    const after = beats;
    expect(after).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(beats).toBe(after);
    expect(await rowOf(worker.id)).toBeUndefined();
  });
});

describe('temporary folders per process', () => {
  let database: DatabaseHandle;
  let dataDir: string;
  const clock = new ManualClock('2026-05-01T10:00:00Z');

  beforeAll(async () => {
    database = await openTestDatabase();
    dataDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-sweep-'));
  });
  afterAll(async () => {
    await database?.close();
    await fs.promises.rm(dataDir, { recursive: true, force: true });
  });

  async function leaveFile(instanceId: string): Promise<string> {
    const folder = recordingWorkFolder(dataDir, instanceId);
    await fs.promises.mkdir(folder, { recursive: true });
    const file = path.join(folder, `${randomUUID()}.mp4.raw.mp4`);
    await fs.promises.writeFile(file, 'half a recording');
    return file;
  }

  it('deletes the folders of dead and unknown processes at start, keeps the living', async () => {
    expect(
      await sweepTemporaryFolders({ db: database.db, clock, dataDir, instanceId: randomUUID() }),
    ).toEqual([]);

    const crashed = createInstance({ db: database.db, clock, role: 'worker' });
    await crashed.register();
    const crashedFile = await leaveFile(crashed.id);
    const forgottenFile = await leaveFile(randomUUID()); // its row was deleted long ago
    // A neighbour keeps beating meanwhile: the silence is the crashed one's alone.
    const neighbour = createInstance({ db: database.db, clock, role: 'worker' });
    await neighbour.register();
    for (let beat = 0; beat < 3; beat += 1) {
      clock.advance(heartbeatIntervalMs);
      await neighbour.beat();
    }
    clock.advance(1);
    const neighbourFile = await leaveFile(neighbour.id);

    const starting = createInstance({ db: database.db, clock, role: 'all' });
    await starting.register();
    // Its own folder is in use (the sweep runs after each heartbeat too).
    const ownFile = await leaveFile(starting.id);

    const removed = await sweepTemporaryFolders({
      db: database.db,
      clock,
      dataDir,
      instanceId: starting.id,
    });
    expect(removed.sort()).toEqual(
      [crashed.id, path.basename(path.dirname(path.dirname(forgottenFile)))].sort(),
    );
    expect(fs.existsSync(crashedFile)).toBe(false);
    expect(fs.existsSync(forgottenFile)).toBe(false);
    expect(fs.existsSync(ownFile)).toBe(true);
    // A living process sharing the data directory keeps its half-written file.
    expect(fs.existsSync(neighbourFile)).toBe(true);
    expect((await fs.promises.readdir(temporaryRoot(dataDir))).sort()).toEqual(
      [neighbour.id, starting.id].sort(),
    );

    // Later, beating on: the neighbour has died since, and its folder goes too.
    for (let beat = 0; beat < 3; beat += 1) {
      clock.advance(heartbeatIntervalMs);
      await starting.beat();
    }
    clock.advance(1);
    expect(
      await sweepTemporaryFolders({ db: database.db, clock, dataDir, instanceId: starting.id }),
    ).toEqual([neighbour.id]);
    expect(fs.existsSync(ownFile)).toBe(true);
  });
});
