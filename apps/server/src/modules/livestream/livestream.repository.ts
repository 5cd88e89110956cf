/**
 * SQL for livestreaming: cameras with the facts eligibility needs, livestream rows, clips (one per
 * slot), and daily view counts.
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { currentSubscriptionFirst } from '../../db/current-subscription.ts';
import { isAliveSql } from '../../lib/instance.ts';
import { clips, livestreams, type SimState, type SubscriptionStatus } from '../../db/schema.ts';

export type LivestreamRow = typeof livestreams.$inferSelect;
export type ClipRow = typeof clips.$inferSelect;

/**
 * SQL: a 'recording' clip nobody holds any more: its process is dead, it was handed over by the
 * recovery job and waits for its new job (no claimant, recoveries > 0), or (rows from before
 * claims were recorded) it started before `staleBefore`.
 */
function claimIsFree(aliveAt: Date, staleBefore: Date) {
  return sql`((clips.claimed_by is null
                 and (clips.recoveries > 0 or clips.recorded_at < ${staleBefore.toISOString()}))
              or (clips.claimed_by is not null and not ${isAliveSql(sql`clips.claimed_by`, aliveAt)}))`;
}

/**
 * A clip still being recorded by the process `claimedBy`: the condition under which a claim may be
 * handed over or given up, so another worker or a retry that got there first is left alone.
 */
function stillHeldBy(clip: { id: string; claimedBy: string }) {
  return and(
    eq(clips.id, clip.id),
    eq(clips.status, 'recording'),
    eq(clips.claimedBy, clip.claimedBy),
  );
}

/** A customer's camera with its newest subscription's plan and its livestream id, if any. */
export interface CameraPlanRow {
  iccid: string;
  customer_id: string;
  nickname: string | null;
  state: SimState;
  is_barred: boolean;
  subscription_status: SubscriptionStatus | null;
  pause_starts_on: string | null;
  pause_resumes_on: string | null;
  product_name: string | null;
  data_allowance_gb: number | null;
  livestream_id: string | null;
}

const cameraPlanSelect = sql`
  select s.iccid, s.customer_id, s.nickname, s.state, s.is_barred,
         plan.status as subscription_status,
         plan.pause_starts_on::text as pause_starts_on,
         plan.pause_resumes_on::text as pause_resumes_on,
         plan.product_name, plan.data_allowance_gb,
         l.id as livestream_id
  from sims s
  left join lateral (
    select sub.status, sub.pause_starts_on, sub.pause_resumes_on,
           p.name as product_name, p.data_allowance_gb
    from subscriptions sub
    join prices pr on pr.id = sub.price_id
    join products p on p.id = pr.product_id
    where sub.sim_iccid = s.iccid
    order by ${currentSubscriptionFirst('sub')}
    limit 1
  ) plan on true
  left join livestreams l on l.sim_iccid = s.iccid`;

export interface DueLivestreamRow extends CameraPlanRow {
  livestream_id: string;
}

/** Where views from sites past a day's bound are counted (not a host name: it has spaces). */
export const otherSitesHost = '(other sites)';

export interface ViewsDayRow {
  livestream_id: string;
  day: string;
  views: number;
}

export interface ClipStatsRow {
  livestream_id: string;
  latest_clip_at: Date | string | null;
  failures: number;
  last_failure_at: Date | string | null;
  last_failure_error: string | null;
  has_current_slot: boolean;
}

