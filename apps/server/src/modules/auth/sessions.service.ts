/**
 * Sessions: issuing them (a customer's sign-in to an account, and for staff sign-in and
 * impersonation), resolving a bearer token to its principal with a short-lived cache that every
 * process evicts on NOTIFY (docs/decisions/065), ending them (logout, a member removed). The other
 * parts of auth (magic links, staff sign-in, impersonation) issue theirs through this service.
 */
import type { Database, Executor } from '../../db/client.ts';
import type { SessionRole } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { auditActorOf, writeAudit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import { createOpaqueToken, hashToken } from '../../lib/tokens.ts';
import { memberAccess, memberAccessEnded, ownerAccess } from './access.ts';
import { authPolicy, memberAccessEndedMessage } from './auth-policy.ts';
import { authRepository as repository, type SessionWithPeople } from './auth.repository.ts';
import type { IssuedSession, Principal, RequestContext } from './principal.ts';
import { createSessionCache, type SessionCache } from './session-cache.ts';

export function createSessionsService(deps: {
  db: Database;
  clock: Clock;
  /**
   * Resolved sessions, evicted by NOTIFY session_changes (process/compose.ts, decision 065).
   * Without one (a service on its own), a private cache that only this process's logouts evict.
   */
  sessionCache?: SessionCache<Principal>;
}) {
  const { db, clock } = deps;
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
      const found = await repository.findMember(transaction, target.memberId);
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
    /** Issues a session (staff sign-in, impersonation) inside the caller's transaction. */
    issueSession,

    /** Signs a person in to an account inside the caller's transaction (a login link, an invitation). */
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
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
