/**
 * Live view, the workers' side (decisions 151-155): each worker claims open sessions up to
 * LIVE_VIEW_CAMERAS_PER_WORKER, opens the camera's port through the SIM platform as the recorder
 * does, pulls it with ffmpeg into HLS and stores each segment, the playlist going to the
 * database. A pull renews its claim every second; a worker killed mid-view stops renewing, and
 * another takes the camera over within `takeOverAfterMs` (the player reloads the playlist and
 * goes on). Every worker also ends pulls nobody watches, closes gone viewers (Activity log) and
 * deletes the segments of ended sessions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { liveViewTimings, livestreamRtspPort } from '@farmcam/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { reportIfDatabaseUnreachable } from '../../lib/database-outage.ts';
import { countLiveViewBytes, countLiveViewStart, setLiveViewLoad } from '../../lib/metrics.ts';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import type { LivePull, LivePuller, LiveUpdate } from '../../providers/recorder/live-puller.ts';
import { livePlaylistLength, playlistFiles } from '../../providers/recorder/live-puller.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import { closeViewersAndLog } from './live-view-viewers.ts';
import { liveContentType, segmentKey } from './live-view-storage.ts';
import {
  liveViewRepository as repository,
  type LiveViewSessionRow,
} from './live-view.repository.ts';

/** A pull whose worker has not renewed its claim for this long is taken over (decision 153). */
export const takeOverAfterMs = 8_000;
/** How often a worker looks for sessions to pull and renews its own. */
const tickMs = 500;
const renewEveryMs = 1_000;
const sweepEveryMs = 2_000;
const purgeEveryMs = 3_600_000;
/**
 * Ended sessions are kept this long: the month's Hours are counted from them (the UK month, so
 * two months covers any month boundary), then deleted; the Activity log keeps each view.
 */
export const sessionRetentionDays = 62;
/** The live view's stream: the camera's SD sub-stream, the cheapest on a 4G plan (decision 156). */
export const liveRtspPath = '/12';
/** Segments kept in storage beyond the playlist's, for a player a little behind. */
const extraStoredSegments = 4;

