import type { Database } from '../../db/client.ts';
import type { SessionRole } from '../../db/schema.ts';
import { AppError, unauthenticated } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import { createOpaqueToken, hashPassword, hashToken, verifyPassword } from '../../lib/tokens.ts';
import { renderEmail, type Mailer } from '../../providers/mail/mail.ts';
import { authRepository as repository, type SessionWithPeople } from './auth.repository.ts';
import { createSessionCache, type SessionCache } from './session-cache.ts';

/** Lifetimes and limits of sign-in (DESIGN §4). */
export const authPolicy = {
  loginTokenSeconds: 15 * 60,
  customerSession: { absoluteSeconds: 30 * 24 * 3600, idleSeconds: 7 * 24 * 3600 },
  staffSession: { absoluteSeconds: 12 * 3600, idleSeconds: 2 * 3600 },
  impersonationSeconds: 30 * 60,
  /** How often a session's last-seen time is written (idle expiry needs no finer grain). */
  touchEverySeconds: 60,
  /**
   * How long a resolved session is trusted from memory before it is read again. Revocation does
   * not wait for it: every process evicts on NOTIFY session_changes (docs/decisions/065).
   */
  sessionCacheSeconds: 5,
  sessionCacheEntries: 10_000,
  loginRequestsPerEmail: { limit: 5, windowSeconds: 15 * 60 },
  loginRequestsPerIp: { limit: 20, windowSeconds: 15 * 60 },
  tokenExchangesPerIp: { limit: 30, windowSeconds: 15 * 60 },
  staffLoginsPerIp: { limit: 10, windowSeconds: 15 * 60 },
  staffLockAfterFailures: 5,
  staffLockSeconds: 15 * 60,
} as const;

export const loginLinkSentMessage = 'Login link sent, please check your e-mail';

/** Who is calling. `customerId` is the customer whose data the session may reach. */
export interface Principal {
  sessionId: string;
  role: SessionRole;
  customerId: string | null;
  customerEmail: string | null;
  staffId: string | null;
  staffEmail: string | null;
  /** Set when staff opened a customer's portal: the session is scoped to that customer. */
  impersonation: {
    staffEmail: string;
    staffRole: 'team' | 'admin';
    customerEmail: string;
    expiresAt: string;
    parentSessionId: string;
  } | null;
  expiresAt: Date;
}

export interface RequestContext {
  ip: string;
  userAgent?: string | undefined;
}

export interface IssuedSession {
  token: string;
  expiresAt: string;
}

