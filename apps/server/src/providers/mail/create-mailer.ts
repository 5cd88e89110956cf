import type { Config } from '../../config/config.ts';
import type { DatabaseHandle } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { MailComposer, Mailer } from './mail.ts';
import { mailDeliveryPolicy } from './mail-delivery-policy.ts';
import { createMailQueue, type MailDelivery, type MailQueueLog } from './mail-queue.ts';
import { createOutboxMailer } from './outbox-mailer.ts';
import { createSmtpTransport } from './smtp-transport.ts';

/**
 * The mailer MAIL names: the outbox in the database (default outside production), or SMTP through
 * the mail queue, whose `delivery` the worker processes run (docs/decisions/104).
 */
export function createMailer(
  config: Config['mail'],
  deps: {
    database: Pick<DatabaseHandle, 'db' | 'listen'>;
    /** Every composer a queued e-mail may name (each process must know them all). */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    composers: readonly MailComposer<any>[];
    instanceId: string;
    clock?: Clock;
    log: MailQueueLog;
  },
): { mailer: Mailer; delivery?: MailDelivery } {
  if (config.mode !== 'smtp') return { mailer: createOutboxMailer(deps.database.db) };
  return createMailQueue({
    database: deps.database,
    transport: createSmtpTransport({
      url: config.url,
      from: config.from,
      maxConnections: mailDeliveryPolicy.concurrency,
    }),
    composers: deps.composers,
    instanceId: deps.instanceId,
    ...(deps.clock ? { clock: deps.clock } : {}),
    log: deps.log,
  });
}
