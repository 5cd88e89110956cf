/** The e-mails of budget protection (decision 095): data paused at the allowance; the month's spend. */
import { formatMoney } from '@farmcam/contract/rules';
import { renderEmail, type MailMessage } from '../../providers/mail/mail.ts';
import { formatGb } from '../cameras/camera-state.ts';

const cameraUrl = (publicUrl: string, iccid: string) =>
  `${publicUrl}/camera/${encodeURIComponent(iccid)}`;

export function dataPausedEmail(input: {
  to: string;
  iccid: string;
  name: string;
  productName: string;
  allowanceGb: number;
  costNote: string;
  publicUrl: string;
}): MailMessage {
  const subject = `${input.name}'s data is paused: it used its ${formatGb(input.allowanceGb)} this month`;
  return renderEmail({
    kind: 'data-cap',
    to: input.to,
    subject,
    heading: subject,
    paragraphs: [
      `Your camera ${input.name} (SIM ${input.iccid}) has used the ${formatGb(input.allowanceGb)} ` +
        `in its ${input.productName} plan this month. As you asked, we have paused its data: ` +
        'it sends nothing until the 1st, when the data comes back on by itself.',
      `To have it back now, open the camera's page and choose "Resume until the end of the month". ${input.costNote}`,
    ],
    action: { label: 'Resume or see the camera', url: cameraUrl(input.publicUrl, input.iccid) },
    footer:
      "You receive this because pausing data at the allowance is on for this camera. Change it in the camera's alert settings.",
  });
}

/** The e-mail's subject, and the push's and text's title. */
export const spendAlertTitle = (amountMinor: number, currency: string) =>
  `Your bill this month has reached ${formatMoney(amountMinor, currency)}`;

export function spendAlertEmail(input: {
  to: string;
  amountMinor: number;
  currency: string;
  figures: { raised: number; upcoming: number; expected: number };
  publicUrl: string;
}): MailMessage {
  const { figures, currency } = input;
  const subject = spendAlertTitle(input.amountMinor, currency);
  return renderEmail({
    kind: 'spend-alert',
    to: input.to,
    subject,
    heading: subject,
    paragraphs: [
      `This month your cameras' invoices come to ${formatMoney(figures.expected, currency)}: ` +
        `${formatMoney(figures.raised, currency)} already invoiced and ` +
        `${formatMoney(figures.upcoming, currency)} in renewals due before the month ends. ` +
        `You asked to be told at ${formatMoney(input.amountMinor, currency)}.`,
      'Nothing has been changed or stopped. You can change or remove this alert on your Account page.',
    ],
    action: { label: 'See your account', url: `${input.publicUrl}/dashboard` },
  });
}
