/**
 * Budget protection per camera (decision 095): a camera set to pause its data at the plan's
 * allowance has its data stopped through the SIM platform (the port's customer data stop, not
 * the provider's bar) once its use this month reaches the allowance; the owner is e-mailed how to
 * resume. "Resume until the end of the month" lets the data through again and the camera is not
 * stopped again that month (its data_caps row stays). When the month turns, or pausing at the
 * allowance is turned off, the check lets the data through again by itself.
 *
 * Safe to run twice or in two processes: each month's stop is claimed by inserting its data_caps
 * row (primary key SIM + month) before the platform is asked, and ended by a conditional update;
 * the platform calls carry idempotency keys. A stop the platform could not make gives its claim
 * back so the next run tries again.
 */
import { cameraNameOf } from '@farmcam/contract/rules';
import type { Database, Executor } from '../../db/client.ts';
import { AppError, notFound } from '../../errors.ts';
import { auditActorOf, systemActor, writeAudit } from '../../lib/audit.ts';
import { businessDay, isoDay, isoMonth, monthStart } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import type { Notifier } from '../notifications/notifier.ts';
import type { Principal } from '../auth/principal.ts';
import { dataCapCostNote } from '../cameras/camera-state.ts';
import { requireOwnedSim } from '../ownership/ownership.ts';
import { dataPausedEmail } from './budget-mail.ts';
import { dataCapsRepository } from './data-caps.repository.ts';

export interface DataCapsDependencies {
  db: Database;
  platform: Pick<ConnectivityPlatform, 'setDataStopped'>;
  /** Tells the people who chose data-paused alerts (decision 122). */
  notifier: Notifier;
  clock: Clock;
  publicUrl: string;
}

export interface DataCapsSummary {
  stopped: number;
  restored: number;
}

export interface ResumeAnswer {
  /** When the data was let through again this month; null when it was not stopped. */
  resumedAt: string | null;
}

/**
 * The UK day a SIM's data comes back (the 1st of next month) while it is paused at the allowance
 * this UK month, or null while its data flows: what a livestream's viewers are told.
 */
export async function dataPausedUntil(
  executor: Executor,
  iccid: string,
  now: Date,
): Promise<string | null> {
  const month = businessDay(now).slice(0, 7);
  const cap = await dataCapsRepository.capOf(executor, iccid, month);
  if (cap?.capped_at_ms == null || cap.resumed_at_ms != null) return null;
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  return monthNumber === 12
    ? `${year + 1}-01-01`
    : `${year}-${String(monthNumber + 1).padStart(2, '0')}-01`;
}

