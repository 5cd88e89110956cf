import type { Executor } from '../db/client.ts';
import { auditLog } from '../db/schema.ts';

/**
 * One entry of the audit log, which is also the account's Activity screen (docs/decisions/092):
 * who (actor type, id and e-mail as it was then), on which account, what, from where.
 */
export interface AuditEntry {
  actorType: 'customer' | 'member' | 'staff' | 'system';
  actorId: string | null;
  /** The person's e-mail as it was then (owner, member or staff). */
  actorEmail?: string | null;
  /** A member's role when they acted; the Activity screen shows it rather than today's. */
  actorRole?: 'manager' | 'viewer' | null;
  onBehalfOfCustomerId?: string | null;
  /** The customer account the entry belongs to; null for entries of no account (staff admin). */
  accountId?: string | null;
  action: string;
  subjectType?: string;
  subjectId?: string;
  details?: Record<string, unknown>;
  ip?: string | null;
  userAgent?: string | null;
}

/** Who did something, as the audit log records them. */
export type AuditActor = Pick<
  AuditEntry,
  'actorType' | 'actorId' | 'actorEmail' | 'actorRole' | 'onBehalfOfCustomerId' | 'accountId'
>;

/**
 * The person behind a customer-scoped session, as an audit actor: staff inside a customer's
 * portal (recorded as staff, on behalf of the customer), a member, or the owner. Structural
 * so that lib does not import the auth module.
 */
export function auditActorOf(principal: {
  customerId: string | null;
  customerEmail: string | null;
  staffId: string | null;
  staffEmail: string | null;
  access: { memberId: string | null; personEmail: string; role?: string } | null;
}): AuditActor {
  const accountId = principal.customerId;
  if (principal.staffId) {
    return {
      actorType: 'staff',
      actorId: principal.staffId,
      actorEmail: principal.staffEmail,
      onBehalfOfCustomerId: accountId,
      accountId,
    };
  }
  if (principal.access?.memberId) {
    return {
      actorType: 'member',
      actorId: principal.access.memberId,
      actorEmail: principal.access.personEmail,
      actorRole:
        principal.access.role === 'manager' || principal.access.role === 'viewer'
          ? principal.access.role
          : null,
      onBehalfOfCustomerId: null,
      accountId,
    };
  }
  return {
    actorType: 'customer',
    actorId: accountId,
    actorEmail: principal.customerEmail,
    onBehalfOfCustomerId: null,
    accountId,
  };
}

/** The system (jobs, webhooks) acting on an account. */
export function systemActor(accountId: string | null): AuditActor {
  return { actorType: 'system', actorId: null, actorEmail: null, accountId };
}

/** Appends to the audit log; call inside the transaction that made the change. */
export async function writeAudit(executor: Executor, entry: AuditEntry): Promise<void> {
  await executor.insert(auditLog).values({
    actorType: entry.actorType,
    actorId: entry.actorId,
    actorEmail: entry.actorEmail ?? null,
    actorRole: entry.actorRole ?? null,
    onBehalfOfCustomerId: entry.onBehalfOfCustomerId ?? null,
    accountId: entry.accountId ?? entry.onBehalfOfCustomerId ?? null,
    action: entry.action,
    subjectType: entry.subjectType ?? null,
    subjectId: entry.subjectId ?? null,
    details: entry.details ?? {},
    ip: entry.ip ?? null,
    // Enough to tell one browser or app from another; a hostile header is not kept whole.
    userAgent: entry.userAgent?.slice(0, 300) ?? null,
  });
}
