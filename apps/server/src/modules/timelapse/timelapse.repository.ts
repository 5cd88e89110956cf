/**
 * The SQL of daily timelapses (decision 097): which camera-days are due, the claim one process
 * takes on a camera-day (unique per livestream and day; a dead process's claim is taken over,
 * docs/decisions/073), the day's scheduled clips, and the rows a camera lists.
 */
import { and, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { livestreams, sims, timelapses } from '../../db/schema.ts';
import { isAliveSql } from '../../lib/instance.ts';

export type TimelapseRow = typeof timelapses.$inferSelect;

/** A clip the schedule recorded (not a preview or a "record now": their slots say so). */
const isScheduledClip = sql`c.slot is not null and c.slot not like 'preview:%' and c.slot not like 'now:%'`;

export interface DayBounds {
  day: string;
  start: Date;
  end: Date;
}

export const timelapseRepository = {
  /**
   * Livestreams that recorded scheduled clips (of any outcome) on the day and have no timelapse
   * for it yet, or one a dead process was building, and none of whose clips of the day waits
   * for storage.
   */
  async listDue(
    executor: Executor,
    bounds: DayBounds,
    aliveAt: Date,
  ): Promise<{ id: string; sim_iccid: string }[]> {
    return queryRows(
      executor,
      sql`select l.id, l.sim_iccid from livestreams l
          where exists (select 1 from clips c where c.livestream_id = l.id
                          and c.recorded_at >= ${bounds.start.toISOString()}
                          and c.recorded_at < ${bounds.end.toISOString()} and ${isScheduledClip})
            and not exists (select 1 from timelapses t where t.livestream_id = l.id
                              and t.day = ${bounds.day}
                              and (t.status <> 'building' or ${isAliveSql(sql`t.claimed_by`, aliveAt)}))
            -- A clip of the day whose file still waits for storage (decision 105) is waited for.
            and not exists (select 1 from clips c where c.livestream_id = l.id
                              and c.recorded_at >= ${bounds.start.toISOString()}
                              and c.recorded_at < ${bounds.end.toISOString()}
                              and c.status = 'uploading')
          order by l.id`,
    );
  },

  /**
   * Claims the camera-day for `claimedBy`: a new row 'building', or a 'building' row whose
   * process is dead. Undefined when another living process has it or it is finished.
   */
  async claim(
    executor: Executor,
    values: {
      livestreamId: string;
      simIccid: string;
      day: string;
      claimedBy: string;
      now: Date;
      aliveAt: Date;
    },
  ): Promise<string | undefined> {
    const [row] = await queryRows<{ id: string }>(
      executor,
      sql`insert into timelapses (livestream_id, sim_iccid, day, status, claimed_by, created_at, updated_at)
          values (${values.livestreamId}, ${values.simIccid}, ${values.day}, 'building',
                  ${values.claimedBy}, ${values.now.toISOString()}, ${values.now.toISOString()})
          on conflict (livestream_id, day) do update
            set claimed_by = excluded.claimed_by, updated_at = excluded.updated_at
          where timelapses.status = 'building'
            and (timelapses.claimed_by is null
                 or not ${isAliveSql(sql`timelapses.claimed_by`, values.aliveAt)})
          returning id`,
    );
    return row?.id;
  },

  /**
   * Days queued for building without a claim (the demo seed queues its day this way), with the
   * livestream's SIM.
   */
  async listQueued(executor: Executor): Promise<TimelapseRow[]> {
    return executor
      .select()
      .from(timelapses)
      .where(and(eq(timelapses.status, 'building'), isNull(timelapses.claimedBy)))
      .orderBy(timelapses.day);
  },

  /** Claims a queued day for `claimedBy`; false when another process took it first. */
  async claimQueued(
    executor: Executor,
    id: string,
    claimedBy: string,
    now: Date,
  ): Promise<boolean> {
    const rows = await executor
      .update(timelapses)
      .set({ claimedBy, updatedAt: now })
      .where(
        and(eq(timelapses.id, id), eq(timelapses.status, 'building'), isNull(timelapses.claimedBy)),
      )
      .returning({ id: timelapses.id });
    return rows.length > 0;
  },

  /** The day's ready scheduled clips, in the order they were recorded. */
  async readyClipsOfDay(
    executor: Executor,
    livestreamId: string,
    bounds: DayBounds,
  ): Promise<{ id: string; storage_key: string; duration_seconds: number; recorded_at: string }[]> {
    const rows = await queryRows<{
      id: string;
      storage_key: string;
      duration_seconds: number;
      recorded_at: string | Date;
    }>(
      executor,
      sql`select c.id, c.storage_key, c.duration_seconds, c.recorded_at from clips c
          where c.livestream_id = ${livestreamId} and c.status = 'ready'
            and c.storage_key is not null
            and c.recorded_at >= ${bounds.start.toISOString()}
            and c.recorded_at < ${bounds.end.toISOString()} and ${isScheduledClip}
          order by c.recorded_at, c.id`,
    );
    return rows.map((row) => ({ ...row, recorded_at: new Date(row.recorded_at).toISOString() }));
  },

  /** Writes the outcome, only while `claimedBy` still holds the claim; false if it lost it. */
  async finish(
    executor: Executor,
    id: string,
    claimedBy: string,
    outcome: Partial<
      Pick<
        TimelapseRow,
        | 'status'
        | 'storageKey'
        | 'clipCount'
        | 'frameCount'
        | 'durationMs'
        | 'sizeBytes'
        | 'cpuMs'
        | 'error'
        | 'updatedAt'
      >
    >,
  ): Promise<boolean> {
    const rows = await executor
      .update(timelapses)
      .set({ ...outcome, claimedBy: null })
      .where(
        and(
          eq(timelapses.id, id),
          eq(timelapses.claimedBy, claimedBy),
          eq(timelapses.status, 'building'),
        ),
      )
      .returning({ id: timelapses.id });
    return rows.length > 0;
  },

  /**
   * A claimed build that could not read its clips (storage failing): handed back so that a later
   * run builds it again. A queued day (the demo's) is queued again; another row is deleted, so
   * the day is due again. Only while `claimedBy` holds it.
   */
  async releaseBuild(
    executor: Executor,
    id: string,
    claimedBy: string,
    options: { isQueued: boolean },
  ): Promise<void> {
    const held = and(
      eq(timelapses.id, id),
      eq(timelapses.claimedBy, claimedBy),
      eq(timelapses.status, 'building'),
    );
    if (options.isQueued) {
      await executor.update(timelapses).set({ claimedBy: null }).where(held);
    } else {
      await executor.delete(timelapses).where(held);
    }
  },

  // ── Timelapses waiting for storage (docs/decisions/105) ────────────────────────────────

  /** Built, its file not taken by storage: `uploading`, unclaimed, with what the build made. */
  async awaitUpload(
    executor: Executor,
    id: string,
    claimedBy: string,
    outcome: Pick<
      TimelapseRow,
      'storageKey' | 'clipCount' | 'frameCount' | 'durationMs' | 'cpuMs' | 'updatedAt'
    >,
  ): Promise<boolean> {
    const rows = await executor
      .update(timelapses)
      .set({ ...outcome, status: 'uploading', error: null, claimedBy: null })
      .where(
        and(
          eq(timelapses.id, id),
          eq(timelapses.claimedBy, claimedBy),
          eq(timelapses.status, 'building'),
        ),
      )
      .returning({ id: timelapses.id });
    return rows.length > 0;
  },

  /** Takes an `uploading` timelapse for `claimedBy` (nobody's, its own, or a dead process's). */
  async claimUpload(
    executor: Executor,
    values: { id: string; claimedBy: string; aliveAt: Date },
  ): Promise<{ storage_key: string } | undefined> {
    const [row] = await queryRows<{ storage_key: string }>(
      executor,
      sql`update timelapses set claimed_by = ${values.claimedBy}
          where id = ${values.id} and status = 'uploading' and storage_key is not null
            and (claimed_by is null or claimed_by = ${values.claimedBy}
                 or not ${isAliveSql(sql`timelapses.claimed_by`, values.aliveAt)})
          returning storage_key`,
    );
    return row;
  },

  /** Its status and whether a living process holds it. */
  async uploadState(
    executor: Executor,
    id: string,
    aliveAt: Date,
  ): Promise<{ status: string; is_held: boolean } | undefined> {
    const [row] = await queryRows<{ status: string; is_held: boolean }>(
      executor,
      sql`select status, (claimed_by is not null
                          and ${isAliveSql(sql`timelapses.claimed_by`, aliveAt)}) as is_held
          from timelapses where id = ${id}`,
    );
    return row;
  },

  /** The file is in storage: ready, while `claimedBy` holds it. */
  async finishUpload(
    executor: Executor,
    values: { id: string; claimedBy: string; sizeBytes: number; now: Date },
  ): Promise<boolean> {
    const rows = await executor
      .update(timelapses)
      .set({ status: 'ready', sizeBytes: values.sizeBytes, claimedBy: null, updatedAt: values.now })
      .where(
        and(
          eq(timelapses.id, values.id),
          eq(timelapses.status, 'uploading'),
          eq(timelapses.claimedBy, values.claimedBy),
        ),
      )
      .returning({ id: timelapses.id });
    return rows.length > 0;
  },

  async releaseUpload(executor: Executor, id: string, claimedBy: string): Promise<void> {
    await executor
      .update(timelapses)
      .set({ claimedBy: null })
      .where(
        and(
          eq(timelapses.id, id),
          eq(timelapses.status, 'uploading'),
          eq(timelapses.claimedBy, claimedBy),
        ),
      );
  },

  /** Gives up timelapses whose file has waited since before `before` with nobody storing it. */
  async failAbandonedUploads(
    executor: Executor,
    values: { before: Date; aliveAt: Date; error: string; now: Date },
  ): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      executor,
      sql`update timelapses set status = 'failed', error = ${values.error}, claimed_by = null,
                                updated_at = ${values.now.toISOString()}
          where status = 'uploading' and updated_at < ${values.before.toISOString()}
            and (claimed_by is null
                 or not ${isAliveSql(sql`timelapses.claimed_by`, values.aliveAt)})
          returning id`,
    );
    return rows.length;
  },

  /** Timelapses of days before `firstKeptDay` (oldest first, a batch at a time). */
  async listExpired(
    executor: Executor,
    firstKeptDay: string,
    limit: number,
  ): Promise<TimelapseRow[]> {
    return executor
      .select()
      .from(timelapses)
      .where(lt(timelapses.day, firstKeptDay))
      .orderBy(timelapses.day)
      .limit(limit);
  },

  async delete(executor: Executor, id: string): Promise<void> {
    await executor.delete(timelapses).where(eq(timelapses.id, id));
  },

  /** The camera, if it is the customer's, with its livestream's id (null without one). */
  async findCamera(
    executor: Executor,
    customerId: string,
    iccid: string,
  ): Promise<{ nickname: string | null; iccid: string; livestreamId: string | null } | undefined> {
    const [row] = await executor
      .select({
        nickname: sims.nickname,
        iccid: sims.iccid,
        livestreamId: livestreams.id,
      })
      .from(sims)
      .leftJoin(livestreams, eq(livestreams.simIccid, sims.iccid))
      .where(and(eq(sims.iccid, iccid), eq(sims.customerId, customerId)));
    return row;
  },

  /** The camera's timelapses from `firstKeptDay` on, newest first. */
  async listForCamera(
    executor: Executor,
    iccid: string,
    firstKeptDay: string,
  ): Promise<TimelapseRow[]> {
    return executor
      .select()
      .from(timelapses)
      .where(and(eq(timelapses.simIccid, iccid), sql`${timelapses.day} >= ${firstKeptDay}`))
      .orderBy(desc(timelapses.day));
  },
};
