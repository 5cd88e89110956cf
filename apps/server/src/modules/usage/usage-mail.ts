/** The words of the data-share alert (decision 095): a camera used its chosen share, or all, of its data. */
import { cameraNameOf } from '@farmcam/contract/rules';
import { monthStart, nextMonthStart } from '../../lib/business-calendar.ts';
import { renderEmail, type MailMessage } from '../../providers/mail/mail.ts';
import { bytesPerGb, formatGb, roundTo, usageFigures } from '../cameras/camera-state.ts';
import type { UsageAlertCandidate } from './usage.repository.ts';

/** The e-mail's subject, and the push's and text's title. */
export const dataShareTitle = (name: string, threshold: number) =>
  threshold >= 100
    ? `${name} has used all of its data this month`
    : `${name} has used ${threshold}% of its data this month`;

export function dataShareEmail(input: {
  to: string;
  candidate: UsageAlertCandidate;
  threshold: number;
  now: Date;
  publicUrl: string;
}): MailMessage {
  const { candidate, threshold, now } = input;
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
  const name = cameraNameOf(candidate.nickname, candidate.iccid);
  const percent = Math.floor((usedGb / allowanceGb) * 100);
  const subject = dataShareTitle(name, threshold);
  return renderEmail({
    kind: 'usage-alert',
    to: input.to,
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
      url: `${input.publicUrl}/camera/${encodeURIComponent(candidate.iccid)}`,
    },
  });
}
