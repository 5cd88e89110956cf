/**
 * Mail port. Implementations: `outbox` (default; stores messages in the database and shows them at
 * /dev/mail) and `smtp` (nodemailer). Services build messages with `renderEmail`.
 */
import { escapeHtml } from '@farmcam/contract/rules';

export interface MailMessage {
  to: string;
  /** Where answers go when not to us (e.g. the customer who shared a livestream code). */
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  readonly mode: 'outbox' | 'smtp';
  /** Delivers (or stores) one message; rejects when the transport refused it. */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export interface EmailContent {
  to: string;
  replyTo?: string;
  subject: string;
  heading: string;
  paragraphs: string[];
  action?: { label: string; url: string };
  /** Several buttons, one under the other (e.g. one sign-in link per account); after `action`. */
  actions?: { label: string; url: string }[];
  footer?: string;
}

/** One plain layout for every e-mail: a text part and a simple, inline-styled HTML part. */
export function renderEmail(content: EmailContent): MailMessage {
  const footer = content.footer ?? 'Farmcam — 4G cameras and data for farms and remote sites.';
  const actions = [...(content.action ? [content.action] : []), ...(content.actions ?? [])];
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...actions.flatMap((action) => [`${action.label}: ${action.url}`, '']),
    '—',
    footer,
  ].join('\n');
  const button = actions
    .map(
      (action) =>
        `<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="background:#2f6b3a;color:#fff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:600;display:inline-block">${escapeHtml(action.label)}</a></p><p style="font-size:13px;color:#555">Or paste this address into your browser:<br><span style="word-break:break-all">${escapeHtml(action.url)}</span></p>`,
    )
    .join('');
  const html = `<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><title>${escapeHtml(content.subject)}</title></head><body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f6f4;margin:0;padding:24px"><div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:32px;color:#1d2a1f"><h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(content.heading)}</h1>${content.paragraphs.map((paragraph) => `<p style="line-height:1.5">${escapeHtml(paragraph)}</p>`).join('')}${button}<hr style="border:none;border-top:1px solid #e2e6e2;margin:24px 0"><p style="font-size:12px;color:#666">${escapeHtml(footer)}</p></div></body></html>`;
  return {
    to: content.to,
    ...(content.replyTo ? { replyTo: content.replyTo } : {}),
    subject: content.subject,
    text,
    html,
  };
}