export interface LiveViewPullerDependencies {
  db: Database;
  clock: Clock;
  processClock?: Clock;
  storage: ClipStorage;
  puller: LivePuller;
  cameraAccess: Pick<ConnectivityPlatform, 'openCameraPorts'>;
  /** Counts pulled bytes on the SIM's usage where the SIM platform is ours (local mode). */
  meterTraffic?: (iccid: string, bytes: number) => Promise<void>;
  /** After a pull ends: its newest segment, for the camera's latest still (decision 157). */
  onPullEnded?: (input: {
    iccid: string;
    initPath: string;
    segmentPath: string;
    at: Date;
  }) => Promise<void>;
  instanceId: string;
  camerasPerWorker: number;
  /** This process's own folder for the segments being written. */
  workFolder: string;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

interface RunningPull {
  session: LiveViewSessionRow;
  pull: LivePull | undefined;
  storedKeys: string[];
  isStopping: boolean;
  hasPicture: boolean;
  lastRenewAt: number;
  folder: string;
  latest?: { initPath: string; segmentPath: string };
}

export type LiveViewPullerService = ReturnType<typeof createLiveViewPuller>;

export function createLiveViewPuller(deps: LiveViewPullerDependencies) {
  const { db, clock, instanceId } = deps;
  const processClock = deps.processClock ?? systemClock;
  const running = new Map<string, RunningPull>();
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> = Promise.resolve();
  let isStopped = false;
  let lastSweepAt = 0;
  let lastPurgeAt = 0;

  async function deleteKeys(sessionId: string, keys: string[]): Promise<void> {
    const deleted: string[] = [];
    for (const key of keys) {
      try {
        await deps.storage.delete(key);
        deleted.push(key);
      } catch (error) {
        deps.log.warn(
          { err: error, key },
          'A live view segment could not be deleted; tried again later',
        );
      }
    }
    await repository.forgetKeys(db, sessionId, deleted);
  }

  async function store(entry: RunningPull, update: LiveUpdate): Promise<void> {
    if (entry.isStopping) return;
    let bytes = 0;
    for (const file of update.files) {
      const key = segmentKey(entry.session, file.name);
      await deps.storage.putFile(key, file.filePath, liveContentType(file.name));
      if (!entry.storedKeys.includes(key)) entry.storedKeys.push(key);
      bytes += file.sizeBytes;
      if (file.name.endsWith('.m4s')) {
        entry.latest = {
          initPath: path.join(entry.folder, 'init.mp4'),
          segmentPath: file.filePath,
        };
      }
    }
    // Older segments than the playlist (and a few more) leave storage as they leave the list.
    const listed = new Set(
      playlistFiles(update.playlist).map((name) => segmentKey(entry.session, name)),
    );
    const segments = entry.storedKeys.filter((key) => key.endsWith('.m4s'));
    const surplus = segments.length - livePlaylistLength - extraStoredSegments;
    const dropped = surplus > 0 ? segments.slice(0, surplus).filter((key) => !listed.has(key)) : [];
    entry.storedKeys = entry.storedKeys.filter((key) => !dropped.includes(key));
    const now = clock.now();
    const saved = await repository.recordProgress(db, {
      sessionId: entry.session.id,
      instanceId,
      aliveAt: processClock.now(),
      now,
      playlist: update.playlist,
      bytes,
      storedKeys: entry.storedKeys,
    });
    entry.lastRenewAt = Date.now();
    for (const key of dropped) await deps.storage.delete(key).catch(() => undefined);
    countLiveViewBytes(bytes);
    if (bytes > 0) await deps.meterTraffic?.(entry.session.simIccid, bytes).catch(() => undefined);
    if (!saved) {
      // Ended (nobody watching, switched off) or taken over: stop. The files the session lists
      // are the sweep's to delete; these were stored after it ended, so nobody lists them.
      for (const file of update.files) {
        await deps.storage.delete(segmentKey(entry.session, file.name)).catch(() => undefined);
      }
      void stopPull(entry, null);
      return;
    }
    if (!entry.hasPicture && update.files.some((file) => file.name.endsWith('.m4s'))) {
      entry.hasPicture = true;
      const seconds = (now.getTime() - entry.session.requestedAt.getTime()) / 1000;
      countLiveViewStart('picture', entry.session.generation === 1 ? seconds : undefined);
      deps.log.info(
        { sessionId: entry.session.id, iccid: entry.session.simIccid, seconds },
        'Live view: first picture stored',
      );
    }
  }

  async function stopPull(entry: RunningPull, failure: string | null): Promise<void> {
    if (entry.isStopping) return;
    entry.isStopping = true;
    await entry.pull?.stop();
    if (failure !== null) {
      await repository.endSession(db, {
        sessionId: entry.session.id,
        status: 'failed',
        reason: failure,
        now: clock.now(),
      });
      if (!entry.hasPicture) countLiveViewStart('failed');
    }
    if (entry.latest && deps.onPullEnded) {
      await deps
        .onPullEnded({ iccid: entry.session.simIccid, ...entry.latest, at: clock.now() })
        .catch((error: unknown) => deps.log.warn({ err: error }, 'No still from the live view'));
    }
    await fs.promises.rm(entry.folder, { recursive: true, force: true });
    running.delete(entry.session.id);
    publishLoad();
  }

  async function startPull(session: LiveViewSessionRow): Promise<void> {
    const folder = path.join(deps.workFolder, `${session.id}-${session.generation}`);
    const entry: RunningPull = {
      session,
      pull: undefined,
      // A predecessor's files (a worker that died) go at once: this pull writes its own.
      storedKeys: [],
      isStopping: false,
      hasPicture: false,
      lastRenewAt: Date.now(),
      folder,
    };
    running.set(session.id, entry);
    publishLoad();
    if (session.storedKeys.length > 0) void deleteKeys(session.id, session.storedKeys);
    try {
      const access = await deps.cameraAccess.openCameraPorts(session.simIccid, [
        livestreamRtspPort,
      ]);
      const port = access.ports[livestreamRtspPort];
      if (!port) throw new Error('The camera port is not open');
      await fs.promises.rm(folder, { recursive: true, force: true });
      await fs.promises.mkdir(folder, { recursive: true });
      if (entry.isStopping) return;
      let storing: Promise<void> = Promise.resolve();
      entry.pull = deps.puller.start({
        rtspUrl: `rtsp://${access.host}:${port}${liveRtspPath}`,
        folder,
        onUpdate: (update) => {
          storing = storing.then(() =>
            store(entry, update).catch((error: unknown) => {
              deps.log.warn(
                { err: error, sessionId: session.id },
                'A live view segment could not be stored',
              );
            }),
          );
          return storing;
        },
      });
      deps.log.info(
        { sessionId: session.id, iccid: session.simIccid, generation: session.generation },
        'Live view pull started',
      );
      void entry.pull.ended.then(async ({ reason, detail }) => {
        if (entry.isStopping) return;
        deps.log.warn(
          { sessionId: session.id, detail },
          `Live view pull ended: ${reason ?? 'stopped'}`,
        );
        await stopPull(entry, reason ?? 'The camera stopped sending video.');
      });
    } catch (error) {
      deps.log.warn({ err: error, sessionId: session.id }, 'Live view could not reach the camera');
      entry.isStopping = false;
      await stopPull(
        entry,
        'The camera could not be reached. Check that it is switched on and has mobile signal, then try again.',
      );
    }
  }

  /** This worker's pulls and the people watching them, for its metrics. */
  let viewersOfMine = 0;
  function publishLoad(): void {
    setLiveViewLoad(running.size, viewersOfMine);
  }

  /** Renews this worker's claims; a claim it lost (ended, or taken) stops its pull. */
  async function renew(): Promise<void> {
    const nowMs = Date.now();
    for (const entry of running.values()) {
      if (entry.isStopping || nowMs - entry.lastRenewAt < renewEveryMs) continue;
      entry.lastRenewAt = nowMs;
      const saved = await repository.recordProgress(db, {
        sessionId: entry.session.id,
        instanceId,
        aliveAt: processClock.now(),
        now: clock.now(),
      });
      if (!saved) void stopPull(entry, null);
    }
  }

  /** Every worker's chores: gone viewers, unwatched pulls, files of ended sessions. */
  async function sweep(): Promise<void> {
    await closeViewersAndLog(db, clock);
    const now = clock.now();
    const seenSince = new Date(now.getTime() - liveViewTimings.viewerGoneSeconds * 1000);
    for (const session of await repository.listUnwatched(db, seenSince)) {
      await repository.endSession(db, {
        sessionId: session.id,
        status: 'ended',
        reason: 'Nobody is watching any more.',
        now,
      });
    }
    for (const session of await repository.listUncleaned(db)) {
      if (running.has(session.id)) continue;
      await deleteKeys(session.id, session.storedKeys);
    }
    viewersOfMine = await repository.countWatchingIn(db, [...running.keys()], seenSince);
    publishLoad();
    if (Date.now() - lastPurgeAt >= purgeEveryMs) {
      lastPurgeAt = Date.now();
      await repository.purgeEnded(db, new Date(now.getTime() - sessionRetentionDays * 86_400_000));
    }
  }

  async function claimWhileRoom(): Promise<void> {
    while (!isStopped && running.size < deps.camerasPerWorker) {
      const aliveAt = processClock.now();
      const session = await repository.claimSession(db, {
        instanceId,
        aliveAt,
        staleBefore: new Date(aliveAt.getTime() - takeOverAfterMs),
        now: clock.now(),
      });
      if (!session) return;
      if (session.generation > 1) {
        deps.log.warn(
          { sessionId: session.id, generation: session.generation },
          'Live view taken over from a silent worker',
        );
      }
      void startPull(session);
    }
  }

  async function tick(forceSweep = false): Promise<void> {
    await renew();
    if (forceSweep || Date.now() - lastSweepAt >= sweepEveryMs) {
      lastSweepAt = Date.now();
      await sweep();
    }
    await claimWhileRoom();
  }

  function schedule(forceSweep = false): void {
    ticking = ticking
      .then(() => tick(forceSweep))
      .catch((error: unknown) => {
        // An outage is logged once per cause every 10 s with the rest of the process's
        // (lib/database-outage.ts), not once per tick.
        if (reportIfDatabaseUnreachable(error, { source: 'live view worker' })) return;
        deps.log.warn({ err: error }, 'Live view worker tick failed');
      });
  }

  return {
    /** Starts looking for sessions to pull (workers; a process in every role too). */
    start(): void {
      if (timer || deps.camerasPerWorker === 0) return;
      timer = setInterval(() => schedule(), tickMs);
      timer.unref();
    },
    /** A viewer in this process asked for a new pull: look now rather than at the next tick. */
    wake(): void {
      if (timer && !isStopped) schedule();
    },
    /** One round now, sweep included (tests). */
    tick: () => {
      schedule(true);
      return ticking;
    },
    /** Cameras this process pulls now. */
    runningSessionIds: () => [...running.keys()],
    /**
     * Graceful shutdown: stops the pulls and lets go of their claims, so another worker takes
     * each camera at once; the players reload and go on.
     */
    async stop(): Promise<void> {
      isStopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await ticking;
      const entries = [...running.values()];
      await Promise.all(entries.map((entry) => stopPull(entry, null)));
      for (const entry of entries) {
        // Released, not ended: the next worker's claim finds it at once.
        await repository.releaseClaim(db, entry.session.id, instanceId);
      }
      await fs.promises.rm(deps.workFolder, { recursive: true, force: true });
    },
  };
}
