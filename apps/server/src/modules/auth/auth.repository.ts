import { and, asc, eq, gt, isNotNull, isNull, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import {
  accountMemberCameras,
  accountMembers,
  customers,
  loginTokens,
  rateLimits,
  sessions,
  staff,
  type MemberRole,
} from '../../db/schema.ts';

export type SessionRow = typeof sessions.$inferSelect;

export interface SessionWithPeople {
  session: SessionRow;
  customerEmail: string | null;
  staffEmail: string | null;
  staffRole: 'team' | 'admin' | null;
  /** The member a member's session signs in as, with the cameras they may reach. */
  member: SessionMember | null;
}

export interface SessionMember {
  id: string;
  email: string;
  role: MemberRole;
  allCameras: boolean;
  /** ICCIDs when `allCameras` is false (empty otherwise). */
  iccids: string[];
  accessUntil: Date | null;
  removedAt: Date | null;
}

export const authRepository = {
  /**
   * A member with their account owner's e-mail, removed or not: whether they may sign in to that
   * account is decided from it.
   */
  findMember: async (executor: Executor, memberId: string) => {
    const [row] = await executor
      .select({ member: accountMembers, ownerEmail: customers.email })
      .from(accountMembers)
      .innerJoin(customers, eq(customers.id, accountMembers.customerId))
      .where(eq(accountMembers.id, memberId));
    return row;
  },

  /**
   * The accounts an address may enter as a member: invitation accepted, not removed, not past the
   * last day. With the owner's e-mail, oldest membership first.
   */
  findActiveMembershipsByEmail: async (executor: Executor, email: string, now: Date) => {
    return executor
      .select({ member: accountMembers, ownerEmail: customers.email })
      .from(accountMembers)
      .innerJoin(customers, eq(customers.id, accountMembers.customerId))
      .where(
        and(
          eq(accountMembers.email, email),
          isNull(accountMembers.removedAt),
          isNotNull(accountMembers.acceptedAt),
          or(isNull(accountMembers.accessUntil), gt(accountMembers.accessUntil, now)),
        ),
      )
      .orderBy(asc(accountMembers.createdAt), asc(accountMembers.id));
  },

  findCustomerByEmail: async (executor: Executor, email: string) => {
    const [row] = await executor.select().from(customers).where(eq(customers.email, email));
    return row;
  },

  findCustomerById: async (executor: Executor, customerId: string) => {
    const [row] = await executor.select().from(customers).where(eq(customers.id, customerId));
    return row;
  },

  findStaffByEmail: async (executor: Executor, email: string) => {
    const [row] = await executor.select().from(staff).where(eq(staff.email, email));
    return row;
  },

  /**
   * A newer link voids older ones: every unused, unvoided token of the customer's own sign-in, or
   * with `memberId`, of that member's sign-in to the customer's account.
   */
  voidOpenLoginTokens: async (
    executor: Executor,
    customerId: string,
    now: Date,
    options: { except?: string; memberId?: string | null } = {},
  ) => {
    await executor
      .update(loginTokens)
      .set({ voidedAt: now })
      .where(
        and(
          eq(loginTokens.customerId, customerId),
          options.memberId
            ? eq(loginTokens.memberId, options.memberId)
            : isNull(loginTokens.memberId),
          isNull(loginTokens.usedAt),
          isNull(loginTokens.voidedAt),
          options.except ? ne(loginTokens.id, options.except) : undefined,
        ),
      );
  },

  voidLoginToken: async (executor: Executor, tokenId: string, now: Date) => {
    await executor.update(loginTokens).set({ voidedAt: now }).where(eq(loginTokens.id, tokenId));
  },

  /** Returns the new token's id. */
  insertLoginToken: async (executor: Executor, values: typeof loginTokens.$inferInsert) => {
    const [row] = await executor
      .insert(loginTokens)
      .values(values)
      .returning({ id: loginTokens.id });
    return row!.id;
  },

  /** Marks the token used if it is still usable; returns its customer (and member), atomically. */
  consumeLoginToken: async (executor: Executor, tokenHash: string, now: Date) => {
    const [row] = await executor
      .update(loginTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(loginTokens.tokenHash, tokenHash),
          isNull(loginTokens.usedAt),
          isNull(loginTokens.voidedAt),
          gt(loginTokens.expiresAt, now),
        ),
      )
      .returning({ customerId: loginTokens.customerId, memberId: loginTokens.memberId });
    return row;
  },

  findLoginToken: async (executor: Executor, tokenHash: string) => {
    const [row] = await executor
      .select()
      .from(loginTokens)
      .where(eq(loginTokens.tokenHash, tokenHash));
    return row;
  },

  insertSession: async (executor: Executor, values: typeof sessions.$inferInsert) => {
    const [row] = await executor.insert(sessions).values(values).returning();
    return row as SessionRow;
  },

  findSessionByTokenHash: async (
    executor: Executor,
    tokenHash: string,
  ): Promise<SessionWithPeople | undefined> => {
    const [row] = await executor
      .select({
        session: sessions,
        customerEmail: customers.email,
        staffEmail: staff.email,
        staffRole: staff.role,
        memberEmail: accountMembers.email,
        memberRole: accountMembers.role,
        memberAllCameras: accountMembers.allCameras,
        memberAccessUntil: accountMembers.accessUntil,
        memberRemovedAt: accountMembers.removedAt,
      })
      .from(sessions)
      .leftJoin(customers, eq(customers.id, sessions.customerId))
      .leftJoin(staff, eq(staff.id, sessions.staffId))
      .leftJoin(accountMembers, eq(accountMembers.id, sessions.memberId))
      .where(eq(sessions.tokenHash, tokenHash));
    if (!row) return undefined;
    const { session } = row;
    let member: SessionMember | null = null;
    if (session.memberId && row.memberEmail && row.memberRole) {
      const allCameras = row.memberAllCameras ?? false;
      const cameras = allCameras
        ? []
        : await executor
            .select({ iccid: accountMemberCameras.iccid })
            .from(accountMemberCameras)
            .where(eq(accountMemberCameras.memberId, session.memberId));
      member = {
        id: session.memberId,
        email: row.memberEmail,
        role: row.memberRole,
        allCameras,
        iccids: cameras.map((camera) => camera.iccid),
        accessUntil: row.memberAccessUntil,
        removedAt: row.memberRemovedAt,
      };
    }
    return {
      session,
      customerEmail: row.customerEmail,
      staffEmail: row.staffEmail,
      staffRole: row.staffRole,
      member,
    };
  },

  listMemberSessionHashes: async (executor: Executor, memberId: string) => {
    const rows = await executor
      .select({ tokenHash: sessions.tokenHash })
      .from(sessions)
      .where(and(eq(sessions.memberId, memberId), isNull(sessions.revokedAt)));
    return rows.map((row) => row.tokenHash);
  },

  /** Revokes every live session of a member (removed, or their access changed to nothing). */
  revokeMemberSessions: async (executor: Executor, memberId: string, now: Date) => {
    const rows = await executor
      .update(sessions)
      .set({ revokedAt: now })
      .where(and(eq(sessions.memberId, memberId), isNull(sessions.revokedAt)))
      .returning({ tokenHash: sessions.tokenHash });
    return rows.map((row) => row.tokenHash);
  },

  touchSession: async (executor: Executor, sessionId: string, now: Date) => {
    await executor.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, sessionId));
  },

  /** Revokes a session and any impersonation sessions opened from it. */
  revokeSessionTree: async (executor: Executor, sessionId: string, now: Date) => {
    const rows = await executor
      .update(sessions)
      .set({ revokedAt: now })
      .where(
        and(
          isNull(sessions.revokedAt),
          or(eq(sessions.id, sessionId), eq(sessions.parentSessionId, sessionId)),
        ),
      )
      .returning({ tokenHash: sessions.tokenHash });
    return rows.map((row) => row.tokenHash);
  },

  /**
   * Failed staff sign-ins of one (e-mail as typed, IP) pair, kept in `rate_limits`: `hits` is
   * the count and `reset_at` the moment the pair is forgotten (a day after its last failure).
   */
  findStaffLoginFailures: async (executor: Executor, key: string) => {
    const [row] = await executor.select().from(rateLimits).where(eq(rateLimits.key, key));
    return row ? { failures: row.hits, forgetAt: row.resetAt } : undefined;
  },

  recordStaffLoginFailure: async (executor: Executor, key: string, now: Date, forgetAt: Date) => {
    await executor
      .insert(rateLimits)
      .values({ key, hits: 1, resetAt: forgetAt })
      .onConflictDoUpdate({
        target: rateLimits.key,
        set: {
          hits: sql`case when ${rateLimits.resetAt} <= ${now.toISOString()}::timestamptz then 1 else ${rateLimits.hits} + 1 end`,
          resetAt: forgetAt,
        },
      });
  },

  clearStaffLoginFailures: async (executor: Executor, key: string) => {
    await executor.delete(rateLimits).where(eq(rateLimits.key, key));
  },
};
