/**
 * Who this process is, for the other processes on the same database: one `instances` row per
 * running process (any role), its heartbeat renewed every few seconds. A process whose heartbeat
 * is older than `deadAfterMs` has died (kill -9, a lost machine): the recovery job takes over
 * the recordings it had claimed, and the start-up sweep deletes its temporary files
 * (docs/decisions/073). A clean exit deletes the row.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { and, eq, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../db/client.ts';
import { heartbeatStream, instances } from '../db/schema.ts';
import type { Clock } from './clock.ts';

/** How often a process says it is alive. */
export const heartbeatIntervalMs = 10_000;
/** Three missed heartbeats: the process is dead and its work is taken over. */
export const deadAfterMs = 30_000;
/** Rows of dead processes are kept this long for operators, then deleted. */
export const deadRowRetentionMs = 7 * 24 * 3_600_000;
/**
 * After a heartbeat failed (the database unreachable), the next try comes this soon, so a
 * process beats again within seconds of the database's return (decision 102).
 */
export const heartbeatRetryMs = 2_000;
/**
 * No heartbeat from any process for this long means the database (or the way to it) was gone
 * for everyone, not that everyone died: every process's silence then counts from the first
 * heartbeat after it (decision 102). A heartbeat and a half: with two or more processes beating
 * every 10 s, nothing else leaves such a gap.
 */
export const deploymentSilenceMs = 15_000;

export interface Instance {
  readonly id: string;
  readonly role: string;
  /** Writes the row; before this process claims work or makes a temporary folder. */
  register(): Promise<void>;
  /** One heartbeat now (the timer calls it; tests call it with their clock). */
  beat(): Promise<void>;
  /**
   * Beats every `heartbeatIntervalMs` until `stop`; `onBeat` runs after each beat (a worker
   * looks for dead processes' recordings then, so they are recovered within a minute).
   */
  startHeartbeat(options?: {
    onBeat?: () => Promise<unknown>;
    onError?: (error: unknown) => void;
  }): void;
  /** Stops beating and deletes the row: a clean exit leaves nothing for others to recover. */
  stop(): Promise<void>;
  /**
   * False while this process's own heartbeats fail: it cannot tell a dead process from its own
   * lost database, so it declares no one dead and takes nothing over until it beats again.
   */
  readonly isBeating: boolean;
}

/** Heartbeat health of the processes this Node process runs (one, outside tests), by id. */
const failingHeartbeats = new Set<string>();

/**
 * Whether the process `instanceId` may judge others dead now: not while its own heartbeat
 * writes fail (decision 102). An id with no heartbeat loop here (a test's) may.
 */
export function mayJudgeOthers(instanceId: string): boolean {
  return !failingHeartbeats.has(instanceId);
}

/**
 * Records a heartbeat in the deployment's stream: a beat after a silence of everyone longer than
 * `deploymentSilenceMs` marks when the database came back (decision 102).
 */
async function recordInStream(db: Database, now: Date): Promise<void> {
  const silenceSeconds = deploymentSilenceMs / 1000;
  await db
    .insert(heartbeatStream)
    .values({ id: 1, lastBeatAt: now, resumedAt: now })
    .onConflictDoUpdate({
      target: heartbeatStream.id,
      set: {
        resumedAt: sql`case when excluded.last_beat_at - ${heartbeatStream.lastBeatAt}
          > make_interval(secs => ${silenceSeconds}) then excluded.last_beat_at
          else ${heartbeatStream.resumedAt} end`,
        lastBeatAt: sql`greatest(${heartbeatStream.lastBeatAt}, excluded.last_beat_at)`,
      },
    });
}

