import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { Mailer } from './mail.ts';
import { createOutboxMailer } from './outbox-mailer.ts';
import { createSmtpMailer } from './smtp-mailer.ts';

/** The mailer MAIL names: the outbox in the database (default outside production) or SMTP. */
export function createMailer(config: Config['mail'], deps: { db: Database }): Mailer {
  return config.mode === 'smtp'
    ? createSmtpMailer({ url: config.url, from: config.from })
    : createOutboxMailer(deps.db);
}
