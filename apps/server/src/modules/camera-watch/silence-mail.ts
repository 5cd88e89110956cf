/** The e-mails of a camera's silence (decision 094): it went quiet, and it is back. */
import { formatDay, formatOutage, formatUkTime } from '@farmcam/contract/rules';
import { renderEmail, type MailMessage } from '../../providers/mail/mail.ts';

const cameraUrl = (publicUrl: string, iccid: string) =>
  `${publicUrl}/camera/${encodeURIComponent(iccid)}`;

/** "07:12 on 24 November 2026" (UK time). */
const when = (instant: Date) => `${formatUkTime(instant)} on ${formatDay(instant)}`;

export function silenceEmail(input: {
  to: string;
  iccid: string;
  name: string;
  silentSince: Date;
  now: Date;
  publicUrl: string;
}): MailMessage {
  const subject = `${input.name} has gone silent`;
  return renderEmail({
    kind: 'camera-silence',
    to: input.to,
    subject,
    heading: subject,
    paragraphs: [
      `We have had no data and no report from your camera ${input.name} (SIM ${input.iccid}) ` +
        `for ${formatOutage(input.now.getTime() - input.silentSince.getTime())}, since ` +
        `${when(input.silentSince)}.`,
      'Please check its power (battery, solar panel, mains) and its mobile signal. ' +
        'We will e-mail you again as soon as it is back.',
    ],
    action: { label: 'See the camera', url: cameraUrl(input.publicUrl, input.iccid) },
    footer:
      "You receive this because silence alerts are on for this camera. Change them on the camera's page.",
  });
}

export function backAgainEmail(input: {
  to: string;
  iccid: string;
  name: string;
  silentSince: Date;
  heardAt: Date;
  publicUrl: string;
}): MailMessage {
  const outage = formatOutage(input.heardAt.getTime() - input.silentSince.getTime());
  const subject = `${input.name} is back after ${outage}`;
  return renderEmail({
    kind: 'camera-silence',
    to: input.to,
    subject,
    heading: subject,
    paragraphs: [
      `Your camera ${input.name} (SIM ${input.iccid}) was heard again at ${when(input.heardAt)}, ` +
        `after ${outage} without data or reports (since ${when(input.silentSince)}).`,
      'Nothing was recorded or sent while it was silent.',
    ],
    action: { label: 'See the camera', url: cameraUrl(input.publicUrl, input.iccid) },
  });
}
