import { randomBytes } from 'node:crypto';
import { desc } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { localSmsMessages } from '../../db/schema.ts';
import { trackProviderCall } from '../../lib/provider-calls.ts';
import type { Messaging } from './messaging.ts';

/** The number local texts appear to come from (Ofcom's drama range, never a real phone). */
export const localSenderNumber = '+447700900000';

export interface LocalSmsMessage {
  id: string;
  sid: string;
  direction: 'outbound' | 'inbound';
  to: string;
  from: string;
  body: string;
  createdAt: string;
}

/** Local SMS: every message kept in the database instead of sent, shown at /dev/sms. */
export function createLocalMessaging(db: Database): Messaging & {
  list(limit?: number): Promise<LocalSmsMessage[]>;
  /** A reply typed on /dev/sms, kept beside the messages (the webhook's service acts on it). */
  recordInbound(from: string, body: string): Promise<void>;
} {
  const sid = () => `SM${randomBytes(16).toString('hex')}`;
  return {
    kind: 'local',
    isAvailable: true,
    send: (sms) =>
      trackProviderCall('sms', 'send', async () => {
        const id = sid();
        await db.insert(localSmsMessages).values({
          sid: id,
          direction: 'outbound',
          to: sms.to,
          from: localSenderNumber,
          body: sms.body,
        });
        return { id, status: 'delivered' as const };
      }),
    async list(limit = 100) {
      const rows = await db
        .select()
        .from(localSmsMessages)
        .orderBy(desc(localSmsMessages.createdAt), desc(localSmsMessages.id))
        .limit(limit);
      return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
    },
    async recordInbound(from, body) {
      await db
        .insert(localSmsMessages)
        .values({ sid: sid(), direction: 'inbound', to: localSenderNumber, from, body });
    },
  };
}

export type LocalMessaging = ReturnType<typeof createLocalMessaging>;

export function isLocalMessaging(messaging: Messaging): messaging is LocalMessaging {
  return messaging.kind === 'local' && 'list' in messaging;
}
