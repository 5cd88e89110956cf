/**
 * The e-mails fulfilment sends: the welcome (with a one-time sign-in link from auth's
 * `LoginLinks`) and the note to a buyer whose order lost its SIM to someone faster.
 */
import { renderEmail, type MailMessage } from '../../providers/mail/mail.ts';
import { authPolicy } from '../auth/auth-policy.ts';

const linkMinutes = Math.round(authPolicy.loginTokenSeconds / 60);

export function welcomeEmail(input: {
  to: string;
  nickname: string;
  iccid: string;
  planName: string;
  order: string | null;
  signInUrl: string;
  publicUrl: string;
  supportEmail: string;
}): MailMessage {
  return renderEmail({
    kind: 'welcome',
    to: input.to,
    subject: 'Your Farmcam camera is activated',
    heading: 'Welcome to Farmcam',
    paragraphs: [
      `Your ${input.planName} plan is active on SIM ${input.iccid}${input.order ? ` (order ${input.order})` : ''}. The camera appears in your portal as "${input.nickname}"; you can rename it there.`,
      'The camera should come online within a few hours. If it has not, switch it off and on again.',
      `The button below signs you in once within ${linkMinutes} minutes. After that, sign in at ${input.publicUrl} with this e-mail address and we will send you a new link.`,
      `Questions? Write to ${input.supportEmail}.`,
    ],
    action: { label: 'Sign in to Farmcam', url: input.signInUrl },
  });
}

export function refusedOrderEmail(input: {
  to: string;
  iccid: string;
  order: string | null;
  supportEmail: string;
}): MailMessage {
  return renderEmail({
    kind: 'order',
    to: input.to,
    subject: 'Your Farmcam order could not go ahead',
    heading: 'We could not activate this SIM',
    paragraphs: [
      `SIM ${input.iccid} was activated by someone else moments before your payment${input.order ? ` (order ${input.order})` : ''}, so your order was cancelled and your payment refunded in full.`,
      `If this SIM is yours, please write to ${input.supportEmail} and we will sort it out.`,
    ],
  });
}