export const livestreamRepository = {
  async listCameraPlans(executor: Executor, customerId: string): Promise<CameraPlanRow[]> {
    return queryRows<CameraPlanRow>(
      executor,
      sql`${cameraPlanSelect} where s.customer_id = ${customerId} and s.state <> 'stock'
          order by s.nickname nulls last, s.iccid`,
    );
  },

  async findCameraPlan(executor: Executor, iccid: string): Promise<CameraPlanRow | undefined> {
    const [row] = await queryRows<CameraPlanRow>(
      executor,
      sql`${cameraPlanSelect} where s.iccid = ${iccid}`,
    );
    return row;
  },

  async findCameraPlanByLivestream(
    executor: Executor,
    livestreamId: string,
  ): Promise<CameraPlanRow | undefined> {
    const [row] = await queryRows<CameraPlanRow>(
      executor,
      sql`${cameraPlanSelect} where l.id = ${livestreamId}`,
    );
    return row;
  },

  async findBySim(executor: Executor, iccid: string): Promise<LivestreamRow | undefined> {
    const [row] = await executor.select().from(livestreams).where(eq(livestreams.simIccid, iccid));
    return row;
  },

  async findById(executor: Executor, id: string): Promise<LivestreamRow | undefined> {
    const [row] = await executor.select().from(livestreams).where(eq(livestreams.id, id));
    return row;
  },

  async findByPublicId(executor: Executor, publicId: string): Promise<LivestreamRow | undefined> {
    const [row] = await executor
      .select()
      .from(livestreams)
      .where(eq(livestreams.publicId, publicId));
    return row;
  },

  async listByIds(executor: Executor, ids: string[]): Promise<LivestreamRow[]> {
    if (ids.length === 0) return [];
    return executor.select().from(livestreams).where(inArray(livestreams.id, ids));
  },

  /** Creates the livestream of a camera, or returns the existing one (the setup may be repeated). */
  async ensureForSim(
    executor: Executor,
    values: { iccid: string; publicId: string; cameraHost: string; cameraPort: number; now: Date },
  ): Promise<{ row: LivestreamRow; isNew: boolean }> {
    const [inserted] = await executor
      .insert(livestreams)
      .values({
        simIccid: values.iccid,
        publicId: values.publicId,
        cameraHost: values.cameraHost,
        cameraPort: values.cameraPort,
        createdAt: values.now,
        updatedAt: values.now,
      })
      .onConflictDoNothing({ target: livestreams.simIccid })
      .returning();
    if (inserted) return { row: inserted, isNew: true };
    const [updated] = await executor
      .update(livestreams)
      .set({ cameraHost: values.cameraHost, cameraPort: values.cameraPort, updatedAt: values.now })
      .where(eq(livestreams.simIccid, values.iccid))
      .returning();
    return { row: updated!, isNew: false };
  },

  async update(
    executor: Executor,
    id: string,
    values: Partial<Omit<LivestreamRow, 'id' | 'simIccid' | 'publicId' | 'createdAt'>>,
  ): Promise<LivestreamRow> {
    const [row] = await executor
      .update(livestreams)
      .set(values)
      .where(eq(livestreams.id, id))
      .returning();
    return row!;
  },

  /**
   * Active livestreams whose schedule has this UK hour on this UK day and that have no clip for
   * the slot yet. Eligibility is checked by the caller on the returned facts.
   */
  async listDue(
    executor: Executor,
    slot: { hour: number; day: string; slotKey: string },
  ): Promise<DueLivestreamRow[]> {
    return queryRows<DueLivestreamRow>(
      executor,
      sql`${cameraPlanSelect}
          where l.is_active
            and ${slot.hour}::int = any(l.schedule_hours)
            and ${slot.day}::text = any(l.schedule_days)
            and not exists (select 1 from clips c where c.livestream_id = l.id and c.slot = ${slot.slotKey})`,
    );
  },

  /**
   * Switches off active schedules whose code has not been seen on a website since `cutoff`
   * (counting from when the schedule was last switched on), and returns them for the e-mails.
   */
  async switchOffUnused(
    executor: Executor,
    cutoff: Date,
    now: Date,
    reason: string,
  ): Promise<{ id: string; sim_iccid: string }[]> {
    return queryRows<{ id: string; sim_iccid: string }>(
      executor,
      sql`update livestreams set is_active = false, disabled_reason = ${reason}, updated_at = ${now.toISOString()}
          where is_active
            and greatest(coalesce(last_seen_on_site_at, activated_at), activated_at) < ${cutoff.toISOString()}
          returning id, sim_iccid`,
    );
  },

  // ── Clips ──────────────────────────────────────────────────────────────────────────────

  async insertClip(
    executor: Executor,
    values: {
      livestreamId: string;
      slot: string;
      durationSeconds: number;
      storageKey: string;
      now: Date;
    },
  ): Promise<ClipRow> {
    const [row] = await executor
      .insert(clips)
      .values({
        livestreamId: values.livestreamId,
        slot: values.slot,
        status: 'recording',
        durationSeconds: values.durationSeconds,
        storageKey: values.storageKey,
        recordedAt: values.now,
      })
      .returning();
    return row!;
  },

  /**
   * Claims the recording of a scheduled slot for the process `claimedBy`: inserts its clip, or
   * takes over an attempt that failed (a retry) or whose process is dead (docs/decisions/073).
   * Undefined when a living process has it or it is done: the slot is then left alone, so a
   * late retry of a dead worker's job records nothing twice.
   */
  async claimSlot(
    executor: Executor,
    values: {
      livestreamId: string;
      slot: string;
      durationSeconds: number;
      storageKey: string;
      now: Date;
      /** Wall-clock time: whether the process holding a claim is alive (lib/instance.ts). */
      aliveAt: Date;
      claimedBy: string;
      /** Rows from before claims were recorded (no claimant) count as stalled before this. */
      staleBefore: Date;
    },
  ): Promise<ClipRow | undefined> {
    const [row] = await queryRows<{ id: string }>(
      executor,
      sql`insert into clips (livestream_id, slot, status, duration_seconds, storage_key, recorded_at, claimed_by)
          values (${values.livestreamId}, ${values.slot}, 'recording', ${values.durationSeconds},
                  ${values.storageKey}, ${values.now.toISOString()}, ${values.claimedBy})
          on conflict (livestream_id, slot) do update
            set status = 'recording', error = null, recorded_at = excluded.recorded_at,
                duration_seconds = excluded.duration_seconds, claimed_by = excluded.claimed_by
          where clips.status = 'failed'
             or (clips.status = 'recording' and ${claimIsFree(values.aliveAt, values.staleBefore)})
          returning id`,
    );
    return row ? this.findClip(executor, row.id) : undefined;
  },

  /**
   * Claims an on-request clip for the process `claimedBy`: one waiting for a worker, one whose
   * attempt failed (the retry), or one whose process died. Undefined when it is recorded, a
   * living process has it, or it was given up after its worker died (recoveries > 0).
   */
  async claimClip(
    executor: Executor,
    values: { clipId: string; now: Date; aliveAt: Date; claimedBy: string },
  ): Promise<ClipRow | undefined> {
    const [row] = await executor
      .update(clips)
      .set({
        status: 'recording',
        error: null,
        recordedAt: values.now,
        claimedBy: values.claimedBy,
      })
      .where(
        and(
          eq(clips.id, values.clipId),
          eq(clips.recoveries, 0),
          sql`(${clips.status} = 'failed'
               or (${clips.status} = 'recording'
                   and (${clips.claimedBy} is null or not ${isAliveSql(clips.claimedBy, values.aliveAt)})))`,
        ),
      )
      .returning();
    return row;
  },

  /**
   * Clips being recorded by processes that are dead at `now`: what the recovery job takes over.
   */
  async listDeadClaims(
    executor: Executor,
    now: Date,
  ): Promise<
    {
      id: string;
      livestream_id: string;
      slot: string | null;
      claimed_by: string;
      recoveries: number;
    }[]
  > {
    return queryRows(
      executor,
      sql`select id, livestream_id, slot, claimed_by, recoveries from clips
          where status = 'recording' and claimed_by is not null
            and not ${isAliveSql(sql`clips.claimed_by`, now)}
          order by recorded_at`,
    );
  },

  /**
   * Hands a dead process's clip over once: the claim is dropped and the recovery counted,
   * provided the dead process still holds it. The clip then waits, 'recording' with no claimant,
   * for the job queued for it (listAwaitingRecovery). False when another worker (running the
   * same job at the same moment) or a retry got there first.
   */
  async takeDeadClaim(
    executor: Executor,
    clip: { id: string; claimedBy: string },
  ): Promise<boolean> {
    const rows = await executor
      .update(clips)
      .set({ claimedBy: null, recoveries: sql`${clips.recoveries} + 1` })
      .where(stillHeldBy(clip))
      .returning({ id: clips.id });
    return rows.length > 0;
  },

  /**
   * Deletes a slot's clip that waits for its recovery job when that job finds the slot no longer
   * to be recorded (schedule off, plan changed): like any skipped slot, it then has no clip.
   */
  async dropAwaitingRecovery(executor: Executor, livestreamId: string, slot: string) {
    await executor
      .delete(clips)
      .where(
        and(
          eq(clips.livestreamId, livestreamId),
          eq(clips.slot, slot),
          eq(clips.status, 'recording'),
          sql`${clips.claimedBy} is null and ${clips.recoveries} > 0`,
        ),
      );
  },

  /** Scheduled clips handed over by the recovery and not claimed again yet: their job is due. */
  async listAwaitingRecovery(
    executor: Executor,
  ): Promise<{ id: string; livestream_id: string; slot: string }[]> {
    return queryRows(
      executor,
      sql`select id, livestream_id, slot from clips
          where status = 'recording' and claimed_by is null and recoveries > 0
            and slot is not null and slot not like 'preview:%' and slot not like 'now:%'`,
    );
  },

  /**
   * Gives up a clip whose process is gone: failed with a reason the customer reads, the claim
   * released, counted as recovered (a late retry of its job then leaves it alone). Only while
   * `claimedBy` still holds it.
   */
  async releaseClaim(
    executor: Executor,
    clip: { id: string; claimedBy: string },
    error: string,
    /** False for a scheduled slot this process hands to pg-boss's retry on shutdown. */
    options: { isRecovery: boolean } = { isRecovery: true },
  ): Promise<boolean> {
    const rows = await executor
      .update(clips)
      .set({
        status: 'failed',
        error,
        claimedBy: null,
        ...(options.isRecovery ? { recoveries: sql`${clips.recoveries} + 1` } : {}),
      })
      .where(stillHeldBy(clip))
      .returning({ id: clips.id });
    return rows.length > 0;
  },

  async findClip(executor: Executor, clipId: string): Promise<ClipRow | undefined> {
    const [row] = await executor.select().from(clips).where(eq(clips.id, clipId));
    return row;
  },

  async findClipByKey(
    executor: Executor,
    livestreamId: string,
    storageKey: string,
  ): Promise<ClipRow | undefined> {
    const [row] = await executor
      .select()
      .from(clips)
      .where(and(eq(clips.livestreamId, livestreamId), eq(clips.storageKey, storageKey)));
    return row;
  },

  /**
   * Fails an on-request clip that is still waiting for its worker (no claim), counted as
   * recovered so a retry of its job leaves it alone: a job that reached a stopping process.
   */
  async failUnclaimed(executor: Executor, clipId: string, error: string): Promise<void> {
    await executor
      .update(clips)
      .set({ status: 'failed', error, recoveries: sql`${clips.recoveries} + 1` })
      .where(
        and(eq(clips.id, clipId), eq(clips.status, 'recording'), sql`${clips.claimedBy} is null`),
      );
  },

  /**
   * Writes the outcome of an attempt. With `claimedBy`, only while that process still holds the
   * claim: a worker declared dead during a long pause does not overwrite the clip its successor
   * took over.
   */
  async finishClip(
    executor: Executor,
    clipId: string,
    result: { status: 'ready'; sizeBytes: number } | { status: 'failed'; error: string },
    claimedBy?: string,
  ): Promise<void> {
    await executor
      .update(clips)
      .set(
        result.status === 'ready'
          ? { status: 'ready', sizeBytes: result.sizeBytes, error: null }
          : { status: 'failed', error: result.error },
      )
      .where(
        claimedBy === undefined
          ? eq(clips.id, clipId)
          : and(eq(clips.id, clipId), eq(clips.claimedBy, claimedBy)),
      );
  },

  // ── Clips waiting for storage (docs/decisions/105) ──────────────────────────────────────

  /**
   * A recorded clip whose file storage did not take: from `recording` (held by `claimedBy`) to
   * `uploading`, unclaimed, its file in this machine's upload spool. False when the claim had
   * moved on (this process was thought dead): the spool then drops the file.
   */
  async awaitUpload(executor: Executor, clipId: string, claimedBy: string): Promise<boolean> {
    const rows = await executor
      .update(clips)
      .set({ status: 'uploading', claimedBy: null })
      .where(stillHeldBy({ id: clipId, claimedBy }))
      .returning({ id: clips.id });
    return rows.length > 0;
  },

  /**
   * Takes an `uploading` clip for the process `claimedBy` to store its file: one nobody holds,
   * one this process held (an upload of its that failed half-way), or a dead process's.
   */
  async claimUpload(
    executor: Executor,
    values: { clipId: string; claimedBy: string; aliveAt: Date },
  ): Promise<{ storage_key: string } | undefined> {
    const [row] = await queryRows<{ storage_key: string }>(
      executor,
      sql`update clips set claimed_by = ${values.claimedBy}
          where id = ${values.clipId} and status = 'uploading' and storage_key is not null
            and (claimed_by is null or claimed_by = ${values.claimedBy}
                 or not ${isAliveSql(sql`clips.claimed_by`, values.aliveAt)})
          returning storage_key`,
    );
    return row;
  },

  /** Where a clip stands for the spool: its status and whether a living process holds it. */
  async uploadState(
    executor: Executor,
    clipId: string,
    aliveAt: Date,
  ): Promise<{ status: string; is_held: boolean } | undefined> {
    const [row] = await queryRows<{ status: string; is_held: boolean }>(
      executor,
      sql`select status, (claimed_by is not null
                          and ${isAliveSql(sql`clips.claimed_by`, aliveAt)}) as is_held
          from clips where id = ${clipId}`,
    );
    return row;
  },

  /** The file is in storage: ready, while `claimedBy` holds it. Its livestream and slot. */
  async finishUpload(
    executor: Executor,
    values: { clipId: string; claimedBy: string; sizeBytes: number },
  ): Promise<{ livestreamId: string; slot: string | null } | undefined> {
    const [row] = await executor
      .update(clips)
      .set({ status: 'ready', sizeBytes: values.sizeBytes, error: null, claimedBy: null })
      .where(
        and(
          eq(clips.id, values.clipId),
          eq(clips.status, 'uploading'),
          eq(clips.claimedBy, values.claimedBy),
        ),
      )
      .returning({ livestreamId: clips.livestreamId, slot: clips.slot });
    return row;
  },

  /** An upload that failed: the clip waits again for any process. */
  async releaseUpload(executor: Executor, clipId: string, claimedBy: string): Promise<void> {
    await executor
      .update(clips)
      .set({ claimedBy: null })
      .where(
        and(eq(clips.id, clipId), eq(clips.status, 'uploading'), eq(clips.claimedBy, claimedBy)),
      );
  },

  /**
   * Gives up clips whose file has waited since before `before` with nobody storing it: the
   * machine that holds it is gone. Failed with `error`; returns how many.
   */
  async failAbandonedUploads(
    executor: Executor,
    values: { before: Date; aliveAt: Date; error: string },
  ): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      executor,
      sql`update clips set status = 'failed', error = ${values.error}, claimed_by = null
          where status = 'uploading' and recorded_at < ${values.before.toISOString()}
            and (claimed_by is null or not ${isAliveSql(sql`clips.claimed_by`, values.aliveAt)})
          returning id`,
    );
    return rows.length;
  },

  /**
   * The clip the embed plays: the newest ready one, preferring real recordings to the setup's
   * silent 5-second preview.
   */
  async latestPlayableClip(executor: Executor, livestreamId: string): Promise<ClipRow | undefined> {
    const [row] = await executor
      .select()
      .from(clips)
      .where(and(eq(clips.livestreamId, livestreamId), eq(clips.status, 'ready')))
      .orderBy(sql`(${clips.slot} like 'preview:%')`, desc(clips.recordedAt))
      .limit(1);
    return row;
  },

  /** Ready clips beyond the newest `keep`, and other rows beyond the newest `keep`: to delete. */
  async clipsBeyondHistory(
    executor: Executor,
    livestreamId: string,
    keep: number,
  ): Promise<{ id: string; storage_key: string | null; status: string }[]> {
    return queryRows(
      executor,
      sql`select id, storage_key, status from (
            select id, storage_key, status,
                   row_number() over (partition by (status = 'ready') order by recorded_at desc, id desc) as position
            from clips where livestream_id = ${livestreamId}
              and status not in ('recording', 'uploading')
          ) ranked where position > ${keep}`,
    );
  },

  async deleteClip(executor: Executor, clipId: string): Promise<void> {
    await executor.delete(clips).where(eq(clips.id, clipId));
  },

  async clipStats(
    executor: Executor,
    livestreamIds: string[],
    since: Date,
    /** The current UK hour's slot: whether it has been recorded (or tried) yet. */
    currentSlot: string,
  ): Promise<ClipStatsRow[]> {
    if (livestreamIds.length === 0) return [];
    return queryRows<ClipStatsRow>(
      executor,
      sql`select l.id as livestream_id,
                 (select max(recorded_at) from clips c where c.livestream_id = l.id and c.status = 'ready') as latest_clip_at,
                 (select count(*)::int from clips c where c.livestream_id = l.id and c.status = 'failed'
                    and c.recorded_at >= ${since.toISOString()}) as failures,
                 f.recorded_at as last_failure_at, f.error as last_failure_error,
                 exists (select 1 from clips c where c.livestream_id = l.id
                           and c.slot = ${currentSlot}) as has_current_slot
          from livestreams l
          left join lateral (
            select recorded_at, error from clips c
            where c.livestream_id = l.id and c.status = 'failed'
            order by recorded_at desc limit 1
          ) f on true
          where l.id in (${sql.join(
            livestreamIds.map((id) => sql`${id}`),
            sql`, `,
          )})`,
    );
  },

  // ── Views ──────────────────────────────────────────────────────────────────────────────

  /**
   * One view on a day from a site. A stream records at most `sitesPerDay` distinct sites a day;
   * views from further sites are counted together under `otherSitesHost`, so invented sites
   * cannot add rows without bound.
   */
  async countView(
    executor: Executor,
    values: { livestreamId: string; day: string; referrerHost: string; sitesPerDay: number },
  ): Promise<void> {
    const { livestreamId, day, referrerHost } = values;
    await executor.execute(
      sql`insert into livestream_views (livestream_id, day, referrer_host, views)
          select ${livestreamId}::uuid, ${day}::date,
            case when exists (
                select 1 from livestream_views
                where livestream_id = ${livestreamId} and day = ${day} and referrer_host = ${referrerHost}
              ) or (
                select count(*) from livestream_views
                where livestream_id = ${livestreamId} and day = ${day}
              ) < ${values.sitesPerDay}
              then ${referrerHost}::text else ${otherSitesHost}::text end,
            1
          on conflict (livestream_id, day, referrer_host) do update set views = livestream_views.views + 1`,
    );
  },

  async markSeenOnSite(executor: Executor, livestreamId: string, at: Date): Promise<void> {
    await executor
      .update(livestreams)
      // Seen again: a new 10-day grace, whose day-7 warning may go out again (decision 096).
      .set({ lastSeenOnSiteAt: at, switchOffWarnedAt: null })
      .where(eq(livestreams.id, livestreamId));
  },

  async viewsByDay(
    executor: Executor,
    livestreamIds: string[],
    fromDay: string,
  ): Promise<ViewsDayRow[]> {
    if (livestreamIds.length === 0) return [];
    return queryRows<ViewsDayRow>(
      executor,
      sql`select livestream_id, day::text as day, sum(views)::int as views
          from livestream_views
          where day >= ${fromDay} and livestream_id in (${sql.join(
            livestreamIds.map((id) => sql`${id}`),
            sql`, `,
          )})
          group by livestream_id, day order by day`,
    );
  },
};
