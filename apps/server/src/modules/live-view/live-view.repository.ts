/**
 * SQL for live view (decisions 151-159): a camera's facts for the refusal rules, the shared pull
 * (one open session per camera, held by a worker's `alive_at`), its viewers, and cleanup.
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { currentPlanOf } from '../../db/current-subscription.ts';
import {
  liveViewSessions,
  liveViewSettings,
  liveViewViewers,
  type LiveViewSessionStatus,
  type SimState,
  type SubscriptionStatus,
} from '../../db/schema.ts';

export type LiveViewSessionRow = typeof liveViewSessions.$inferSelect;
export type LiveViewViewerRow = typeof liveViewViewers.$inferSelect;

/** What the refusal rules need about one camera, this month. */
export interface LiveViewCameraFacts {
  iccid: string;
  customer_id: string;
  billing_customer_id: string | null;
  nickname: string | null;
  state: SimState;
  is_barred: boolean;
  subscription_status: SubscriptionStatus | null;
  pause_starts_on: string | null;
  pause_resumes_on: string | null;
  product_name: string | null;
  /** The product's Hours metadata as written ('120'), or null. */
  hours_metadata: string | null;
  data_allowance_gb: number | null;
  is_enabled: boolean;
  is_data_capped: boolean;
  month_bytes: number;
  seconds_used: number;
  still_key: string | null;
  still_taken_at: Date | string | null;
  still_source: 'clip' | 'live' | 'timelapse' | null;
}

