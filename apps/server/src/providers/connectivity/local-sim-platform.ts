/**
 * The local SIM platform (CONNECTIVITY=local, the default): a complete stand-in for a real SIM
 * platform, kept in our own database so it survives restarts.
 *
 * - Inventory and state live in the `sims` rows themselves (state, is_barred, activation and
 *   termination times): with a local platform there is no second copy that could drift from the
 *   read model (docs/decisions/010).
 * - Usage is metered by `recordUsage`, which the hourly job calls: every active, unbarred SIM uses
 *   data each hour in proportion to its plan's allowance, with a daily rhythm (cameras see more
 *   motion by day), quieter weekends and noise. Paused, terminated and barred SIMs use nothing.
 * - Router status is a deterministic function of the SIM and the time: the signal drifts through
 *   the day and the week, and a SIM now and then moves to another network.
 * - A SIM with `local_silent_since` plays a camera that lost power or signal: from then on it
 *   uses no data and its router sends no new report (decision 094).
 * - A SIM whose data the customer stopped (decision 095) has an `app_settings` row
 *   `local-sim-platform:data-stopped:<iccid>` and uses no data while it is there.
 */
import { and, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { queryRows } from '../../db/client.ts';
import { currentPlanOf } from '../../db/current-subscription.ts';
import { appSettings, dailyUsage, sims } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { LocalCameraUnavailableError, type LocalCamera } from '../camera/local-camera.ts';
import {
  assertOpenableCameraPorts,
  maxPlatformBatchSize,
  nextSimState,
  signalStrengthFromDbm,
  type ConnectivityPlatform,
  type PlatformRouterStatus,
  type PlatformSim,
} from './connectivity.ts';

const hourMs = 3_600_000;
/** Hours metered after a gap at most (the platform "was down" longer than that). */
const maxCatchUpHours = 7 * 24;
/** Allowance assumed for a live SIM whose plan is unknown (the smallest plan). */
const defaultAllowanceGb = 5;
const usageMarkerKey = 'local-sim-platform:usage-recorded-until';
const dataStoppedKeyPrefix = 'local-sim-platform:data-stopped:';

const networks = ['Vodafone UK', 'O2 - UK', 'EE', 'Three UK'] as const;

/** A deterministic number in [0, 1) for a SIM and a key (FNV-1a, then an avalanche mix). */
export function hashUnit(iccid: string, key: string): number {
  let hash = 0x811c9dc5;
  const text = `${iccid}:${key}`;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 4294967296;
}

/** Share of a day's data used in each UTC hour: low at night, high in daylight. Sums to 1. */
const hourlyShares: number[] = (() => {
  const weights = Array.from({ length: 24 }, (_, hour) => {
    if (hour < 5 || hour >= 22) return 0.45;
    if (hour < 8) return 0.8;
    if (hour < 18) return 1.4;
    return 1.0;
  });
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
})();

/** Bytes one SIM uses in the hour starting at `hourStart`, on a plan of `allowanceGb`. */
export function simulatedHourlyBytes(iccid: string, allowanceGb: number, hourStart: Date): number {
  const month = hourStart.toISOString().slice(0, 7);
  // Each SIM has its own habits, different every month: 40% to 115% of the allowance.
  const utilisation = 0.4 + 0.75 * hashUnit(iccid, `month:${month}`);
  const dailyMean = (allowanceGb * 1e9 * utilisation) / 30.44;
  const weekday = hourStart.getUTCDay();
  const weekendFactor = weekday === 0 || weekday === 6 ? 0.85 : 1.06;
  const noise = 0.5 + hashUnit(iccid, `hour:${hourStart.getTime() / hourMs}`);
  return Math.round(
    dailyMean * (hourlyShares[hourStart.getUTCHours()] ?? 0) * weekendFactor * noise,
  );
}

/** What the router in this SIM's camera reports at `at` (reports are every 15 minutes). */
export function simulatedRouterStatus(iccid: string, at: Date): PlatformRouterStatus {
  const reportedAt = new Date(Math.floor(at.getTime() / (15 * 60_000)) * 15 * 60_000);
  const home = Math.floor(hashUnit(iccid, 'network') * networks.length);
  const sixHourSlot = Math.floor(reportedAt.getTime() / (6 * hourMs));
  const roams = hashUnit(iccid, `roam:${sixHourSlot}`) < 0.1;
  const network = roams
    ? (home + 1 + Math.floor(hashUnit(iccid, `to:${sixHourSlot}`) * (networks.length - 1))) %
      networks.length
    : home;
  const siteQuality = hashUnit(iccid, 'site');
  const hours = reportedAt.getTime() / hourMs;
  const dailyWave = 4 * Math.sin((2 * Math.PI * (hours - 15)) / 24);
  const weeklyDrift = 3 * Math.sin((2 * Math.PI * hours) / (24 * 7) + siteQuality * 6);
  const jitter = (hashUnit(iccid, `signal:${reportedAt.getTime()}`) - 0.5) * 6;
  const dbm = Math.round(
    Math.min(-55, Math.max(-125, -72 - siteQuality * 30 + dailyWave + weeklyDrift + jitter)),
  );
  return {
    iccid,
    networkName: `Farmcam-${iccid.slice(-4)}`,
    networkProvider: networks[network] ?? networks[0],
    signalStrength: signalStrengthFromDbm(dbm),
    signalDbm: dbm,
    reportedAt,
  };
}

type SimRow = typeof sims.$inferSelect;

function toPlatformSim(row: SimRow): PlatformSim {
  return {
    iccid: row.iccid,
    state: row.state,
    isBarred: row.isBarred,
    activatedAt: row.activatedAt,
    terminatedAt: row.terminatedAt,
  };
}

function assertBatch(iccids: readonly string[]): void {
  if (iccids.length > maxPlatformBatchSize) {
    throw new AppError(
      'VALIDATION_FAILED',
      `At most ${maxPlatformBatchSize} SIMs per call, got ${iccids.length}`,
    );
  }
}

export interface LocalSimPlatform extends ConnectivityPlatform {
  readonly kind: 'local';
  /**
   * Meters every whole hour since the last call, up to the hour `now` falls in (exclusive), at
   * most a week back. Safe to call twice or from two processes: a marker, moved in the same
   * transaction as the usage, makes every hour count once.
   */
  recordUsage(now?: Date): Promise<{ hoursRecorded: number; simsMetered: number }>;
  /** The provider's own decision to disable (or re-enable) a SIM. */
  setBarred(iccid: string, isBarred: boolean): Promise<PlatformSim>;
  /**
   * Makes the camera behind this SIM silent from `since` (no data used, no new router report,
   * as when its power or signal is lost), or live again with null. Development and tests only.
   */
  setSilentSince(iccid: string, since: Date | null): Promise<void>;
  /**
   * Counts bytes the camera sent through its SIM beyond the simulated hourly use (a live view
   * pulling its stream, decision 156) on the day `at` falls in, as a real network meters them.
   */
  recordCameraTraffic(iccid: string, bytes: number, at?: Date): Promise<void>;
}

export function createLocalSimPlatform(deps: {
  db: Database;
  clock: Clock;
  /**
   * The RTSP server standing in for every SIM's camera (providers/camera/local-camera.ts);
   * without one, opening camera ports answers PROVIDER_UNAVAILABLE.
   */
  camera?: Pick<LocalCamera, 'ensureRunning' | 'stop'>;
}): LocalSimPlatform {
  const { db, clock } = deps;

  async function changeState(
    iccid: string,
    action: 'activate' | 'pause' | 'resume' | 'terminate',
  ): Promise<PlatformSim> {
    return db.transaction(async (transaction) => {
      const [row] = await transaction
        .select()
        .from(sims)
        .where(eq(sims.iccid, iccid))
        .for('update');
      if (!row) throw notFound('The SIM platform does not know this SIM');
      const next = nextSimState(row.state, action);
      if (typeof next !== 'string') throw new AppError('CONFLICT', next.error);
      if (next === row.state) return toPlatformSim(row);
      const now = clock.now();
      const [updated] = await transaction
        .update(sims)
        .set({
          state: next,
          activatedAt: next === 'active' && !row.activatedAt ? now : row.activatedAt,
          terminatedAt: next === 'terminated' ? now : row.terminatedAt,
          updatedAt: now,
        })
        .where(eq(sims.iccid, iccid))
        .returning();
      return toPlatformSim(updated!);
    });
  }

  return {
    kind: 'local',

    async getSims(iccids) {
      assertBatch(iccids);
      if (iccids.length === 0) return [];
      const rows = await db
        .select()
        .from(sims)
        .where(inArray(sims.iccid, [...iccids]));
      return rows.map(toPlatformSim);
    },

    async getRouterStatuses(iccids) {
      assertBatch(iccids);
      if (iccids.length === 0) return [];
      const rows = await db
        .select({ iccid: sims.iccid, silentSince: sims.localSilentSince })
        .from(sims)
        .where(
          and(inArray(sims.iccid, [...iccids]), eq(sims.state, 'active'), eq(sims.isBarred, false)),
        );
      const now = clock.now();
      // A silent camera's router reports nothing new: the platform still has its last report,
      // the one from before the silence began.
      return rows.map((row) =>
        simulatedRouterStatus(
          row.iccid,
          row.silentSince && row.silentSince < now ? new Date(row.silentSince.getTime() - 1) : now,
        ),
      );
    },

    async getDailyUsage({ iccids, from, to }) {
      assertBatch(iccids);
      if (iccids.length === 0) return [];
      const rows = await db
        .select()
        .from(dailyUsage)
        .where(
          and(
            inArray(dailyUsage.simIccid, [...iccids]),
            gte(dailyUsage.day, from),
            lte(dailyUsage.day, to),
          ),
        );
      return rows.map((row) => ({ iccid: row.simIccid, day: row.day, bytes: row.bytes }));
    },

    activateSim: (iccid) => changeState(iccid, 'activate'),
    pauseSim: (iccid) => changeState(iccid, 'pause'),
    resumeSim: (iccid) => changeState(iccid, 'resume'),
    terminateSim: (iccid) => changeState(iccid, 'terminate'),

    async openCameraPorts(iccid, ports) {
      assertOpenableCameraPorts(ports);
      const [row] = await db.select().from(sims).where(eq(sims.iccid, iccid));
      if (!row) throw notFound('The SIM platform does not know this SIM');
      if (row.state !== 'active' || row.isBarred) {
        throw new AppError('CONFLICT', 'Camera ports open only for an active, unbarred SIM');
      }
      if (!deps.camera) {
        throw new AppError('PROVIDER_UNAVAILABLE', 'No local camera runs in this process');
      }
      // Every demo SIM's camera is the one local RTSP server, started on first use.
      const address = await deps.camera.ensureRunning().catch((error: unknown) => {
        // Missing packages: trying again later will not help, so say what to install.
        if (error instanceof LocalCameraUnavailableError) {
          throw new AppError('PROVIDER_UNAVAILABLE', error.message);
        }
        throw new AppError(
          'PROVIDER_UNAVAILABLE',
          `The demo camera could not start (${(error as Error).message}). Please try again later.`,
        );
      });
      return {
        iccid,
        host: address.host,
        ports: Object.fromEntries(ports.map((port) => [port, address.port])),
      };
    },

    async setDataStopped(iccid, stopped) {
      const [row] = await db.select({ state: sims.state }).from(sims).where(eq(sims.iccid, iccid));
      if (!row) throw notFound('The SIM platform does not know this SIM');
      if (row.state === 'terminated') {
        throw new AppError('CONFLICT', "A terminated SIM's data cannot be stopped or started");
      }
      const key = `${dataStoppedKeyPrefix}${iccid}`;
      if (stopped) {
        await db
          .insert(appSettings)
          .values({ key, value: clock.now().toISOString() })
          .onConflictDoNothing();
      } else {
        await db.delete(appSettings).where(eq(appSettings.key, key));
      }
      return { iccid, stopped };
    },

    async setBarred(iccid, isBarred) {
      const [row] = await db
        .update(sims)
        .set({ isBarred, updatedAt: clock.now() })
        .where(eq(sims.iccid, iccid))
        .returning();
      if (!row) throw notFound('The SIM platform does not know this SIM');
      return toPlatformSim(row);
    },

    async setSilentSince(iccid, since) {
      const [row] = await db
        .update(sims)
        .set({ localSilentSince: since, updatedAt: clock.now() })
        .where(eq(sims.iccid, iccid))
        .returning({ iccid: sims.iccid });
      if (!row) throw notFound('The SIM platform does not know this SIM');
    },

    async recordCameraTraffic(iccid, bytes, at = clock.now()) {
      if (!(bytes > 0)) return;
      await db
        .insert(dailyUsage)
        .values({ simIccid: iccid, day: at.toISOString().slice(0, 10), bytes: Math.round(bytes) })
        .onConflictDoUpdate({
          target: [dailyUsage.simIccid, dailyUsage.day],
          set: { bytes: sql`${dailyUsage.bytes} + excluded.bytes` },
        });
    },

    async recordUsage(now = clock.now()) {
      const untilHour = Math.floor(now.getTime() / hourMs) * hourMs;
      return db.transaction(async (transaction) => {
        const [marker] = await transaction
          .select()
          .from(appSettings)
          .where(eq(appSettings.key, usageMarkerKey))
          .for('update');
        if (!marker) {
          // First run: usage before now is history (the demo data holds it); meter from here on.
          await transaction
            .insert(appSettings)
            .values({ key: usageMarkerKey, value: new Date(untilHour).toISOString() })
            .onConflictDoNothing();
          return { hoursRecorded: 0, simsMetered: 0 };
        }
        const recordedUntil = Date.parse(String(marker.value));
        const fromHour = Math.max(recordedUntil, untilHour - maxCatchUpHours * hourMs);
        if (!(fromHour < untilHour)) return { hoursRecorded: 0, simsMetered: 0 };

        const meteredSims = await meteredSimsWithAllowance(transaction);
        const bytesByDay = new Map<string, Map<string, number>>();
        for (let hour = fromHour; hour < untilHour; hour += hourMs) {
          const hourStart = new Date(hour);
          const day = hourStart.toISOString().slice(0, 10);
          let perSim = bytesByDay.get(day);
          if (!perSim) bytesByDay.set(day, (perSim = new Map()));
          for (const sim of meteredSims) {
            // A silent camera (no power, no signal) uses nothing from the hour it went silent.
            if (sim.silentSince !== null && hour + hourMs > sim.silentSince) continue;
            const bytes = simulatedHourlyBytes(sim.iccid, sim.allowanceGb, hourStart);
            perSim.set(sim.iccid, (perSim.get(sim.iccid) ?? 0) + bytes);
          }
        }
        const rows = [...bytesByDay].flatMap(([day, perSim]) =>
          [...perSim].map(([simIccid, bytes]) => ({ simIccid, day, bytes })),
        );
        for (let index = 0; index < rows.length; index += 1000) {
          await transaction
            .insert(dailyUsage)
            .values(rows.slice(index, index + 1000))
            .onConflictDoUpdate({
              target: [dailyUsage.simIccid, dailyUsage.day],
              set: { bytes: sql`${dailyUsage.bytes} + excluded.bytes` },
            });
        }
        await transaction
          .update(appSettings)
          .set({ value: new Date(untilHour).toISOString(), updatedAt: now })
          .where(eq(appSettings.key, usageMarkerKey));
        return { hoursRecorded: (untilHour - fromHour) / hourMs, simsMetered: meteredSims.length };
      });
    },
  };
}

/** Live, unbarred SIMs whose data is not stopped, with the allowance of their current subscription's product. */
async function meteredSimsWithAllowance(
  executor: Executor,
): Promise<{ iccid: string; allowanceGb: number; silentSince: number | null }[]> {
  const rows = await queryRows<{
    iccid: string;
    allowance_gb: number | null;
    silent_since_ms: number | null;
  }>(
    executor,
    sql`
      select s.iccid, plan.data_allowance_gb as allowance_gb,
        floor(date_part('epoch', s.local_silent_since) * 1000) as silent_since_ms
      from sims s
      left join lateral ${currentPlanOf(sql`s.iccid`)} plan on true
      where s.state = 'active' and not s.is_barred
        and not exists (
          select 1 from app_settings stop
          where stop.key = ${dataStoppedKeyPrefix} || s.iccid
        )
      order by s.iccid`,
  );
  return rows.map((row) => ({
    iccid: row.iccid,
    allowanceGb: Number(row.allowance_gb ?? defaultAllowanceGb),
    silentSince: row.silent_since_ms === null ? null : Number(row.silent_since_ms),
  }));
}
