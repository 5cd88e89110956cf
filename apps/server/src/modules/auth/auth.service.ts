import { type Access, memberAccess, memberAccessEnded, ownerAccess } from '../members/access.ts';
import type { Database, Executor } from '../../db/client.ts';
import type { SessionRole } from '../../db/schema.ts';
import { AppError, unauthenticated } from '../../errors.ts';
import { auditActorOf, writeAudit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import { describeWait, type RateLimiter } from '../../lib/rate-limiter.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { createOpaqueToken, hashPassword, hashToken, verifyPassword } from '../../lib/tokens.ts';
import { authRepository as repository, type SessionWithPeople } from './auth.repository.ts';
import { membersRepository } from '../members/members.repository.ts';
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
  /** Mails one address may receive per hour from every client together: this × the per-client limit. */
  loginMailsPerEmailHourFactor: 3,
  tokenExchangesPerIp: { limit: 30, windowSeconds: 15 * 60 },
  staffLoginsPerIp: { limit: 10, windowSeconds: 15 * 60 },
  /**
   * Failed staff sign-ins per (e-mail as typed, IP): the first 5 are free, then that pair waits
   * 1, 2, 4 … minutes (at most an hour) between tries; a success or a quiet day forgets them.
   * Nobody else is slowed: the account is never locked (docs/decisions/062).
   */
  staffLoginBackOff: {
    freeFailures: 5,
    firstWaitSeconds: 60,
    maxWaitSeconds: 3600,
    forgetAfterSeconds: 24 * 3600,
  },
} as const;

/** How long a (e-mail, IP) pair with `failures` failed sign-ins waits after its last one. */
export function staffLoginWaitSeconds(failures: number): number {
  const { freeFailures, firstWaitSeconds, maxWaitSeconds } = authPolicy.staffLoginBackOff;
  if (failures < freeFailures) return 0;
  return Math.min(maxWaitSeconds, firstWaitSeconds * 2 ** (failures - freeFailures));
}

/** A member's link or invitation after they were removed or their last day passed. */
export const memberAccessEndedMessage =
  "Your access to this farm's account has ended. Ask the account owner to invite you again.";