export const liveViewRepository = {
  /**
   * The camera's current plan (db/current-subscription.ts), the owner's switch, this month's
   * data cap (UK month, decision 095) and use (the UTC month usage is kept in), and the seconds
   * of live pulls started since `hoursFrom`.
   */
  async cameraFacts(
    executor: Executor,
    input: {
      iccid: string;
      customerId: string;
      capMonth: string;
      usageMonth: string;
      hoursFrom: Date;
      now: Date;
    },
  ): Promise<LiveViewCameraFacts | undefined> {
    const [row] = await queryRows<LiveViewCameraFacts>(
      executor,
      sql`
      select s.iccid, s.customer_id, s.billing_customer_id, s.nickname, s.state, s.is_barred,
             plan.status as subscription_status,
             plan.pause_starts_on::text as pause_starts_on,
             plan.pause_resumes_on::text as pause_resumes_on,
             plan.product_name, plan.product_metadata->>'Hours' as hours_metadata,
             plan.data_allowance_gb,
             coalesce(setting.is_enabled, true) as is_enabled,
             exists (select 1 from data_caps cap
                     where cap.sim_iccid = s.iccid and cap.month = ${input.capMonth}
                       and cap.capped_at is not null and cap.resumed_at is null) as is_data_capped,
             coalesce((select usage.bytes from monthly_usage usage
                       where usage.sim_iccid = s.iccid and usage.month = ${input.usageMonth}::date), 0)::bigint
               as month_bytes,
             coalesce((select sum(extract(epoch from
                         least(coalesce(session.ended_at, ${input.now.toISOString()}::timestamptz),
                               ${input.now.toISOString()}::timestamptz) - session.pull_started_at))
                       from live_view_sessions session
                       where session.sim_iccid = s.iccid
                         and session.pull_started_at >= ${input.hoursFrom.toISOString()}), 0)::int
               as seconds_used,
             still.storage_key as still_key, still.taken_at as still_taken_at,
             still.source as still_source
      from sims s
      left join lateral ${currentPlanOf(sql`s.iccid`)} plan on true
      left join live_view_settings setting on setting.sim_iccid = s.iccid
      left join camera_stills still on still.sim_iccid = s.iccid
      where s.iccid = ${input.iccid} and s.customer_id = ${input.customerId}`,
    );
    return row
      ? {
          ...row,
          month_bytes: Number(row.month_bytes),
          seconds_used: Math.max(0, Number(row.seconds_used)),
        }
      : undefined;
  },

  /** Every camera of the customer: its plan's Hours metadata and its latest still, if any. */
  async listCameras(
    executor: Executor,
    customerId: string,
  ): Promise<
    {
      iccid: string;
      hours_metadata: string | null;
      still_key: string | null;
      still_taken_at: Date | string | null;
      still_source: 'clip' | 'live' | 'timelapse' | null;
    }[]
  > {
    return queryRows(
      executor,
      sql`
      select s.iccid, plan.product_metadata->>'Hours' as hours_metadata,
             still.storage_key as still_key,
             still.taken_at as still_taken_at, still.source as still_source
      from sims s
      left join lateral ${currentPlanOf(sql`s.iccid`)} plan on true
      left join camera_stills still on still.sim_iccid = s.iccid
      where s.customer_id = ${customerId} and s.state <> 'stock'
      order by s.created_at, s.iccid`,
    );
  },

  /** The active plans whose Hours include live viewing, fewest data first. */
  async plansWithHours(executor: Executor): Promise<{ name: string; hours: string }[]> {
    return queryRows(
      executor,
      sql`select name, metadata->>'Hours' as hours from products
          where is_active and coalesce((metadata->>'Hours') ~ '^[0-9]+(\\.[0-9]+)?$', false)
            and (metadata->>'Hours')::numeric > 0
          order by data_allowance_gb, name`,
    );
  },

  async setEnabled(executor: Executor, iccid: string, isEnabled: boolean, now: Date) {
    await executor
      .insert(liveViewSettings)
      .values({ simIccid: iccid, isEnabled, updatedAt: now })
      .onConflictDoUpdate({
        target: liveViewSettings.simIccid,
        set: { isEnabled, updatedAt: now },
      });
  },

  async openSession(executor: Executor, iccid: string): Promise<LiveViewSessionRow | undefined> {
    const [row] = await executor
      .select()
      .from(liveViewSessions)
      .where(
        and(
          eq(liveViewSessions.simIccid, iccid),
          inArray(liveViewSessions.status, ['starting', 'live']),
        ),
      );
    return row;
  },

  /** The camera's open session, made if there is none (one per camera: a unique index). */
  async ensureOpenSession(
    executor: Executor,
    input: { iccid: string; customerId: string; now: Date },
  ): Promise<{ session: LiveViewSessionRow; isNew: boolean }> {
    const [inserted] = await queryRows<{ id: string }>(
      executor,
      sql`insert into live_view_sessions (sim_iccid, customer_id, requested_at)
          values (${input.iccid}, ${input.customerId}, ${input.now.toISOString()})
          on conflict (sim_iccid) where status in ('starting', 'live') do nothing
          returning id`,
    );
    const session = await this.openSession(executor, input.iccid);
    if (!session) throw new Error('The open live view session vanished');
    return { session, isNew: inserted !== undefined };
  },

  async findSession(executor: Executor, id: string): Promise<LiveViewSessionRow | undefined> {
    const [row] = await executor.select().from(liveViewSessions).where(eq(liveViewSessions.id, id));
    return row;
  },

  async insertViewer(
    executor: Executor,
    values: typeof liveViewViewers.$inferInsert,
  ): Promise<LiveViewViewerRow> {
    const [row] = await executor.insert(liveViewViewers).values(values).returning();
    return row!;
  },

  async findViewer(
    executor: Executor,
    input: { viewerId: string; iccid: string; customerId: string },
  ): Promise<LiveViewViewerRow | undefined> {
    const [row] = await executor
      .select()
      .from(liveViewViewers)
      .where(
        and(
          eq(liveViewViewers.id, input.viewerId),
          eq(liveViewViewers.simIccid, input.iccid),
          eq(liveViewViewers.customerId, input.customerId),
        ),
      );
    return row;
  },

  async findViewerByToken(
    executor: Executor,
    playToken: string,
  ): Promise<{ viewer: LiveViewViewerRow; session: LiveViewSessionRow } | undefined> {
    const [row] = await executor
      .select({ viewer: liveViewViewers, session: liveViewSessions })
      .from(liveViewViewers)
      .innerJoin(liveViewSessions, eq(liveViewSessions.id, liveViewViewers.sessionId))
      .where(eq(liveViewViewers.playToken, playToken));
    return row;
  },

  async touchViewer(
    executor: Executor,
    viewerId: string,
    values: { lastSeenAt: Date; confirmedAt?: Date },
  ): Promise<void> {
    await executor
      .update(liveViewViewers)
      .set(values)
      .where(and(eq(liveViewViewers.id, viewerId), isNull(liveViewViewers.leftAt)));
  },

  /** Viewers still watching the session (not left, seen since `seenSince`). */
  async countWatching(executor: Executor, sessionId: string, seenSince: Date): Promise<number> {
    const [row] = await queryRows<{ count: number }>(
      executor,
      sql`select count(*)::int as count from live_view_viewers
          where session_id = ${sessionId} and left_at is null
            and last_seen_at >= ${seenSince.toISOString()}`,
    );
    return row?.count ?? 0;
  },

  /** Viewers still watching any of these sessions (a worker's own, for its metrics). */
  async countWatchingIn(
    executor: Executor,
    sessionIds: string[],
    seenSince: Date,
  ): Promise<number> {
    if (sessionIds.length === 0) return 0;
    const [row] = await queryRows<{ count: number }>(
      executor,
      sql`select count(*)::int as count from live_view_viewers
          where session_id in (select jsonb_array_elements_text(${JSON.stringify(sessionIds)}::jsonb)::uuid)
            and left_at is null and last_seen_at >= ${seenSince.toISOString()}`,
    );
    return row?.count ?? 0;
  },

  /**
   * Marks viewers as gone: those who left (`viewerId`), stopped beating before `seenBefore`, did
   * not answer "Still watching?" by `confirmedBefore`, or whose session is over. Returns them
   * with their camera's name, for the activity log.
   */
  async closeViewers(
    executor: Executor,
    input: { now: Date; seenBefore: Date; confirmedBefore: Date; viewerId?: string },
  ): Promise<(LiveViewViewerRow & { nickname: string | null; bytes_pulled: number })[]> {
    const rows = await queryRows<{
      id: string;
      nickname: string | null;
      bytes_pulled: string | number;
    }>(
      executor,
      sql`update live_view_viewers viewer
          set left_at = ${input.now.toISOString()}, bytes_at_leave = session.bytes_pulled
          from live_view_sessions session, sims sim
          where session.id = viewer.session_id and sim.iccid = viewer.sim_iccid
            and viewer.left_at is null
            and (${input.viewerId ? sql`viewer.id = ${input.viewerId}` : sql`false`}
                 or viewer.last_seen_at < ${input.seenBefore.toISOString()}
                 or viewer.confirmed_at < ${input.confirmedBefore.toISOString()}
                 or session.status in ('ended', 'failed'))
          returning viewer.id, sim.nickname, session.bytes_pulled`,
    );
    if (rows.length === 0) return [];
    const viewers = await executor
      .select()
      .from(liveViewViewers)
      .where(
        inArray(
          liveViewViewers.id,
          rows.map((row) => row.id),
        ),
      );
    return viewers.map((viewer) => {
      const row = rows.find((candidate) => candidate.id === viewer.id)!;
      return { ...viewer, nickname: row.nickname, bytes_pulled: Number(row.bytes_pulled) };
    });
  },

  async countOpenSessions(executor: Executor): Promise<number> {
    const [row] = await queryRows<{ count: number }>(
      executor,
      sql`select count(*)::int as count from live_view_sessions where status in ('starting', 'live')`,
    );
    return row?.count ?? 0;
  },

  /** Processes that pull live views (workers, or one process in every role) alive since then. */
  async countLiveWorkers(executor: Executor, aliveSince: Date): Promise<number> {
    const [row] = await queryRows<{ count: number }>(
      executor,
      sql`select count(*)::int as count from instances
          where role in ('worker', 'all') and gone_at is null
            and heartbeat_at >= ${aliveSince.toISOString()}`,
    );
    return row?.count ?? 0;
  },

  /**
   * Claims one open session nobody pulls: unclaimed, or its puller silent since `staleBefore`
   * (a worker killed mid-view: decision 153). The generation moves on, so the new pull writes
   * segments of its own.
   */
  async claimSession(
    executor: Executor,
    input: { instanceId: string; aliveAt: Date; staleBefore: Date; now: Date },
  ): Promise<LiveViewSessionRow | undefined> {
    const [row] = await queryRows<{ id: string }>(
      executor,
      sql`update live_view_sessions set claimed_by = ${input.instanceId},
            alive_at = ${input.aliveAt.toISOString()}, generation = generation + 1,
            pull_started_at = coalesce(pull_started_at, ${input.now.toISOString()}),
            updated_at = ${input.now.toISOString()}
          where id = (
            select id from live_view_sessions
            where status in ('starting', 'live')
              and (claimed_by is null or alive_at < ${input.staleBefore.toISOString()})
            order by requested_at
            limit 1
            for update skip locked)
          returning id`,
    );
    return row ? this.findSession(executor, row.id) : undefined;
  },

  /**
   * A puller's progress: the newest playlist, bytes received and keys stored. Null when the
   * session is no longer this process's (taken over, or ended): the pull stops.
   */
  async recordProgress(
    executor: Executor,
    input: {
      sessionId: string;
      instanceId: string;
      aliveAt: Date;
      now: Date;
      playlist?: string;
      bytes?: number;
      storedKeys?: string[];
    },
  ): Promise<LiveViewSessionRow | null> {
    const hasSegment = input.playlist !== undefined;
    const [row] = await executor
      .update(liveViewSessions)
      .set({
        aliveAt: input.aliveAt,
        updatedAt: input.now,
        ...(hasSegment
          ? {
              playlist: input.playlist,
              status: 'live' as const,
              firstSegmentAt: sql`coalesce(${liveViewSessions.firstSegmentAt}, ${input.now.toISOString()}::timestamptz)`,
            }
          : {}),
        ...(input.bytes
          ? { bytesPulled: sql`${liveViewSessions.bytesPulled} + ${input.bytes}` }
          : {}),
        ...(input.storedKeys ? { storedKeys: input.storedKeys } : {}),
      })
      .where(
        and(
          eq(liveViewSessions.id, input.sessionId),
          eq(liveViewSessions.claimedBy, input.instanceId),
          inArray(liveViewSessions.status, ['starting', 'live']),
        ),
      )
      .returning();
    return row ?? null;
  },

  /** Lets go of a pull (a worker shutting down), so the next worker's claim takes it at once. */
  async releaseClaim(executor: Executor, sessionId: string, instanceId: string): Promise<void> {
    await executor
      .update(liveViewSessions)
      .set({ claimedBy: null })
      .where(and(eq(liveViewSessions.id, sessionId), eq(liveViewSessions.claimedBy, instanceId)));
  },

  /** Ends an open session (any puller's); the ended row, or null when it was not open. */
  async endSession(
    executor: Executor,
    input: {
      sessionId: string;
      status: Extract<LiveViewSessionStatus, 'ended' | 'failed'>;
      reason: string | null;
      now: Date;
    },
  ): Promise<LiveViewSessionRow | null> {
    const [row] = await executor
      .update(liveViewSessions)
      .set({
        status: input.status,
        endReason: input.reason,
        endedAt: input.now,
        updatedAt: input.now,
      })
      .where(
        and(
          eq(liveViewSessions.id, input.sessionId),
          inArray(liveViewSessions.status, ['starting', 'live']),
        ),
      )
      .returning();
    return row ?? null;
  },

  /** Open sessions nobody watches any more (no viewer seen since `seenSince`). */
  async listUnwatched(executor: Executor, seenSince: Date): Promise<LiveViewSessionRow[]> {
    return executor
      .select()
      .from(liveViewSessions)
      .where(
        and(
          inArray(liveViewSessions.status, ['starting', 'live']),
          sql`not exists (select 1 from live_view_viewers viewer
                 where viewer.session_id = ${liveViewSessions.id} and viewer.left_at is null
                   and viewer.last_seen_at >= ${seenSince.toISOString()})`,
        ),
      );
  },

  /**
   * Deletes sessions over before `endedBefore` with their viewers (the Activity log keeps who
   * watched what); their files went long ago. Returns how many.
   */
  async purgeEnded(executor: Executor, endedBefore: Date): Promise<number> {
    const rows = await executor
      .delete(liveViewSessions)
      .where(
        and(
          inArray(liveViewSessions.status, ['ended', 'failed']),
          sql`${liveViewSessions.endedAt} < ${endedBefore.toISOString()}`,
          sql`jsonb_array_length(${liveViewSessions.storedKeys}) = 0`,
        ),
      )
      .returning({ id: liveViewSessions.id });
    return rows.length;
  },

  /** Sessions over whose stored segments are not all deleted yet. */
  async listUncleaned(executor: Executor): Promise<LiveViewSessionRow[]> {
    return executor
      .select()
      .from(liveViewSessions)
      .where(
        and(
          inArray(liveViewSessions.status, ['ended', 'failed']),
          sql`jsonb_array_length(${liveViewSessions.storedKeys}) > 0`,
        ),
      )
      .limit(50);
  },

  /** Forgets keys that were deleted from storage (the rest stay listed for the next sweep). */
  async forgetKeys(executor: Executor, sessionId: string, deleted: string[]): Promise<void> {
    if (deleted.length === 0) return;
    await executor.execute(
      sql`update live_view_sessions
          set stored_keys = coalesce((select jsonb_agg(key) from jsonb_array_elements_text(stored_keys) key
                                      where not (${JSON.stringify(deleted)}::jsonb ? key)), '[]'::jsonb)
          where id = ${sessionId}`,
    );
  },
};
