/**
 * SQL for recording (docs/decisions/073, 105, 163): clips (one per livestream and slot) and the
 * claims of the processes recording them, clips whose file waits for storage, the history kept
 * per livestream, the camera's address as the SIM platform last gave it, and the demo clip's
 * state in app_settings.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { appSettings, clips, livestreams } from '../../db/schema.ts';
import { isAliveSql } from '../../lib/instance.ts';

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

const showcaseKey = 'livestream-showcase';
const showcaseFailureKey = 'livestream-showcase-failure';

/** The demo clip: where it is stored and when it was recorded, and the one before it. */
export interface ShowcaseState {
  storageKey: string;
  recordedAt: string;
  previousKey: string | null;
}

/** The last failed attempt at the demo clip. */
export interface ShowcaseFailure {
  at: string;
  reason: string;
}

export const recordingRepository = {
  /** The camera's RTSP address as the SIM platform gave it last (it may move). */
  async saveCameraAddress(
    executor: Executor,
    livestreamId: string,
    address: { cameraHost: string; cameraPort: number },
  ): Promise<void> {
    await executor.update(livestreams).set(address).where(eq(livestreams.id, livestreamId));
  },

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

  // ── The demo clip (docs/decisions/046) ──────────────────────────────────────────────────

  /** The demo clip's state and its last failed attempt, if any. */
  async readShowcase(
    executor: Executor,
  ): Promise<{ state: ShowcaseState | undefined; failure: ShowcaseFailure | undefined }> {
    const rows = await executor
      .select()
      .from(appSettings)
      .where(inArray(appSettings.key, [showcaseKey, showcaseFailureKey]));
    return {
      state: rows.find((row) => row.key === showcaseKey)?.value as ShowcaseState | undefined,
      failure: rows.find((row) => row.key === showcaseFailureKey)?.value as
        ShowcaseFailure | undefined,
    };
  },

  async saveShowcase(executor: Executor, state: ShowcaseState, at: Date): Promise<void> {
    await executor
      .insert(appSettings)
      .values({ key: showcaseKey, value: state })
      .onConflictDoUpdate({ target: appSettings.key, set: { value: state, updatedAt: at } });
  },

  async saveShowcaseFailure(executor: Executor, failure: ShowcaseFailure, at: Date): Promise<void> {
    await executor
      .insert(appSettings)
      .values({ key: showcaseFailureKey, value: failure })
      .onConflictDoUpdate({ target: appSettings.key, set: { value: failure, updatedAt: at } });
  },
};
