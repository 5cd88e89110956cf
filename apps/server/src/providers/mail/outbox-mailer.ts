import { desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { outbox } from '../../db/schema.ts';
import type { Mailer } from './mail.ts';

export interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  createdAt: string;
}

/** Local mail: messages are kept in the `outbox` table instead of being sent. */
export function createOutboxMailer(db: Database): Mailer & {
  list(options?: { to?: string; limit?: number }): Promise<OutboxMessage[]>;
  find(id: string): Promise<OutboxMessage | undefined>;
} {
  const toMessage = (row: typeof outbox.$inferSelect): OutboxMessage => ({
    ...row,
    createdAt: row.createdAt.toISOString(),
  });
  return {
    mode: 'outbox',
    async send(message) {
      await db.insert(outbox).values(message);
    },
    async list({ to, limit = 50 } = {}) {
      const rows = await db
        .select()
        .from(outbox)
        .where(to ? eq(outbox.to, to.toLowerCase()) : undefined)
        .orderBy(desc(outbox.createdAt), desc(outbox.id))
        .limit(limit);
      return rows.map(toMessage);
    },
    async find(id) {
      const [row] = await db.select().from(outbox).where(eq(outbox.id, id));
      return row ? toMessage(row) : undefined;
    },
    async close() {},
  };
}

export type OutboxMailer = ReturnType<typeof createOutboxMailer>;

export function isOutboxMailer(mailer: Mailer): mailer is OutboxMailer {
  return mailer.mode === 'outbox' && 'list' in mailer;
}
