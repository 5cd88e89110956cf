import nodemailer from 'nodemailer';
import { trackProviderCall } from '../../lib/provider-calls.ts';
import type { Mailer } from './mail.ts';

/** SMTP delivery through nodemailer, e.g. SMTP_URL=smtps://user:pass@smtp.example.com:465. */
export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  const transport = nodemailer.createTransport(options.url, {
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    mode: 'smtp',
    async send(message) {
      await trackProviderCall('smtp', 'send', () =>
        transport.sendMail({ from: options.from, ...message }),
      );
    },
    async close() {
      transport.close();
    },
  };
}
