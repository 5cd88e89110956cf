/**
 * Staff sign-in with e-mail and password (docs/decisions/062): throttled per IP, and per
 * (e-mail, IP) with a growing wait after repeated failures; the answers do not depend on whether
 * the account exists, and the account itself is never locked.
 */
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import { describeWait, type RateLimiter } from '../../lib/rate-limiter.ts';
import { createOpaqueToken, hashPassword, verifyPassword } from '../../lib/tokens.ts';
import { authPolicy, staffLoginWaitSeconds } from './auth-policy.ts';
import { authRepository as repository } from './auth.repository.ts';
import type { IssuedSession, RequestContext } from './principal.ts';
import type { SessionsService } from './sessions.service.ts';

export function createStaffSignInService(deps: {
  db: Database;
  clock: Clock;
  rateLimiter: RateLimiter;
  sessions: Pick<SessionsService, 'issueSession'>;
}) {
  const { db, clock, rateLimiter, sessions } = deps;
  // A fixed hash to compare against when the e-mail is unknown, so timing does not tell.
  const decoyPasswordHash = hashPassword(createOpaqueToken());

  return {
    /**
     * Staff sign-in with e-mail and password. Throttled per IP, and per (e-mail, IP) with a
     * growing wait after repeated failures; the answers do not depend on whether the account
     * exists, and the account itself is never locked.
     */
    async staffLogin(
      input: { email: string; password: string },
      context: RequestContext,
    ): Promise<IssuedSession> {
      await rateLimiter.consume({
        key: `staff-login:ip:${context.ip}`,
        ...authPolicy.staffLoginsPerIp,
      });
      const email = input.email.trim().toLowerCase();
      const failureKey = `staff-login-failures:${context.ip}:${email}`;
      const now = clock.now();
      const failed = await repository.findStaffLoginFailures(db, failureKey);
      if (failed && failed.forgetAt > now) {
        const { forgetAfterSeconds } = authPolicy.staffLoginBackOff;
        const lastFailureAt = failed.forgetAt.getTime() - forgetAfterSeconds * 1000;
        const retryAt = lastFailureAt + staffLoginWaitSeconds(failed.failures) * 1000;
        if (retryAt > now.getTime()) {
          const retryAfter = Math.ceil((retryAt - now.getTime()) / 1000);
          throw new AppError(
            'RATE_LIMITED',
            `Too many failed sign-ins. Please try again in ${describeWait(retryAfter)}.`,
            { 'retry-after': String(retryAfter) },
          );
        }
      }
      const member = await repository.findStaffByEmail(db, email);
      // An unknown e-mail or an account without a password yet costs the same hash as a real one.
      const isPasswordRight = await verifyPassword(
        input.password,
        member?.passwordHash ?? (await decoyPasswordHash),
      );
      if (!member || !member.passwordHash || !isPasswordRight) {
        await repository.recordStaffLoginFailure(
          db,
          failureKey,
          now,
          new Date(now.getTime() + authPolicy.staffLoginBackOff.forgetAfterSeconds * 1000),
        );
        throw new AppError('INVALID_CREDENTIALS', 'Incorrect email or password');
      }
      return db.transaction(async (transaction) => {
        await repository.clearStaffLoginFailures(transaction, failureKey);
        const session = await sessions.issueSession(transaction, {
          role: member.role,
          staffId: member.id,
          absoluteSeconds: authPolicy.staffSession.absoluteSeconds,
          idleSeconds: authPolicy.staffSession.idleSeconds,
          context,
        });
        await writeAudit(transaction, {
          actorType: 'staff',
          actorId: member.id,
          action: 'auth.staff-login',
          subjectType: 'session',
          subjectId: session.sessionId,
          ip: context.ip,
        });
        return { token: session.token, expiresAt: session.expiresAt };
      });
    },
  };
}

export type StaffSignInService = ReturnType<typeof createStaffSignInService>;
