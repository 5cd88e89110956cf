/**
 * SQL for the livestream's alerts and the 10-day rule (docs/decisions/096, 163): who owns a
 * camera, the day-7 warnings and the switch-off, both counted from the same start of the grace
 * period, and the "no clip" alerts with each livestream's newest clip. Each alert is claimed by a
 * conditional update before it is sent and given back when sending fails.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';

/**
 * SQL: when a livestream's 10 days without a sighting on a website started: its last sighting,
 * or when its schedule was last switched on if that is later (or it was never seen).
 */
const graceStart = sql`greatest(coalesce(last_seen_on_site_at, activated_at), activated_at)`;

export interface OwnerRow {
  customer_id: string;
  email: string;
  nickname: string | null;
}

/** A configured livestream whose camera's settings ask for "no clip" alerts, or that has one out. */
export interface ClipWatchRow {
  id: string;
  sim_iccid: string;
  is_active: boolean;
  schedule_hours: number[];
  schedule_days: string[];
  activated_at: Date | string | null;
  no_clip_alerted_at: Date | string | null;
  no_clip_hours: number;
  last_clip_at: Date | string | null;
}

export const livestreamAlertsRepository = {
  /** The customer who owns the camera, their e-mail address, and the camera's nickname. */
  async ownerOf(executor: Executor, iccid: string): Promise<OwnerRow | undefined> {
    const [owner] = await queryRows<OwnerRow>(
      executor,
      sql`select customers.id as customer_id, customers.email, sims.nickname from sims
          join customers on customers.id = sims.customer_id where sims.iccid = ${iccid}`,
    );
    return owner;
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
            and ${graceStart} < ${cutoff.toISOString()}
          returning id, sim_iccid`,
    );
  },

  /**
   * Claims the warning of active livestreams whose grace started before `warnBefore` and not
   * before `offBefore` (not switched off yet), once per grace period; returns them with the start.
   */
  async claimSwitchOffWarnings(
    executor: Executor,
    values: { warnBefore: Date; offBefore: Date; now: Date },
  ): Promise<{ id: string; sim_iccid: string; since: Date | string }[]> {
    return queryRows<{ id: string; sim_iccid: string; since: Date | string }>(
      executor,
      sql`update livestreams set switch_off_warned_at = ${values.now.toISOString()}
          where is_active
            and ${graceStart} < ${values.warnBefore.toISOString()}
            and ${graceStart} >= ${values.offBefore.toISOString()}
            and (switch_off_warned_at is null or switch_off_warned_at < ${graceStart})
          returning id, sim_iccid, ${graceStart} as since`,
    );
  },

  /** Gives a warning's claim back (its e-mail was refused), unless another run moved it. */
  async releaseSwitchOffWarning(executor: Executor, livestreamId: string, claimedAt: Date) {
    await executor.execute(
      sql`update livestreams set switch_off_warned_at = null
          where id = ${livestreamId} and switch_off_warned_at = ${claimedAt.toISOString()}`,
    );
  },

  /** Configured livestreams with "no clip" alerts chosen, or one sent, and their newest clip. */
  async listClipWatches(executor: Executor): Promise<ClipWatchRow[]> {
    return queryRows<ClipWatchRow>(
      executor,
      sql`select l.id, l.sim_iccid, l.is_active, l.schedule_hours, l.schedule_days, l.activated_at,
            l.no_clip_alerted_at, w.no_clip_hours,
            (select max(c.recorded_at) from clips c
              where c.livestream_id = l.id and c.status = 'ready') as last_clip_at
          from livestreams l
          join camera_watch_settings w on w.sim_iccid = l.sim_iccid
          where l.configured_at is not null
            and (w.no_clip_hours is not null or l.no_clip_alerted_at is not null)`,
    );
  },

  /** Claims the "no clip" alert; false when it is out already (another run sent it). */
  async claimNoClipAlert(executor: Executor, livestreamId: string, now: Date): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      executor,
      sql`update livestreams set no_clip_alerted_at = ${now.toISOString()}
          where id = ${livestreamId} and no_clip_alerted_at is null returning id`,
    );
    return rows.length > 0;
  },

  /**
   * Clears the "no clip" alert sent at `alertedAt`: clips arrive again (or its e-mail was refused
   * and it is given back). False when another run cleared or moved it.
   */
  async clearNoClipAlert(
    executor: Executor,
    livestreamId: string,
    alertedAt: Date,
  ): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      executor,
      sql`update livestreams set no_clip_alerted_at = null
          where id = ${livestreamId} and no_clip_alerted_at = ${alertedAt.toISOString()}
          returning id`,
    );
    return rows.length > 0;
  },
};
