import type { Executor } from '../db/client.ts';
import { auditLog } from '../db/schema.ts';

export interface AuditEntry {
  actorType: 'customer' | 'staff' | 'system';
  actorId: string | null;
  onBehalfOfCustomerId?: string | null;
  action: string;
  subjectType?: string;
  subjectId?: string;
  details?: Record<string, unknown>;
  ip?: string | null;
}

/** Appends to the audit log; call inside the transaction that made the change. */
export async function writeAudit(executor: Executor, entry: AuditEntry): Promise<void> {
  await executor.insert(auditLog).values({
    actorType: entry.actorType,
    actorId: entry.actorId,
    onBehalfOfCustomerId: entry.onBehalfOfCustomerId ?? null,
    action: entry.action,
    subjectType: entry.subjectType ?? null,
    subjectId: entry.subjectId ?? null,
    details: entry.details ?? {},
    ip: entry.ip ?? null,
  });
}
