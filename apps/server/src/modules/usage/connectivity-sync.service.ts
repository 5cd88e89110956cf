/**
 * Mirrors the SIM platform into our tables (DESIGN §3: pages never wait on a provider): SIM
 * state and barring, daily usage for yesterday and today, and router status. Runs from the
 * sync job, in batches of the platform's batch size, each batch in its own transaction.
 */
import type { Database } from '../../db/client.ts';
import { dayMs, isoDay, previousDay } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  maxPlatformBatchSize,
  type ConnectivityPlatform,
  type PlatformSim,
} from '../../providers/connectivity/connectivity.ts';
import {
  connectivitySyncRepository as repository,
  type Heartbeat,
} from './connectivity-sync.repository.ts';

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
    const ours = await repository.syncBatch(db, {
      after: cursor,
      terminatedSince: new Date(now.getTime() - terminatedGraceMs),
      limit: batchSize,
    });
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
        await repository.updateSim(transaction, platformSim.iccid, simChanges(platformSim, now));
      }
      summary.usageRowsWritten += await repository.writeDailyUsage(transaction, usage);
      await repository.writeRouterStatuses(transaction, routers);
      await repository.writeHeartbeats(transaction, heardFrom, now);
    });
    summary.simsChecked += ours.length;
    summary.simsChanged += changed.length;
    summary.routersWritten += routers.length;
    if (ours.length < batchSize) break;
  }
  return summary;
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
  const ours = await repository.dailyUsageOf(db, query.iccids, query.days);
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