export const loginLinkSentMessage = 'Login link sent, please check your e-mail';
/** The job that looks the address up and sends the link (login-mail.service.ts). */
export const loginMailJobName = 'send-login-mail';

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
  /**
   * Set for every session scoped to a customer account: the owner's full access, or a member's
   * role and cameras (docs/decisions/091).
   */
  access: Access | null;
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
  /** Where `request-login` hands the login e-mail to its job. */
  jobQueue: JobQueue;
  rateLimiter: RateLimiter;
  /** Overrides authPolicy.loginRequestsPerEmail.limit (e.g. for browser journeys). */
  loginLinksPerEmail?: number;
  /**
   * Resolved sessions, evicted by NOTIFY session_changes in app.ts (docs/decisions/065). Without
   * one (a service on its own), a private cache that only this process's logouts evict.
   */
  sessionCache?: SessionCache<Principal>;
}) {
  const { db, clock, jobQueue, rateLimiter } = deps;
  const loginLinksPerEmail = deps.loginLinksPerEmail ?? authPolicy.loginRequestsPerEmail.limit;
  const sessionCache =
    deps.sessionCache ??
    createSessionCache<Principal>({
      ttlMs: authPolicy.sessionCacheSeconds * 1000,
      maxEntries: authPolicy.sessionCacheEntries,
      now: () => clock.now().getTime(),
    });
  const sessionReads = new Map<
    string,
    { generation: number; promise: Promise<Principal | undefined> }
  >();

  /** The database's answer for a token, remembered unless an eviction overtook the read. */
  async function readSession(
    tokenHash: string,
    now: Date,
    generation: number,
  ): Promise<Principal | undefined> {
    const row = await repository.findSessionByTokenHash(db, tokenHash);
    if (!row) return undefined;
    const { session } = row;
    const idleDeadline = session.lastSeenAt.getTime() + session.idleTimeoutSeconds * 1000;
    if (
      session.revokedAt ||
      session.expiresAt <= now ||
      idleDeadline <= now.getTime() ||
      // A member's session ends with their access: removed, or past their last day (decision 091).
      (session.memberId && (!row.member || memberAccessEnded(row.member, now)))
    ) {
      sessionCache.drop(tokenHash);
      return undefined;
    }
    if (now.getTime() - session.lastSeenAt.getTime() > authPolicy.touchEverySeconds * 1000) {
      await repository.touchSession(db, session.id, now);
    }
    const principal = toPrincipal(row);
    sessionCache.set(tokenHash, principal, generation);
    return principal;
  }

  // A fixed hash to compare against when the e-mail is unknown, so timing does not tell.
  const decoyPasswordHash = hashPassword(createOpaqueToken());

  async function issueSession(
    executor: Executor,
    values: {
      role: SessionRole;
      customerId?: string | null;
      memberId?: string | null;
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
      memberId: values.memberId ?? null,
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

  /**
   * Starts a customer session on an account, as its owner or (with `memberId`) as a member, and
   * records the sign-in in the account's activity. A member whose access has ended is refused.
   */
  async function signInToAccount(
    transaction: Executor,
    target: { customerId: string; memberId: string | null },
    context: RequestContext,
  ): Promise<IssuedSession & { sessionId: string }> {
    let customerEmail: string | null;
    let personEmail: string | null = null;
    let memberRole: string | undefined;
    if (target.memberId) {
      const found = await membersRepository.findMember(transaction, target.memberId);
      if (!found || found.member.customerId !== target.customerId) {
        throw new AppError('INVALID_TOKEN', memberAccessEndedMessage);
      }
      if (memberAccessEnded(found.member, clock.now())) {
        throw new AppError('INVALID_TOKEN', memberAccessEndedMessage);
      }
      customerEmail = found.ownerEmail;
      personEmail = found.member.email;
      memberRole = found.member.role;
    } else {
      customerEmail =
        (await repository.findCustomerById(transaction, target.customerId))?.email ?? null;
    }
    const session = await issueSession(transaction, {
      role: 'customer',
      customerId: target.customerId,
      memberId: target.memberId,
      absoluteSeconds: authPolicy.customerSession.absoluteSeconds,
      idleSeconds: authPolicy.customerSession.idleSeconds,
      context,
    });
    await writeAudit(transaction, {
      ...auditActorOf({
        customerId: target.customerId,
        customerEmail,
        staffId: null,
        staffEmail: null,
        access: target.memberId
          ? { memberId: target.memberId, personEmail: personEmail ?? '', role: memberRole }
          : null,
      }),
      action: 'auth.sign-in',
      subjectType: 'session',
      subjectId: session.sessionId,
      ip: context.ip,
      userAgent: context.userAgent?.slice(0, 300) ?? null,
    });
    return session;
  }

  function toPrincipal(row: SessionWithPeople): Principal {
    const { session, member } = row;
    const isImpersonation = Boolean(session.staffId && session.customerId);
    const access =
      session.customerId && row.customerEmail
        ? member
          ? memberAccess(member)
          : ownerAccess(row.customerEmail)
        : null;
    // A member's session is not trusted (from memory either) past their last day.
    const expiresAt =
      member?.accessUntil && member.accessUntil < session.expiresAt
        ? member.accessUntil
        : session.expiresAt;
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
      expiresAt,
      access,
    };
  }

  return {
    /** Signs a person in to an account inside the caller's transaction (accepting an invitation). */
    signInToAccount,

    /**
     * Ends a member's sessions (removed from the team) inside the caller's transaction. Returns
     * their token hashes: pass them to `forgetSessions` once committed. Other processes drop them
     * on the NOTIFY the commit sends (decision 065).
     */
    async revokeMemberSessions(transaction: Executor, memberId: string): Promise<string[]> {
      const tokenHashes = await repository.revokeMemberSessions(transaction, memberId, clock.now());
      for (const tokenHash of tokenHashes) sessionCache.evict(tokenHash);
      return tokenHashes;
    },

    /** A member's live sessions, to forget once their access changed (they are read again). */
    async memberSessionHashes(executor: Executor, memberId: string): Promise<string[]> {
      const tokenHashes = await repository.listMemberSessionHashes(executor, memberId);
      for (const tokenHash of tokenHashes) sessionCache.evict(tokenHash);
      return tokenHashes;
    },

    /** Drops sessions from this process's memory: they are read from the database again. */
    forgetSessions(tokenHashes: readonly string[]): void {
      for (const tokenHash of tokenHashes) sessionCache.evict(tokenHash);
    },

    /**
     * Queues a one-time login link for the address; the job sends it only to a customer. The
     * answer, and the work done before it, are the same either way, so the form cannot be used
     * to learn who is a customer.
     */
    async requestLogin(email: string, context: RequestContext): Promise<{ message: string }> {
      const emailKey = email.trim().toLowerCase();
      // Counted per address AND client, so a stranger asking for someone's links cannot make the
      // form refuse that person (decision 062).
      await rateLimiter.consumeAll([
        { key: `login-request:ip:${context.ip}`, ...authPolicy.loginRequestsPerIp },
        {
          key: `login-request:email-ip:${emailKey}:${context.ip}`,
          ...authPolicy.loginRequestsPerEmail,
          limit: loginLinksPerEmail,
          message: 'Too many login links were requested for this e-mail. Please wait 15 minutes.',
        },
      ]);
      // Across every client, an address gets at most a few mails an hour (no mail bombing); past
      // that the answer stays the same and the newest link already sent keeps working.
      try {
        await rateLimiter.consume({
          key: `login-request:email:${emailKey}`,
          limit: loginLinksPerEmail * authPolicy.loginMailsPerEmailHourFactor,
          windowSeconds: 3600,
        });
      } catch (error) {
        if (error instanceof AppError && error.code === 'RATE_LIMITED') {
          return { message: loginLinkSentMessage };
        }
        throw error;
      }
      // The same work for every address: who is a customer is decided in the job (decision 062).
      await jobQueue.send(loginMailJobName, {
        email,
        requestedIp: context.ip,
        requestedAt: clock.now().toISOString(),
      });
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
        return signInToAccount(transaction, consumed, context);
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
     * The principal of a session resolved moments ago, from memory and without waiting, or
     * undefined when `authenticate` has to ask the database. The request hook's fast path.
     */
    cachedPrincipal(token: string): Principal | undefined {
      const cached = sessionCache.get(hashToken(token));
      return cached && cached.expiresAt.getTime() > clock.now().getTime() ? cached : undefined;
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
      // A busy session's entry expires under many requests at once: they share one read.
      const running = sessionReads.get(tokenHash);
      if (running && running.generation === generation) return running.promise;
      const promise = readSession(tokenHash, now, generation);
      sessionReads.set(tokenHash, { generation, promise });
      try {
        return await promise;
      } finally {
        if (sessionReads.get(tokenHash)?.promise === promise) sessionReads.delete(tokenHash);
      }
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
          ...auditActorOf(principal),
          action: principal.impersonation ? 'staff.impersonation.end' : 'auth.logout',
          subjectType: 'session',
          subjectId: principal.sessionId,
          ip: context.ip,
          userAgent: context.userAgent ?? null,
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

export type AuthService = ReturnType<typeof createAuthService>;

export function requirePrincipal(principal: Principal | undefined): Principal {
  if (!principal) throw unauthenticated();
  return principal;
}
