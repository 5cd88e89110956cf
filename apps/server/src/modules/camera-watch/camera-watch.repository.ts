/**
 * SQL of the cameras' watch (decision 094): per-camera alert settings, what the silence
 * detection looks at, and the silences themselves (at most one open per SIM: a unique index).
 */
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { currentSubscriptionFirst } from '../../db/current-subscription.ts';
import { cameraHeartbeats, cameraSilences, cameraWatchSettings } from '../../db/schema.ts';
import { cameraAlertLimits } from '@farmcam/contract/rules';

export type WatchSettingsRow = typeof cameraWatchSettings.$inferSelect;
export type SilenceRow = typeof cameraSilences.$inferSelect;

/** One camera as the detection sees it. */
export interface WatchedCamera {
  iccid: string;
  nickname: string | null;
  customer_id: string;
  owner_email: string;
  /** Null: the alert is off, or the camera is paused, barred or not active (never alerts). */
  silence_hours: number | null;
  last_heard_ms: number | null;
  silence_id: string | null;
  silent_since_ms: number | null;
  alerted_at_ms: number | null;
}

export const cameraWatchRepository = {
  /** A camera's settings row, undefined when it has none (every setting at its default). */
  findSettings: async (executor: Executor, iccid: string) => {
    const [row] = await executor
      .select()
      .from(cameraWatchSettings)
      .where(eq(cameraWatchSettings.simIccid, iccid));
    return row;
  },

  saveSettings: async (
    executor: Executor,
    iccid: string,
    settings: Pick<
      WatchSettingsRow,
      'silenceHours' | 'dataAlertPercent' | 'pauseDataAtAllowance' | 'noClipHours'
    >,
    now: Date,
  ) => {
    const [row] = await executor
      .insert(cameraWatchSettings)
      .values({ simIccid: iccid, ...settings, updatedAt: now })
      .onConflictDoUpdate({
        target: cameraWatchSettings.simIccid,
        set: { ...settings, updatedAt: now },
      })
      .returning();
    return row!;
  },

  /**
   * Every customer camera that is watched (active, unbarred, its plan not paused today) or has
   * an open silence, with its silence setting (the default without a row), when it was last
   * heard and its open silence. One statement per run.
   */
  watchedCameras: async (executor: Executor, today: string): Promise<WatchedCamera[]> =>
    queryRows<WatchedCamera>(
      executor,
      sql`
      select s.iccid, s.nickname, s.customer_id, c.email as owner_email,
        case
          when s.state <> 'active' or s.is_barred or plan.is_paused then null
          when ws.sim_iccid is null then ${cameraAlertLimits.silenceHours.default}::int
          else ws.silence_hours
        end as silence_hours,
        floor(date_part('epoch', greatest(hb.last_data_at, hb.last_report_at)) * 1000)
          as last_heard_ms,
        open.id as silence_id,
        floor(date_part('epoch', open.silent_since) * 1000) as silent_since_ms,
        floor(date_part('epoch', open.alerted_at) * 1000) as alerted_at_ms
      from sims s
      join customers c on c.id = s.customer_id
      left join camera_watch_settings ws on ws.sim_iccid = s.iccid
      left join camera_heartbeats hb on hb.sim_iccid = s.iccid
      left join camera_silences open on open.sim_iccid = s.iccid and open.ended_at is null
      left join lateral (
        select sub.status = 'paused' or (
          sub.pause_starts_on is not null and sub.pause_resumes_on is not null
          and sub.pause_starts_on <= ${today}::date and ${today}::date < sub.pause_resumes_on
          and sub.status not in ('canceled', 'incomplete')
        ) as is_paused
        from subscriptions sub
        where sub.sim_iccid = s.iccid
        order by ${currentSubscriptionFirst('sub')}
        limit 1
      ) plan on true
      where s.customer_id is not null
        and ((s.state = 'active' and not s.is_barred) or open.id is not null)
      order by s.iccid`,
    ),

  /** The camera's open silence, if any. */
  findOpenSilence: async (executor: Executor, iccid: string) => {
    const [row] = await executor
      .select()
      .from(cameraSilences)
      .where(and(eq(cameraSilences.simIccid, iccid), isNull(cameraSilences.endedAt)));
    return row;
  },

  /** Opens a silence unless one is open already (another run, another process): its id or null. */
  openSilence: async (executor: Executor, iccid: string, silentSince: Date, now: Date) => {
    const [row] = await executor
      .insert(cameraSilences)
      .values({ simIccid: iccid, silentSince, detectedAt: now })
      .onConflictDoNothing({
        target: cameraSilences.simIccid,
        where: sql`ended_at is null`,
      })
      .returning({ id: cameraSilences.id });
    return row?.id ?? null;
  },

  /** Claims the silence's alert: true for the one run that may send it. */
  claimAlert: async (executor: Executor, silenceId: string, now: Date) => {
    const rows = await executor
      .update(cameraSilences)
      .set({ alertedAt: now })
      .where(
        and(
          eq(cameraSilences.id, silenceId),
          isNull(cameraSilences.alertedAt),
          isNull(cameraSilences.endedAt),
        ),
      )
      .returning({ id: cameraSilences.id });
    return rows.length > 0;
  },

  releaseAlert: (executor: Executor, silenceId: string) =>
    executor
      .update(cameraSilences)
      .set({ alertedAt: null })
      .where(eq(cameraSilences.id, silenceId)),

  /**
   * Ends an open silence (the camera heard at `heardAt`, or no longer watched) and claims its
   * back-again e-mail in the same write: the row when this run ended it, else undefined.
   */
  endSilence: async (executor: Executor, silenceId: string, heardAt: Date, now: Date) => {
    const [row] = await executor
      .update(cameraSilences)
      .set({ endedAt: heardAt, recoveryAlertedAt: now })
      .where(and(eq(cameraSilences.id, silenceId), isNull(cameraSilences.endedAt)))
      .returning();
    return row;
  },

  releaseRecoveryAlert: (executor: Executor, silenceId: string) =>
    executor
      .update(cameraSilences)
      .set({ recoveryAlertedAt: null })
      .where(eq(cameraSilences.id, silenceId)),

  /** Ended, alerted silences whose back-again e-mail failed and is owed (since `after`). */
  owedRecoveries: async (executor: Executor, after: Date) =>
    executor
      .select()
      .from(cameraSilences)
      .where(
        and(
          isNotNull(cameraSilences.endedAt),
          isNotNull(cameraSilences.alertedAt),
          isNull(cameraSilences.recoveryAlertedAt),
          sql`${cameraSilences.endedAt} > ${after.toISOString()}::timestamptz`,
        ),
      ),

  claimRecoveryAlert: async (executor: Executor, silenceId: string, now: Date) => {
    const rows = await executor
      .update(cameraSilences)
      .set({ recoveryAlertedAt: now })
      .where(and(eq(cameraSilences.id, silenceId), isNull(cameraSilences.recoveryAlertedAt)))
      .returning({ id: cameraSilences.id });
    return rows.length > 0;
  },

  /** The camera's name and owner, for a silence's e-mails. */
  cameraOf: async (executor: Executor, iccid: string) => {
    const [row] = await queryRows<{
      nickname: string | null;
      customer_id: string;
      owner_email: string;
    }>(
      executor,
      sql`select s.nickname, s.customer_id, c.email as owner_email
        from sims s join customers c on c.id = s.customer_id where s.iccid = ${iccid}`,
    );
    return row;
  },

  /**
   * Development only: the camera's heartbeats no later than `since`, as if it had gone silent
   * then (the dev route makes a camera silent in the past without waiting hours).
   */
  rewindHeartbeat: (executor: Executor, iccid: string, since: Date) =>
    executor
      .update(cameraHeartbeats)
      .set({
        lastDataAt: sql`least(${cameraHeartbeats.lastDataAt}, ${since.toISOString()}::timestamptz)`,
        lastReportAt: sql`least(${cameraHeartbeats.lastReportAt}, ${since.toISOString()}::timestamptz)`,
      })
      .where(eq(cameraHeartbeats.simIccid, iccid)),

  /** Tells every process's dashboard cache that this account's cameras changed. */
  notifyCameraChanges: (executor: Executor, customerId: string) =>
    queryRows(executor, sql`select pg_notify('camera_changes', ${customerId})`),
};
