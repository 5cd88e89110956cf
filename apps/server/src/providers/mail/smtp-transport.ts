/**
 * SMTP through nodemailer, e.g. SMTP_URL=smtps://user:pass@smtp.example.com:465: the mail queue's
 * way out (mail-queue.ts, docs/decisions/104). A pool of a few open connections, so a burst of
 * login e-mails does not pay a connection and a greeting per message.
 */
import nodemailer from 'nodemailer';
import SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { trackProviderCall } from '../../lib/provider-calls.ts';
import type { MailMessage } from './mail.ts';

export interface MailTransport {
  /**
   * Hands one message to the mail server; resolves once it accepted it. `messageId` (letters,
   * digits, `.` and `-`) becomes its Message-ID, at the sender's domain: the same on every attempt
   * of one queued e-mail, so a copy sent twice is known as one by mail systems that look.
   */
  deliver(message: MailMessage, options: { messageId: string }): Promise<void>;
  close(): Promise<void>;
}

/**
 * What a failed delivery says about the next one:
 * - `unreachable`: the server could not be used at all (no connection, time-out, TLS, refused
 *   log-in, 421 "service not available"): nothing is wrong with the message; every message waits.
 * - `temporary`: the server refused this message for now (4xx): this one tries again later.
 * - `permanent`: the server refused this message for good (5xx, too large, a bad address).
 */
export type DeliveryFailureKind = 'unreachable' | 'temporary' | 'permanent';

const connectionCodes = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ETLS',
  'EAUTH',
  'EPROTOCOL',
  'ECONNREFUSED',
  'ECONNRESET',
]);

export function classifyDeliveryFailure(error: unknown): DeliveryFailureKind {
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  if (responseCode === 421) return 'unreachable';
  if (typeof code === 'string' && connectionCodes.has(code)) return 'unreachable';
  if (typeof responseCode === 'number' && responseCode >= 500) return 'permanent';
  if (typeof responseCode === 'number' && responseCode >= 400) return 'temporary';
  if (code === 'EMESSAGE' || code === 'EENVELOPE') return 'permanent';
  return 'temporary';
}

/** The mail server's answer in a line for operators (no message content, no address). */
export function describeDeliveryFailure(error: unknown): string {
  const { code, responseCode, response, message } = (error ?? {}) as Record<string, unknown>;
  const parts = [
    typeof code === 'string' ? code : undefined,
    typeof responseCode === 'number' ? String(responseCode) : undefined,
    typeof response === 'string' ? response : typeof message === 'string' ? message : undefined,
  ].filter(Boolean);
  return (parts.join(' ') || String(error)).slice(0, 500);
}

export function createSmtpTransport(options: {
  url: string;
  from: string;
  /** Connections kept open at once; the queue sends this many messages at a time. */
  maxConnections: number;
}): MailTransport {
  const domain = /@([^>\s]+)>?\s*$/.exec(options.from)?.[1] ?? 'farmcam.invalid';
  // The pool takes the URL with its other options (createTransport would keep only the URL's).
  const transport = nodemailer.createTransport(
    new SMTPPool({
      pool: true,
      url: options.url,
      maxConnections: options.maxConnections,
      maxMessages: 500,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    }),
  );
  return {
    async deliver(message, { messageId }) {
      const { kind: _kind, ...content } = message;
      await trackProviderCall('smtp', 'send', () =>
        transport.sendMail({
          from: options.from,
          ...content,
          messageId: `<${messageId}@${domain}>`,
        }),
      );
    },
    async close() {
      transport.close();
    },
  };
}
