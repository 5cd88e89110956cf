/**
 * Staff opening a customer's portal (docs/decisions/003): a short session scoped to that
 * customer, child of the staff session, on the customer's activity log.
 */
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import { authPolicy } from './auth-policy.ts';
import type { IssuedSession, Principal, RequestContext } from './principal.ts';
import type { SessionsService } from './sessions.service.ts';

export function createImpersonationService(deps: {
  db: Database;
  clock: Clock;
  sessions: Pick<SessionsService, 'issueSession'>;
}) {
  const { db, clock, sessions } = deps;
  return {
    /** Opens a customer's portal for staff: a short session scoped to that customer. */
    async startImpersonation(
      principal: Principal,
      customerId: string,
      context: RequestContext,
    ): Promise<IssuedSession> {
      if (!principal.staffId || principal.impersonation) {
        throw new AppError('FORBIDDEN', 'Only a staff session can open a customer portal');
      }
      const absoluteSeconds = Math.min(
        authPolicy.impersonationSeconds,
        Math.floor((principal.expiresAt.getTime() - clock.now().getTime()) / 1000),
      );
      return db.transaction(async (transaction) => {
        const session = await sessions.issueSession(transaction, {
          role: principal.role,
          staffId: principal.staffId,
          customerId,
          parentSessionId: principal.sessionId,
          absoluteSeconds,
          idleSeconds: absoluteSeconds,
          context,
        });
        await writeAudit(transaction, {
          actorType: 'staff',
          actorId: principal.staffId,
          actorEmail: principal.staffEmail,
          onBehalfOfCustomerId: customerId,
          accountId: customerId,
          action: 'staff.impersonation.start',
          subjectType: 'customer',
          subjectId: customerId,
          details: { sessionId: session.sessionId, expiresAt: session.expiresAt },
          ip: context.ip,
          userAgent: context.userAgent ?? null,
        });
        return { token: session.token, expiresAt: session.expiresAt };
      });
    },
  };
}

export type ImpersonationService = ReturnType<typeof createImpersonationService>;
