/** The e-mails of budget protection (decision 095): data paused at the allowance, and back on. */
import { renderEmail, type MailMessage } from '../../providers/mail/mail.ts';

export const cameraName = (iccid: string, nickname: string | null) =>
  nickname ?? `SIM ending ${iccid.slice(-4)}`;

const cameraUrl = (publicUrl: string, iccid: string) =>
  `${publicUrl}/camera/${encodeURIComponent(iccid)}`;

const formatGb = (gigabytes: number) =>
  `${gigabytes.toLocaleString('en-GB', { maximumFractionDigits: 1 })} GB`;

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
