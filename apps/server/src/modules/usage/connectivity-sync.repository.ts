/**
 * What the connectivity sync reads and writes (connectivity-sync.service.ts): the customers'
 * SIMs to ask the platform about, a batch at a time, and the platform's answers mirrored into our
 * tables: SIM state, daily usage, router reports and when each camera was last heard.
 */
import { and, eq, gt, inArray, isNotNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { cameraHeartbeats, dailyUsage, routerStatus, sims } from '../../db/schema.ts';
import type { PlatformRouterStatus } from '../../providers/connectivity/connectivity.ts';

export interface Heartbeat {
  lastDataAt: Date | null;
  lastReportAt: Date | null;
}

export const connectivitySyncRepository = {
  /**
   * The next batch of customers' SIMs after `after` (by ICCID): live ones, and terminated ones
   * still within their grace (late usage records and corrections).
   */
  syncBatch: (executor: Executor, query: { after: string; terminatedSince: Date; limit: number }) =>
    executor
      .select()
      .from(sims)
      .where(
        and(
          isNotNull(sims.customerId),
          gt(sims.iccid, query.after),
          or(
            inArray(sims.state, ['active', 'paused']),
            and(eq(sims.state, 'terminated'), gt(sims.terminatedAt, query.terminatedSince)),
          ),
        ),
      )
      .orderBy(sims.iccid)
      .limit(query.limit),

  updateSim: async (
    executor: Executor,
    iccid: string,
    changes: Pick<
      typeof sims.$inferInsert,
      'state' | 'isBarred' | 'activatedAt' | 'terminatedAt' | 'updatedAt'
    >,
  ) => {
    await executor.update(sims).set(changes).where(eq(sims.iccid, iccid));
  },

  /** Our copy of the SIMs' totals on these days. */
  dailyUsageOf: (executor: Executor, iccids: string[], days: string[]) =>
    executor
      .select({ iccid: dailyUsage.simIccid, day: dailyUsage.day, bytes: dailyUsage.bytes })
      .from(dailyUsage)
      .where(and(inArray(dailyUsage.simIccid, iccids), inArray(dailyUsage.day, days))),

  /** Writes the platform's daily totals where they differ from ours; how many rows changed. */
  writeDailyUsage: async (
    executor: Executor,
    usage: { iccid: string; day: string; bytes: number }[],
  ): Promise<number> => {
    let written = 0;
    for (let index = 0; index < usage.length; index += 500) {
      const rows = await executor
        .insert(dailyUsage)
        .values(
          usage
            .slice(index, index + 500)
            .map((row) => ({ simIccid: row.iccid, day: row.day, bytes: row.bytes })),
        )
        .onConflictDoUpdate({
          target: [dailyUsage.simIccid, dailyUsage.day],
          set: { bytes: sql`excluded.bytes` },
          setWhere: sql`${dailyUsage.bytes} <> excluded.bytes`,
        })
        .returning({ iccid: dailyUsage.simIccid });
      written += rows.length;
    }
    return written;
  },

  writeRouterStatuses: async (executor: Executor, routers: PlatformRouterStatus[]) => {
    if (routers.length === 0) return;
    await executor
      .insert(routerStatus)
      .values(
        routers.map((router) => ({
          simIccid: router.iccid,
          networkName: router.networkName,
          networkProvider: router.networkProvider,
          signalStrength: router.signalStrength,
          signalDbm: router.signalDbm,
          updatedAt: router.reportedAt,
        })),
      )
      .onConflictDoUpdate({
        target: routerStatus.simIccid,
        set: {
          networkName: sql`excluded.network_name`,
          networkProvider: sql`excluded.network_provider`,
          signalStrength: sql`excluded.signal_strength`,
          signalDbm: sql`excluded.signal_dbm`,
          updatedAt: sql`excluded.updated_at`,
        },
      });
  },

  /** When each camera was last heard; the newer of ours and this sync's, written only if new. */
  writeHeartbeats: async (executor: Executor, heardFrom: Map<string, Heartbeat>, now: Date) => {
    if (heardFrom.size === 0) return;
    await executor
      .insert(cameraHeartbeats)
      .values(
        [...heardFrom].map(([simIccid, heartbeat]) => ({
          simIccid,
          ...heartbeat,
          updatedAt: now,
        })),
      )
      .onConflictDoUpdate({
        target: cameraHeartbeats.simIccid,
        set: {
          lastDataAt: sql`coalesce(excluded.last_data_at, ${cameraHeartbeats.lastDataAt})`,
          lastReportAt: sql`greatest(excluded.last_report_at, ${cameraHeartbeats.lastReportAt})`,
          updatedAt: sql`excluded.updated_at`,
        },
        // Nothing new heard (the same report again): no write.
        setWhere: sql`excluded.last_data_at is not null or excluded.last_report_at is distinct from ${cameraHeartbeats.lastReportAt}`,
      });
  },
};
