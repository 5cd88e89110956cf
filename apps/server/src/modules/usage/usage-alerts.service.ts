import type { Database } from '../../db/client.ts';
import { isoDay, isoMonth, monthStart, nextMonthStart } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { renderEmail } from '../../providers/mail/mail.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { bytesPerGb, roundTo, usageFigures } from '../cameras/camera-state.ts';
import { usageRepository, type UsageAlertCandidate } from './usage.repository.ts';

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

const formatGb = (gigabytes: number) =>
  `${gigabytes.toLocaleString('en-GB', { maximumFractionDigits: 1 })} GB`;

function alertEmail(
  to: string,
  candidate: UsageAlertCandidate,
  threshold: number,
  deps: UsageAlertsDependencies,
) {
  const now = deps.clock.now();
  const usedGb = Number(candidate.month_bytes) / bytesPerGb;
  const allowanceGb = Number(candidate.allowance_gb);
  const figures = usageFigures({
    monthBytes: Number(candidate.month_bytes),
    allowanceGb,
    isMetering: true,
    now,
    monthStart: monthStart(now),
    nextMonthStart: nextMonthStart(now),
    activatedAt: candidate.activated_at_ms === null ? null : new Date(candidate.activated_at_ms),
  });
  const name = candidate.nickname ?? `SIM ending ${candidate.iccid.slice(-4)}`;
  const percent = Math.floor((usedGb / allowanceGb) * 100);
  const subject =
    threshold >= 100
      ? `${name} has used all of its data this month`
      : `${name} has used ${threshold}% of its data this month`;
  return renderEmail({
    kind: 'usage-alert',
    to,
    subject,
    heading: subject,
    paragraphs: [
      `Your camera ${name} (SIM ${candidate.iccid}) has used ${formatGb(roundTo(usedGb, 1))} of the ` +
        `${formatGb(allowanceGb)} in its ${candidate.product_name} plan this month (${percent}%).`,
      threshold >= 100
        ? 'It has now used its whole allowance. If it needs more data every month, a bigger plan keeps it streaming.'
        : `At its current rate it will use about ${formatGb(figures.forecastMonthEndGB ?? usedGb)} by the end of the month. ` +
          `You chose to be told at ${threshold}% of its data; you can change that in the camera's alert settings.`,
      'Plans reset on the 1st of each month.',
    ],
    action: {
      label: 'See its data usage',
      url: `${deps.publicUrl}/camera/${encodeURIComponent(candidate.iccid)}`,
    },
  });
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
      const name = candidate.nickname ?? `SIM ending ${candidate.iccid.slice(-4)}`;
      const outcome = await deps.notifier.notify({
        kind: 'data-share',
        customerId: candidate.customer_id,
        iccid: candidate.iccid,
        email: (to) => alertEmail(to, candidate, threshold, deps),
        short: {
          title:
            threshold >= 100
              ? `${name} has used all of its data this month`
              : `${name} has used ${threshold}% of its data this month`,
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