export function createDataCaps(deps: DataCapsDependencies) {
  const { db, platform, notifier, clock, publicUrl } = deps;

  /** Lets through the data of caps of an earlier month, or of cameras no longer set to pause. */
  async function endStaleCaps(month: string, failures: unknown[]): Promise<number> {
    let restored = 0;
    for (const cap of await dataCapsRepository.capsToEnd(db, month)) {
      try {
        await platform.setDataStopped(cap.iccid, false, {
          idempotencyKey: `data-cap-end:${cap.iccid}:${cap.month}`,
        });
      } catch (error) {
        // A SIM terminated meanwhile has no data to restore: the cap simply ends.
        if (!(error instanceof AppError && error.code === 'CONFLICT')) {
          failures.push(error);
          continue;
        }
      }
      await db.transaction(async (transaction) => {
        const ended = await dataCapsRepository.endCap(transaction, {
          iccid: cap.iccid,
          month: cap.month,
          now: clock.now(),
        });
        if (!ended) return;
        await writeAudit(transaction, {
          ...systemActor(cap.customer_id),
          action: 'camera.data-restored',
          subjectType: 'sim',
          subjectId: cap.iccid,
          details: {
            name: cap.nickname,
            month: cap.month,
            reason:
              cap.reason === 'new-month'
                ? 'a new month began'
                : 'pausing at the allowance was turned off',
          },
        });
        await dataCapsRepository.notifyCameraChanges(transaction, cap.customer_id);
        restored += 1;
      });
    }
    return restored;
  }

  /** Stops the data of cameras set to pause that reached their allowance this month. */
  async function stopOverAllowance(month: string, failures: unknown[]): Promise<number> {
    const now = clock.now();
    const candidates = await dataCapsRepository.capCandidates(db, {
      month,
      monthStart: isoDay(monthStart(now)),
    });
    let stopped = 0;
    for (const camera of candidates) {
      const claimed = await dataCapsRepository.claimCap(db, { iccid: camera.iccid, month, now });
      if (!claimed) continue;
      try {
        await platform.setDataStopped(camera.iccid, true, {
          idempotencyKey: `data-cap:${camera.iccid}:${month}`,
        });
      } catch (error) {
        await dataCapsRepository.releaseCap(db, { iccid: camera.iccid, month });
        failures.push(error);
        continue;
      }
      // Resumed by the farmer between the claim and the stop: their choice wins.
      const after = await dataCapsRepository.capOf(db, camera.iccid, month);
      if (after?.resumed_at_ms != null) {
        await platform.setDataStopped(camera.iccid, false, {
          idempotencyKey: `data-cap-resume:${camera.iccid}:${month}`,
        });
        continue;
      }
      const name = cameraNameOf(camera.nickname, camera.iccid);
      await db.transaction(async (transaction) => {
        await writeAudit(transaction, {
          ...systemActor(camera.customer_id),
          action: 'camera.data-paused',
          subjectType: 'sim',
          subjectId: camera.iccid,
          details: {
            name: camera.nickname,
            month,
            usedBytes: Number(camera.month_bytes),
            allowanceGb: Number(camera.allowance_gb),
          },
        });
        await dataCapsRepository.notifyCameraChanges(transaction, camera.customer_id);
      });
      stopped += 1;
      try {
        const outcome = await notifier.notify({
          kind: 'data-paused',
          customerId: camera.customer_id,
          iccid: camera.iccid,
          email: (to) =>
            dataPausedEmail({
              to,
              iccid: camera.iccid,
              name,
              productName: camera.product_name,
              allowanceGb: Number(camera.allowance_gb),
              costNote: dataCapCostNote(camera.product_name, Number(camera.allowance_gb)),
              publicUrl,
            }),
          short: {
            title: `${name}'s data is paused: it used its allowance`,
            body: 'It comes back on the 1st, or resume it now on the camera.',
            path: `/camera/${encodeURIComponent(camera.iccid)}`,
          },
        });
        failures.push(...outcome.failures);
      } catch (error) {
        // The stop stands (the banner tells the farmer); the e-mail is not worth undoing it for.
        failures.push(error);
      }
    }
    return stopped;
  }

  return {
    /**
     * One check, run after each usage sync: ends stale caps first (a new month's allowance), then
     * stops cameras over this month's. Throws after doing all it could when something failed.
     */
    async applyDataCaps(): Promise<DataCapsSummary> {
      const month = isoMonth(clock.now());
      const failures: unknown[] = [];
      const restored = await endStaleCaps(month, failures);
      const stopped = await stopOverAllowance(month, failures);
      if (failures.length > 0) {
        throw new AggregateError(failures, `${failures.length} data caps could not be applied`);
      }
      return { stopped, restored };
    },

    /**
     * "Resume until the end of the month": lets the camera's data through again; this month's
     * row stays, so it is not stopped again until the next month. Repeating it changes nothing.
     */
    async resume(
      principal: Principal,
      customerId: string,
      iccid: string,
      context: { ip: string; userAgent?: string | undefined },
    ): Promise<ResumeAnswer> {
      const sim = await requireOwnedSim(db, customerId, iccid);
      if (sim.state === 'stock') throw notFound('Camera not found');
      const month = isoMonth(clock.now());
      const cap = await dataCapsRepository.capOf(db, iccid, month);
      if (!cap || cap.capped_at_ms === null) return { resumedAt: null };
      if (cap.resumed_at_ms !== null) {
        return { resumedAt: new Date(Number(cap.resumed_at_ms)).toISOString() };
      }
      await platform.setDataStopped(iccid, false, {
        idempotencyKey: `data-cap-resume:${iccid}:${month}`,
      });
      const now = clock.now();
      await db.transaction(async (transaction) => {
        const ended = await dataCapsRepository.endCap(transaction, { iccid, month, now });
        if (!ended) return;
        await writeAudit(transaction, {
          ...auditActorOf(principal),
          action: 'camera.data-resumed',
          subjectType: 'sim',
          subjectId: iccid,
          details: { name: sim.nickname, month },
          ip: context.ip,
          userAgent: context.userAgent ?? null,
        });
        await dataCapsRepository.notifyCameraChanges(transaction, customerId);
      });
      const after = await dataCapsRepository.capOf(db, iccid, month);
      return {
        resumedAt:
          after?.resumed_at_ms == null
            ? now.toISOString()
            : new Date(Number(after.resumed_at_ms)).toISOString(),
      };
    },
  };
}

export type DataCaps = ReturnType<typeof createDataCaps>;