export function createAuthService(deps: {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  rateLimiter: RateLimiter;
  publicUrl: string;
  /** Overrides authPolicy.loginRequestsPerEmail.limit (e.g. for browser journeys). */
  loginLinksPerEmail?: number;
  /**
   * Resolved sessions, evicted by NOTIFY session_changes in app.ts (docs/decisions/065). Without
   * one (a service on its own), a private cache that only this process's logouts evict.
   */
  sessionCache?: SessionCache<Principal>;
}) {
  const { db, clock, mailer, rateLimiter, publicUrl } = deps;
  const loginLinksPerEmail = deps.loginLinksPerEmail ?? authPolicy.loginRequestsPerEmail.limit;
  const sessionCache =
    deps.sessionCache ??
    createSessionCache<Principal>({
      ttlMs: authPolicy.sessionCacheSeconds * 1000,
      maxEntries: authPolicy.sessionCacheEntries,
      now: () => clock.now().getTime(),
    });
  // A fixed hash to compare against when the e-mail is unknown, so timing does not tell.
  const decoyPasswordHash = hashPassword(createOpaqueToken());

  async function issueSession(
    executor: Parameters<Parameters<Database['transaction']>[0]>[0] | Database,
    values: {
      role: SessionRole;
      customerId?: string | null;
      staffId?: string | null;
      parentSessionId?: string | null;
      absoluteSeconds: number;
      idleSeconds: number;
      context: RequestContext;
    },
  ): Promise<IssuedSession & { sessionId: string }> {
    const token = createOpaqueToken();
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + values.absoluteSeconds * 1000);
    const session = await repository.insertSession(executor, {
      tokenHash: hashToken(token),
      role: values.role,
      customerId: values.customerId ?? null,
      staffId: values.staffId ?? null,
      parentSessionId: values.parentSessionId ?? null,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
      idleTimeoutSeconds: values.idleSeconds,
      ip: values.context.ip,
      userAgent: values.context.userAgent?.slice(0, 300) ?? null,
    });
    return { token, expiresAt: expiresAt.toISOString(), sessionId: session.id };
  }

  function toPrincipal(row: SessionWithPeople): Principal {
    const { session } = row;
    const isImpersonation = Boolean(session.staffId && session.customerId);
    return {
      sessionId: session.id,
      role: session.role,
      customerId: session.customerId,
      customerEmail: row.customerEmail,
      staffId: session.staffId,
      staffEmail: row.staffEmail,
      impersonation:
        isImpersonation && row.staffEmail && row.staffRole && row.customerEmail
          ? {
              staffEmail: row.staffEmail,
              staffRole: row.staffRole,
              customerEmail: row.customerEmail,
              expiresAt: session.expiresAt.toISOString(),
              parentSessionId: session.parentSessionId ?? '',
            }
          : null,
      expiresAt: session.expiresAt,
    };
  }

  return {
    /**
     * Sends a one-time login link when the e-mail belongs to a customer. The answer is the same
     * either way, so the form cannot be used to learn who is a customer.
     */
    async requestLogin(email: string, context: RequestContext): Promise<{ message: string }> {
      await rateLimiter.consumeAll([
        { key: `login-request:ip:${context.ip}`, ...authPolicy.loginRequestsPerIp },
        {
          key: `login-request:email:${email}`,
          ...authPolicy.loginRequestsPerEmail,
          limit: loginLinksPerEmail,
          message: 'Too many login links were requested for this e-mail. Please wait 15 minutes.',
        },
      ]);
      const customer = await repository.findCustomerByEmail(db, email);
      if (!customer) return { message: loginLinkSentMessage };

      const token = createOpaqueToken();
      const now = clock.now();
      await db.transaction(async (transaction) => {
        await repository.voidOpenLoginTokens(transaction, customer.id, now);
        await repository.insertLoginToken(transaction, {
          customerId: customer.id,
          tokenHash: hashToken(token),
          expiresAt: new Date(now.getTime() + authPolicy.loginTokenSeconds * 1000),
          requestedIp: context.ip,
          createdAt: now,
        });
      });
      const link = `${publicUrl}/login/${token}`;
      await mailer.send(
        renderEmail({
          to: customer.email,
          subject: 'Your Farmcam login link',
          heading: 'Sign in to Farmcam',
          paragraphs: [
            'Use the button below to sign in to your Farmcam portal. The link works once and expires in 15 minutes.',
            'If you did not ask for this, you can ignore this e-mail: nobody can sign in without the link.',
          ],
          action: { label: 'Sign in to Farmcam', url: link },
        }),
      );
      return { message: loginLinkSentMessage };
    },

    /** Exchanges a login link's token for a session. The token works once. */
    async exchangeLoginToken(token: string, context: RequestContext): Promise<IssuedSession> {
      await rateLimiter.consume({
        key: `login-exchange:ip:${context.ip}`,
        ...authPolicy.tokenExchangesPerIp,
      });
      const tokenHash = hashToken(token);
      const now = clock.now();
      const issued = await db.transaction(async (transaction) => {
        const consumed = await repository.consumeLoginToken(transaction, tokenHash, now);
        if (!consumed) return undefined;
        const session = await issueSession(transaction, {
          role: 'customer',
          customerId: consumed.customerId,
          ...{
            absoluteSeconds: authPolicy.customerSession.absoluteSeconds,
            idleSeconds: authPolicy.customerSession.idleSeconds,
          },
          context,
        });
        await writeAudit(transaction, {
          actorType: 'customer',
          actorId: consumed.customerId,
          action: 'auth.login',
          subjectType: 'session',
          subjectId: session.sessionId,
          ip: context.ip,
        });
        return session;
      });
      if (issued) return { token: issued.token, expiresAt: issued.expiresAt };

      const existing = await repository.findLoginToken(db, tokenHash);
      const reason = !existing
        ? 'This login link is not valid. Please request a new one.'
        : existing.usedAt
          ? 'This login link has already been used. Please request a new one.'
          : existing.voidedAt
            ? 'A newer login link was sent. Please use the link in the latest e-mail.'
            : 'This login link has expired. Please request a new one.';
      throw new AppError('INVALID_TOKEN', reason);
    },

    /** Staff sign-in with e-mail and password; throttled per IP and locked per account. */
    async staffLogin(
      input: { email: string; password: string },
      context: RequestContext,
    ): Promise<IssuedSession> {
      await rateLimiter.consume({
        key: `staff-login:ip:${context.ip}`,
        ...authPolicy.staffLoginsPerIp,
      });
      const email = input.email.trim().toLowerCase();
      const member = await repository.findStaffByEmail(db, email);
      const now = clock.now();
      if (!member) {
        await verifyPassword(input.password, await decoyPasswordHash);
        throw new AppError('INVALID_CREDENTIALS', 'Incorrect email or password');
      }
      if (member.lockedUntil && member.lockedUntil > now) {
        throw new AppError(
          'LOCKED',
          'This account is locked after too many failed attempts. Please try again in 15 minutes.',
        );
      }
      if (!(await verifyPassword(input.password, member.passwordHash))) {
        await repository.recordStaffLoginFailure(
          db,
          member.id,
          authPolicy.staffLockAfterFailures,
          new Date(now.getTime() + authPolicy.staffLockSeconds * 1000),
        );
        throw new AppError('INVALID_CREDENTIALS', 'Incorrect email or password');
      }
      return db.transaction(async (transaction) => {
        await repository.clearStaffLoginFailures(transaction, member.id);
        const session = await issueSession(transaction, {
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

    /**
     * Resolves a bearer token to its principal, or undefined when it is unknown, revoked or
     * expired. Resolved sessions are trusted from memory for a few seconds (the hot path of every
     * request); a revocation in any process evicts at once (NOTIFY, docs/decisions/065).
     */
    async authenticate(token: string): Promise<Principal | undefined> {
      const tokenHash = hashToken(token);
      const now = clock.now();
      const cached = sessionCache.get(tokenHash);
      if (cached && cached.expiresAt > now) return cached;
      // Taken before the read: an eviction while it runs means its answer may be stale.
      const generation = sessionCache.generation();
      const row = await repository.findSessionByTokenHash(db, tokenHash);
      if (!row) return undefined;
      const { session } = row;
      const idleDeadline = session.lastSeenAt.getTime() + session.idleTimeoutSeconds * 1000;
      if (session.revokedAt || session.expiresAt <= now || idleDeadline <= now.getTime()) {
        sessionCache.evict(tokenHash);
        return undefined;
      }
      if (now.getTime() - session.lastSeenAt.getTime() > authPolicy.touchEverySeconds * 1000) {
        await repository.touchSession(db, session.id, now);
      }
      const principal = toPrincipal(row);
      sessionCache.set(tokenHash, principal, generation);
      return principal;
    },

    /** Ends the session (and any customer portals staff opened from it). */
    async logout(principal: Principal, context: RequestContext): Promise<void> {
      const now = clock.now();
      // Evicted here at once, and in every process by the NOTIFY the commit sends: a read of
      // the still-valid row that starts before the commit is not stored (see session-cache.ts).
      const revoked = await db.transaction(async (transaction) => {
        const tokenHashes = await repository.revokeSessionTree(
          transaction,
          principal.sessionId,
          now,
        );
        for (const tokenHash of tokenHashes) sessionCache.evict(tokenHash);
        await writeAudit(transaction, {
          actorType: principal.staffId ? 'staff' : 'customer',
          actorId: principal.staffId ?? principal.customerId,
          onBehalfOfCustomerId: principal.impersonation ? principal.customerId : null,
          action: principal.impersonation ? 'staff.impersonation.end' : 'auth.logout',
          subjectType: 'session',
          subjectId: principal.sessionId,
          ip: context.ip,
        });
        return tokenHashes;
      });
      for (const tokenHash of revoked) sessionCache.evict(tokenHash);
    },

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
        const session = await issueSession(transaction, {
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
          onBehalfOfCustomerId: customerId,
          action: 'staff.impersonation.start',
          subjectType: 'customer',
          subjectId: customerId,
          details: { sessionId: session.sessionId, expiresAt: session.expiresAt },
          ip: context.ip,
        });
        return { token: session.token, expiresAt: session.expiresAt };
      });
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

export function requirePrincipal(principal: Principal | undefined): Principal {
  if (!principal) throw unauthenticated();
  return principal;
}