export function createInstance(deps: {
  db: Database;
  clock: Clock;
  role: string;
  /** Fixed in tests; a fresh id for every process start otherwise. */
  id?: string;
  intervalMs?: number;
}): Instance {
  const id = deps.id ?? randomUUID();
  const intervalMs = deps.intervalMs ?? heartbeatIntervalMs;
  let timer: NodeJS.Timeout | undefined;
  let isStopped = false;
  let running: Promise<void> = Promise.resolve();

  async function register() {
    const now = deps.clock.now();
    await recordInStream(deps.db, now);
    await deps.db
      .insert(instances)
      .values({
        id,
        role: deps.role,
        host: os.hostname(),
        pid: process.pid,
        startedAt: now,
        heartbeatAt: now,
      })
      .onConflictDoUpdate({ target: instances.id, set: { heartbeatAt: now, goneAt: null } });
  }

  async function beat() {
    const now = deps.clock.now();
    await recordInStream(deps.db, now);
    const [row] = await deps.db
      .update(instances)
      // A process that was paused past the threshold (and declared dead) is alive again; the
      // clips taken from it meanwhile stay with their new worker (the claim says whose they are).
      .set({ heartbeatAt: now, goneAt: null })
      .where(eq(instances.id, id))
      .returning({ id: instances.id });
    if (!row) await register();
  }

  return {
    id,
    role: deps.role,
    register,
    beat,
    get isBeating() {
      return !failingHeartbeats.has(id);
    },
    startHeartbeat(options = {}) {
      const tick = async () => {
        try {
          await beat();
        } catch (error) {
          // Judges no one until it beats again, and tries again soon (decision 102).
          failingHeartbeats.add(id);
          options.onError?.(error);
          return;
        }
        failingHeartbeats.delete(id);
        try {
          await options.onBeat?.();
        } catch (error) {
          options.onError?.(error);
        }
      };
      const schedule = () => {
        if (isStopped) return;
        timer = setTimeout(
          () => {
            running = tick().finally(schedule);
          },
          failingHeartbeats.has(id) ? Math.min(heartbeatRetryMs, intervalMs) : intervalMs,
        );
        // The heartbeat alone never keeps the process running.
        timer.unref();
      };
      schedule();
    },
    async stop() {
      isStopped = true;
      clearTimeout(timer);
      await running;
      failingHeartbeats.delete(id);
      await deps.db.delete(instances).where(eq(instances.id, id));
    },
  };
}

/** The newest heartbeat a living process can have at `now`. */
export function aliveSince(now: Date): Date {
  return new Date(now.getTime() - deadAfterMs);
}

/**
 * SQL: the moment a process's silence is counted from: its last heartbeat, or the end of the
 * last silence of the whole deployment if that is later (a database outage silences everyone,
 * and nobody is dead for it: decision 102).
 */
function silenceStartSql(heartbeatAt: SQL | AnyPgColumn): SQL {
  return sql`greatest(${heartbeatAt}, (select stream.resumed_at from ${heartbeatStream} stream where stream.id = 1))`;
}

/**
 * SQL: the process `claimant` names is alive at `now`. A claim naming no row at all (deleted
 * after a clean exit, or long dead) counts as dead.
 */
export function isAliveSql(claimant: AnyPgColumn | SQL, now: Date): SQL {
  return sql`exists (select 1 from ${instances} alive
    where alive.id = ${claimant} and alive.gone_at is null
      and ${silenceStartSql(sql`alive.heartbeat_at`)} >= ${aliveSince(now).toISOString()})`;
}

/** Ids of the processes alive at `now`. */
export async function liveInstanceIds(db: Database, now: Date): Promise<Set<string>> {
  const rows = await db
    .select({ id: instances.id })
    .from(instances)
    .where(
      and(
        isNull(instances.goneAt),
        sql`${silenceStartSql(instances.heartbeatAt)} >= ${aliveSince(now).toISOString()}`,
      ),
    );
  return new Set(rows.map((row) => row.id));
}

/**
 * Marks the processes that stopped beating as gone (once: the first to see it stamps it) and
 * deletes rows gone for longer than `deadRowRetentionMs`. Returns the ids newly marked.
 */
export async function markDeadInstances(db: Database, now: Date): Promise<string[]> {
  const marked = await db
    .update(instances)
    .set({ goneAt: now })
    .where(
      and(
        isNull(instances.goneAt),
        sql`${silenceStartSql(instances.heartbeatAt)} < ${aliveSince(now).toISOString()}`,
      ),
    )
    .returning({ id: instances.id });
  await db
    .delete(instances)
    .where(lt(instances.goneAt, new Date(now.getTime() - deadRowRetentionMs)));
  return marked.map((row) => row.id);
}
