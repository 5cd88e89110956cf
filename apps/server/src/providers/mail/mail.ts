/**
 * Mail port. Implementations: `outbox` (default outside production; stores messages in the
 * database and shows them at /dev/mail) and `smtp` (a queue in the database that the workers
 * deliver through nodemailer, retrying for days: docs/decisions/104). Services build messages
 * with `renderEmail`.
 */
import { escapeHtml } from '@farmcam/contract/rules';
import type { Executor } from '../../db/client.ts';

/** What an e-mail is, for the delivery metrics and operators: a fixed list. */
export const mailKinds = [
  'login',
  'invitation',
  'welcome',
  'order',
  'dunning',
  'usage-alert',
  'data-cap',
  'spend-alert',
  'camera-silence',
  'livestream',
  'other',
] as const;
export type MailKind = (typeof mailKinds)[number];

export interface MailMessage {
  to: string;
  /** Where answers go when not to us (e.g. the customer who shared a livestream code). */
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  /** What it is (metrics, operators); `other` when unset. Not part of what is sent. */
  kind?: MailKind;
}

export interface SendOptions {
  /**
   * A second send with the same key is dropped (SMTP mode): a caller that may run twice for one
   * cause (a redelivered event, a retried job) mails once.
   */
  dedupeKey?: string;
  /** Not delivered after this instant (dropped and counted instead): worth nothing late. */
  sendBefore?: Date;
}

/**
 * A message made at the moment it goes out, for content that must not wait in the database:
 * one-time sign-in links are stored only as hashes, so a login e-mail waiting for the mail server
 * keeps the address and what to make, and its links are made when it is sent (decision 104).
 */
export interface MailComposer<Data extends object> {
  /** Names it in the queue: every process that delivers mail knows it (create-mailer.ts). */
  readonly name: string;
  /** The message to send now, or null when there is nothing to send any more. */
  compose(data: Data): Promise<ComposedMail | null>;
}

export interface ComposedMail {
  message: MailMessage;
  /** After the mail server took it; inside the transaction that records the delivery. */
  sent(executor?: Executor): Promise<void>;
  /** After the mail server refused it or it could not be reached: what `compose` made is undone. */
  notSent(executor?: Executor): Promise<void>;
}

export interface Mailer {
  readonly mode: 'outbox' | 'smtp';
  /**
   * Hands one message over for delivery: the outbox stores it; SMTP mode queues it in the
   * database, and a worker delivers it. Rejects when it could not be handed over (the outbox,
   * or a test's mailer: when the message was refused).
   */
  send(message: MailMessage, options?: SendOptions): Promise<void>;
  /**
   * Queues a composed message (SMTP mode). Mailers without it compose and send at once
   * (`sendComposedMail`).
   */
  sendComposed?<Data extends object>(
    composer: MailComposer<Data>,
    data: Data,
    options: SendOptions & { to: string; kind: MailKind },
  ): Promise<void>;
  close(): Promise<void>;
}

/**
 * Sends a composed message through any mailer: queued as it is by a mailer that queues, else
 * composed now and sent, and undone when the send is refused (the refusal is raised).
 */
export async function sendComposedMail<Data extends object>(
  mailer: Mailer,
  composer: MailComposer<Data>,
  data: Data,
  options: SendOptions & { to: string; kind: MailKind },
): Promise<void> {
  if (mailer.sendComposed) return mailer.sendComposed(composer, data, options);
  const composed = await composer.compose(data);
  if (!composed) return;
  try {
    await mailer.send(composed.message, options);
  } catch (error) {
    await composed.notSent();
    throw error;
  }
  await composed.sent();
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
  kind?: MailKind;
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
    ...(content.kind ? { kind: content.kind } : {}),
  };
}
