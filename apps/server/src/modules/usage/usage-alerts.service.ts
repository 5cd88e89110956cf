import type { Database } from '../../db/client.ts';
import { isoDay, isoMonth, monthStart } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { bytesPerGb } from '../cameras/camera-state.ts';
import { dataShareEmail, dataShareTitle } from './usage-mail.ts';
import { usageRepository } from './usage.repository.ts';
import { cameraNameOf } from '@farmcam/contract/rules';

/**
 * The early alert's share of the monthly allowance for a camera without alert settings; each
 * camera may choose its own share (camera_watch_settings.data_alert_percent) or none, and is
 * always e-mailed at 100 %. Once each per month (decision 095).
 */
export const defaultDataAlertPercent = 80;

export interface UsageAlertsDependencies {
  db: Database;
  /** Tells the people who chose data-share alerts (decision 122). */
  notifier: Notifier;
  clock: Clock;
  publicUrl: string;
}

/**
 * E-mails customers whose camera passed its chosen share (80 % unless chosen otherwise) or 100 %
 * of its plan this month, once per threshold per camera per month. A camera that jumps past both
 * at once gets one e-mail (the 100 % one).
 * Each threshold is claimed in the database before the e-mail is sent, so two runs cannot both
 * send it; if sending fails the claim is withdrawn and the next run tries again.
 */
export async function sendUsageAlerts(deps: UsageAlertsDependencies): Promise<{ sent: number }> {
  const now = deps.clock.now();
  const month = isoMonth(now);
  const candidates = await usageRepository.usageAlertCandidates(deps.db, {
    month,
    monthStart: isoDay(monthStart(now)),
    defaultAlertPercent: defaultDataAlertPercent,
  });
  let sent = 0;
  const failures: unknown[] = [];
  for (const candidate of candidates) {
    const percent =
      (Number(candidate.month_bytes) / (Number(candidate.allowance_gb) * bytesPerGb)) * 100;
    const alreadySent = new Set(candidate.sent_thresholds.map(Number));
    const thresholds =
      candidate.alert_percent === null ? [100] : [Number(candidate.alert_percent), 100];
    const reached = thresholds.filter(
      (threshold) => percent >= threshold && !alreadySent.has(threshold),
    );
    if (reached.length === 0) continue;

    const claimed: number[] = [];
    for (const threshold of reached) {
      const isClaimed = await usageRepository.claimUsageAlert(deps.db, {
        iccid: candidate.iccid,
        month,
        thresholdPercent: threshold,
        now,
      });
      if (isClaimed) claimed.push(threshold);
    }
    if (claimed.length === 0) continue;
    try {
      const threshold = Math.max(...claimed);
      const name = cameraNameOf(candidate.nickname, candidate.iccid);
      const outcome = await deps.notifier.notify({
        kind: 'data-share',
        customerId: candidate.customer_id,
        iccid: candidate.iccid,
        email: (to) =>
          dataShareEmail({
            to,
            candidate,
            threshold,
            now: deps.clock.now(),
            publicUrl: deps.publicUrl,
          }),
        short: {
          title: dataShareTitle(name, threshold),
          body: 'Plans reset on the 1st of each month.',
          path: `/camera/${encodeURIComponent(candidate.iccid)}`,
        },
      });
      if (outcome.failures.length > 0 && !outcome.isOwnerReached) throw outcome.failures[0];
      sent += 1;
    } catch (error) {
      await usageRepository.releaseUsageAlerts(deps.db, {
        iccid: candidate.iccid,
        month,
        thresholds: claimed,
      });
      failures.push(error);
    }
  }
  if (failures.length > 0) {
    throw new AggregateError(failures, `${failures.length} usage alert e-mails could not be sent`);
  }
  return { sent };
}
