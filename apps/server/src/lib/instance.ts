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
import { instances } from '../db/schema.ts';
import type { Clock } from './clock.ts';

/** How often a process says it is alive. */
export const heartbeatIntervalMs = 10_000;
/** Three missed heartbeats: the process is dead and its work is taken over. */
export const deadAfterMs = 30_000;
/** Rows of dead processes are kept this long for operators, then deleted. */
export const deadRowRetentionMs = 7 * 24 * 3_600_000;

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
    const [row] = await deps.db
      .update(instances)
      // A process that was paused past the threshold (and declared dead) is alive again; the
      // clips taken from it meanwhile stay with their new worker (the claim says whose they are).
      .set({ heartbeatAt: deps.clock.now(), goneAt: null })
      .where(eq(instances.id, id))
      .returning({ id: instances.id });
    if (!row) await register();
  }

  return {
    id,
    role: deps.role,
    register,
    beat,
    startHeartbeat(options = {}) {
      const tick = async () => {
        try {
          await beat();
          await options.onBeat?.();
        } catch (error) {
          options.onError?.(error);
        }
      };
      const schedule = () => {
        if (isStopped) return;
        timer = setTimeout(() => {
          running = tick().finally(schedule);
        }, intervalMs);
        // The heartbeat alone never keeps the process running.
        timer.unref();
      };
      schedule();
    },
    async stop() {
      isStopped = true;
      clearTimeout(timer);
      await running;
      await deps.db.delete(instances).where(eq(instances.id, id));
    },
  };
}

/** The newest heartbeat a living process can have at `now`. */
export function aliveSince(now: Date): Date {
  return new Date(now.getTime() - deadAfterMs);
}

/**
 * SQL: the process `claimant` names is alive at `now`. A claim naming no row at all (deleted
 * after a clean exit, or long dead) counts as dead.
 */
export function isAliveSql(claimant: AnyPgColumn | SQL, now: Date): SQL {
  return sql`exists (select 1 from ${instances} alive
    where alive.id = ${claimant} and alive.gone_at is null
      and alive.heartbeat_at >= ${aliveSince(now).toISOString()})`;
}

/** Ids of the processes alive at `now`. */
export async function liveInstanceIds(db: Database, now: Date): Promise<Set<string>> {
  const rows = await db
    .select({ id: instances.id })
    .from(instances)
    .where(
      and(
        isNull(instances.goneAt),
        sql`${instances.heartbeatAt} >= ${aliveSince(now).toISOString()}`,
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
    .where(and(isNull(instances.goneAt), lt(instances.heartbeatAt, aliveSince(now))))
    .returning({ id: instances.id });
  await db
    .delete(instances)
    .where(lt(instances.goneAt, new Date(now.getTime() - deadRowRetentionMs)));
  return marked.map((row) => row.id);
}
