/**
 * Silence alerts (decision 094): a watched camera not heard (no data used, no router report) for
 * its chosen hours gets one open silence and one e-mail to the owner and the members who opted
 * in; once heard again the silence ends and they are e-mailed the outage's length. The camera's
 * heartbeats come from the connectivity sync (modules/usage/connectivity-sync.service.ts).
 *
 * Safe to run twice or in two processes: a silence is opened under a unique index (one open per
 * SIM), and each e-mail is claimed by a conditional update before it is sent; a failed send
 * gives its claim back so the next run tries again.
 */
import { cameraNameOf, dayMs, formatOutage, formatUkTime } from '@farmcam/contract/rules';
import type { Database } from '../../db/client.ts';
import { systemActor, writeAudit } from '../../lib/audit.ts';
import { businessDay } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { cameraWatchRepository, type WatchedCamera } from './camera-watch.repository.ts';
import { backAgainEmail, silenceEmail } from './silence-mail.ts';

const hourMs = 3_600_000;

export interface SilenceDetectionDependencies {
  db: Database;
  /** Decides who is told, and how (decision 122). */
  notifier: Notifier;
  clock: Clock;
  publicUrl: string;
}

export interface DetectionSummary {
  silenced: number;
  heardAgain: number;
  mailsSent: number;
}

export function createSilenceDetection(deps: SilenceDetectionDependencies) {
  const { db, notifier, clock, publicUrl } = deps;
  const cameraPath = (iccid: string) => `/camera/${encodeURIComponent(iccid)}`;

  async function alertSilence(
    camera: WatchedCamera,
    silenceId: string,
    silentSince: Date,
    failures: unknown[],
  ): Promise<number> {
    const now = clock.now();
    if (!(await cameraWatchRepository.claimAlert(db, silenceId, now))) return 0;
    const name = cameraNameOf(camera.nickname, camera.iccid);
    const outcome = await notifier.notify({
      kind: 'camera-silence',
      customerId: camera.customer_id,
      iccid: camera.iccid,
      email: (to) => silenceEmail({ to, iccid: camera.iccid, name, silentSince, now, publicUrl }),
      short: {
        title: `${name} has gone silent`,
        body: `No data or report since ${formatUkTime(silentSince)}. Check its power and signal.`,
        path: cameraPath(camera.iccid),
      },
    });
    failures.push(...outcome.failures);
    // Nobody reached (every e-mail refused): the claim is given back and the next run tries.
    if (outcome.reached === 0) await cameraWatchRepository.releaseAlert(db, silenceId);
    return outcome.emailsSent;
  }

  async function sendBackAgain(
    silence: { id: string; simIccid: string; silentSince: Date; endedAt: Date },
    failures: unknown[],
  ): Promise<number> {
    const camera = await cameraWatchRepository.cameraOf(db, silence.simIccid);
    if (!camera) return 0;
    const name = cameraNameOf(camera.nickname, silence.simIccid);
    const outcome = await notifier.notify({
      kind: 'camera-silence',
      customerId: camera.customer_id,
      iccid: silence.simIccid,
      email: (to) =>
        backAgainEmail({
          to,
          iccid: silence.simIccid,
          name,
          silentSince: silence.silentSince,
          heardAt: silence.endedAt,
          publicUrl,
        }),
      short: {
        title: `${name} is back after ${formatOutage(silence.endedAt.getTime() - silence.silentSince.getTime())}`,
        body: `Heard again at ${formatUkTime(silence.endedAt)}.`,
        path: cameraPath(silence.simIccid),
      },
    });
    failures.push(...outcome.failures);
    if (outcome.reached === 0) await cameraWatchRepository.releaseRecoveryAlert(db, silence.id);
    return outcome.emailsSent;
  }

  return {
    /** One pass over every camera; the job runs it every few minutes. */
    async detectSilentCameras(): Promise<DetectionSummary> {
      const now = clock.now();
      const summary: DetectionSummary = { silenced: 0, heardAgain: 0, mailsSent: 0 };
      const failures: unknown[] = [];
      const cameras = await cameraWatchRepository.watchedCameras(db, businessDay(now));
      for (const camera of cameras) {
        const lastHeard =
          camera.last_heard_ms === null ? null : new Date(Number(camera.last_heard_ms));
        const name = cameraNameOf(camera.nickname, camera.iccid);
        const hours = camera.silence_hours === null ? null : Number(camera.silence_hours);

        if (camera.silence_id !== null) {
          const silentSince = new Date(Number(camera.silent_since_ms));
          const isHeardAgain = lastHeard !== null && lastHeard > silentSince;
          if (isHeardAgain || hours === null) {
            // Heard again, or no longer watched (paused, alert off): the silence is over. A
            // camera that was never e-mailed about, or stopped being watched, gets no mail.
            const ended = await db.transaction(async (transaction) => {
              const row = await cameraWatchRepository.endSilence(
                transaction,
                camera.silence_id!,
                isHeardAgain ? lastHeard : now,
                now,
              );
              if (row && isHeardAgain) {
                await writeAudit(transaction, {
                  ...systemActor(camera.customer_id),
                  action: 'camera.heard-again',
                  subjectType: 'sim',
                  subjectId: camera.iccid,
                  details: {
                    name,
                    outage: formatOutage(lastHeard.getTime() - silentSince.getTime()),
                  },
                });
              }
              if (row)
                await cameraWatchRepository.notifyCameraChanges(transaction, camera.customer_id);
              return row;
            });
            if (ended && isHeardAgain) {
              summary.heardAgain += 1;
              if (ended.alertedAt !== null) {
                summary.mailsSent += await sendBackAgain(
                  { ...ended, endedAt: lastHeard },
                  failures,
                );
              }
            }
          } else if (camera.alerted_at_ms === null) {
            // Its first e-mail failed last time: try again.
            summary.mailsSent += await alertSilence(
              camera,
              camera.silence_id,
              silentSince,
              failures,
            );
          }
          continue;
        }

        // Never heard since the watch began (no heartbeat yet): nothing to compare with.
        if (hours === null || lastHeard === null) continue;
        if (now.getTime() - lastHeard.getTime() < hours * hourMs) continue;
        const silenceId = await db.transaction(async (transaction) => {
          const id = await cameraWatchRepository.openSilence(
            transaction,
            camera.iccid,
            lastHeard,
            now,
          );
          if (id) {
            await writeAudit(transaction, {
              ...systemActor(camera.customer_id),
              action: 'camera.silent',
              subjectType: 'sim',
              subjectId: camera.iccid,
              details: { name, hours, since: lastHeard.toISOString() },
            });
            await cameraWatchRepository.notifyCameraChanges(transaction, camera.customer_id);
          }
          return id;
        });
        if (!silenceId) continue;
        summary.silenced += 1;
        summary.mailsSent += await alertSilence(camera, silenceId, lastHeard, failures);
      }

      // Back-again e-mails that failed in an earlier run (within the last day).
      for (const owed of await cameraWatchRepository.owedRecoveries(
        db,
        new Date(now.getTime() - dayMs),
      )) {
        if (!(await cameraWatchRepository.claimRecoveryAlert(db, owed.id, now))) continue;
        summary.mailsSent += await sendBackAgain({ ...owed, endedAt: owed.endedAt! }, failures);
      }

      if (failures.length > 0) {
        throw new AggregateError(
          failures,
          `${failures.length} silence alert e-mails could not be sent`,
        );
      }
      return summary;
    },
  };
}

export type SilenceDetection = ReturnType<typeof createSilenceDetection>;
