/**
 * The e-mail that invites a person to a farm's account (docs/decisions/091): who invites them, as
 * what, to which cameras and until when, and the one-time link that signs them in; and the
 * owner's "team changes" alert when they join (decision 122).
 */
import { formatDay } from '@farmcam/contract/rules';
import { renderEmail, type MailMessage } from '../../providers/mail/mail.ts';
import type { MemberRole } from '../../db/schema.ts';

export const invitationDays = 7;

const roleWords: Record<MemberRole, string> = {
  manager:
    'a Manager: you can watch the cameras and change them (names, pauses, plans, livestreams)',
  viewer: 'a Viewer: you can watch the cameras and see their usage',
};

export function invitationEmail(input: {
  to: string;
  ownerEmail: string;
  role: MemberRole;
  /** Nicknames of the chosen cameras; null for every camera of the account. */
  cameraNames: string[] | null;
  /** The last UK day of access, YYYY-MM-DD, or null. */
  lastDay: string | null;
  url: string;
}): MailMessage {
  const cameras =
    input.cameraNames === null
      ? 'every camera on the account'
      : input.cameraNames.length === 1
        ? `the camera ${input.cameraNames[0]}`
        : `${input.cameraNames.length} cameras: ${input.cameraNames.join(', ')}`;
  return renderEmail({
    kind: 'invitation',
    to: input.to,
    subject: `${input.ownerEmail} invited you to their Farmcam cameras`,
    heading: 'You are invited to a farm on Farmcam',
    paragraphs: [
      `${input.ownerEmail} invited you to their Farmcam account as ${roleWords[input.role]}.`,
      `You will see ${cameras}${input.lastDay ? `, until the end of ${formatDay(input.lastDay)}` : ''}.`,
      `The button signs you in and works once within ${invitationDays} days. Later, sign in with this e-mail address on the Farmcam sign-in page.`,
      'If you do not know this person, you can ignore this e-mail.',
    ],
    action: { label: 'Accept the invitation', url: input.url },
  });
}

const joinedAs = (role: MemberRole) => (role === 'manager' ? 'a Manager' : 'a Viewer');

/** The alert's subject, and the push's and text's title. */
export const joinedTitle = (memberEmail: string, role: MemberRole) =>
  `${memberEmail} joined your team as ${joinedAs(role)}`;

export function joinedEmail(input: {
  to: string;
  memberEmail: string;
  role: MemberRole;
  publicUrl: string;
}): MailMessage {
  const subject = joinedTitle(input.memberEmail, input.role);
  return renderEmail({
    kind: 'invitation',
    to: input.to,
    subject,
    heading: subject,
    paragraphs: [
      `${input.memberEmail} accepted your invitation and can now sign in to your Farmcam account as ${joinedAs(input.role)}.`,
      'You can change what they can do, or remove them, on the Team page.',
    ],
    action: { label: 'Open Team', url: `${input.publicUrl}/team` },
  });
}
