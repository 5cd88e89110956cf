/**
 * SQL of the livestream module: cameras with the facts eligibility needs (the questions recording
 * and public playback ask through livestream.service.ts too), livestream rows, and what the
 * customer's summary reads of clips and daily views. What public playback writes and reads for
 * itself is in public-playback/public-playback.repository.ts.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { currentPlanOf } from '../../db/current-subscription.ts';
import type { clips } from '../../db/schema.ts';
import { customers, livestreams, type SimState, type SubscriptionStatus } from '../../db/schema.ts';

export type LivestreamRow = typeof livestreams.$inferSelect;
export type ClipRow = typeof clips.$inferSelect;

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
  left join lateral ${currentPlanOf(sql`s.iccid`)} plan on true
  left join livestreams l on l.sim_iccid = s.iccid`;

export interface DueLivestreamRow extends CameraPlanRow {
  livestream_id: string;
}

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

  /** Who shares a livestream's code by e-mail: the farm's name and address, for the recipient. */
  async findSender(
    executor: Executor,
    customerId: string,
  ): Promise<{ email: string; name: string | null } | undefined> {
    const [row] = await executor
      .select({ email: customers.email, name: customers.name })
      .from(customers)
      .where(eq(customers.id, customerId));
    return row;
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
