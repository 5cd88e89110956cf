/**
 * Mirrors the SIM platform into our tables (DESIGN §3: pages never wait on a provider): SIM
 * state and barring, daily usage for yesterday and today, and router status. Runs from the
 * sync job, in batches of the platform's batch size, each batch in its own transaction.
 */
import { and, eq, gt, inArray, isNotNull, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { cameraHeartbeats, dailyUsage, routerStatus, sims } from '../../db/schema.ts';
import { dayMs, isoDay, previousDay } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  maxPlatformBatchSize,
  type ConnectivityPlatform,
  type PlatformSim,
} from '../../providers/connectivity/connectivity.ts';

export interface SyncSummary {
  simsChecked: number;
  simsChanged: number;
  usageRowsWritten: number;
  routersWritten: number;
}

/** Terminated SIMs are still asked about for this long: late usage records and corrections. */
const terminatedGraceMs = 2 * dayMs;

const sameInstant = (left: Date | null, right: Date | null) =>
  (left?.getTime() ?? null) === (right?.getTime() ?? null);

export async function syncFromPlatform(deps: {
  db: Database;
  platform: ConnectivityPlatform;
  clock: Clock;
  batchSize?: number;
}): Promise<SyncSummary> {
  const { db, platform, clock } = deps;
  const batchSize = Math.min(deps.batchSize ?? maxPlatformBatchSize, maxPlatformBatchSize);
  const now = clock.now();
  const today = isoDay(now);
  const yesterday = previousDay(today);
  const summary: SyncSummary = {
    simsChecked: 0,
    simsChanged: 0,
    usageRowsWritten: 0,
    routersWritten: 0,
  };

  let cursor = '';
  for (;;) {
    const ours = await db
      .select()
      .from(sims)
      .where(
        and(
          isNotNull(sims.customerId),
          gt(sims.iccid, cursor),
          or(
            inArray(sims.state, ['active', 'paused']),
            and(
              eq(sims.state, 'terminated'),
              gt(sims.terminatedAt, new Date(now.getTime() - terminatedGraceMs)),
            ),
          ),
        ),
      )
      .orderBy(sims.iccid)
      .limit(batchSize);
    if (ours.length === 0) break;
    cursor = ours.at(-1)!.iccid;
    const iccids = ours.map((sim) => sim.iccid);
    const batch = new Set(iccids);

    // Ask the platform first, write after: no transaction stays open across a network call.
    const platformSims = (await platform.getSims(iccids)).filter((sim) => batch.has(sim.iccid));
    const usage = (await platform.getDailyUsage({ iccids, from: yesterday, to: today })).filter(
      (row) => batch.has(row.iccid) && Number.isSafeInteger(row.bytes) && row.bytes >= 0,
    );
    const byIccid = new Map(ours.map((sim) => [sim.iccid, sim]));
    const changed = platformSims.filter((platformSim) => {
      const sim = byIccid.get(platformSim.iccid)!;
      // A SIM a customer holds never goes back to stock; a platform saying so is ignored.
      if (platformSim.state === 'stock') return false;
      return (
        sim.state !== platformSim.state ||
        sim.isBarred !== platformSim.isBarred ||
        !sameInstant(sim.activatedAt, platformSim.activatedAt) ||
        !sameInstant(sim.terminatedAt, platformSim.terminatedAt)
      );
    });
    const liveAfterSync = iccids.filter((iccid) => {
      const platformSim = platformSims.find((candidate) => candidate.iccid === iccid);
      const sim = byIccid.get(iccid)!;
      const state = platformSim && platformSim.state !== 'stock' ? platformSim.state : sim.state;
      const isBarred = platformSim ? platformSim.isBarred : sim.isBarred;
      return state === 'active' && !isBarred;
    });
    const routers = (await platform.getRouterStatuses(liveAfterSync)).filter((router) =>
      batch.has(router.iccid),
    );

    // When each SIM was last heard (decision 094): its daily total grew since our copy of it,
    // or its router reported. One read of our copy per batch, by primary key.
    const heardFrom = await heartbeatsOf(db, { iccids, days: [yesterday, today], usage, now });
    for (const router of routers) {
      const heartbeat = heardFrom.get(router.iccid) ?? { lastDataAt: null, lastReportAt: null };
      heartbeat.lastReportAt = router.reportedAt;
      heardFrom.set(router.iccid, heartbeat);
    }

    await db.transaction(async (transaction) => {
      for (const platformSim of changed) {
        await transaction
          .update(sims)
          .set(simChanges(platformSim, now))
          .where(eq(sims.iccid, platformSim.iccid));
      }
      for (let index = 0; index < usage.length; index += 500) {
        const written = await transaction
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
        summary.usageRowsWritten += written.length;
      }
      if (routers.length > 0) {
        await transaction
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
      }
      if (heardFrom.size > 0) {
        await transaction
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
      }
    });
    summary.simsChecked += ours.length;
    summary.simsChanged += changed.length;
    summary.routersWritten += routers.length;
    if (ours.length < batchSize) break;
  }
  return summary;
}

interface Heartbeat {
  lastDataAt: Date | null;
  lastReportAt: Date | null;
}

/** The SIMs whose platform total of a day is above our copy's: they used data since the last sync. */
async function heartbeatsOf(
  db: Database,
  query: {
    iccids: string[];
    days: string[];
    usage: { iccid: string; day: string; bytes: number }[];
    now: Date;
  },
): Promise<Map<string, Heartbeat>> {
  const heard = new Map<string, Heartbeat>();
  if (query.usage.length === 0) return heard;
  const ours = await db
    .select({ iccid: dailyUsage.simIccid, day: dailyUsage.day, bytes: dailyUsage.bytes })
    .from(dailyUsage)
    .where(and(inArray(dailyUsage.simIccid, query.iccids), inArray(dailyUsage.day, query.days)));
  const known = new Map(ours.map((row) => [`${row.iccid}/${row.day}`, Number(row.bytes)]));
  for (const row of query.usage) {
    if (row.bytes > (known.get(`${row.iccid}/${row.day}`) ?? 0)) {
      heard.set(row.iccid, { lastDataAt: query.now, lastReportAt: null });
    }
  }
  return heard;
}

function simChanges(platformSim: PlatformSim, now: Date) {
  return {
    state: platformSim.state,
    isBarred: platformSim.isBarred,
    activatedAt: platformSim.activatedAt,
    terminatedAt: platformSim.terminatedAt,
    updatedAt: now,
  };
}
