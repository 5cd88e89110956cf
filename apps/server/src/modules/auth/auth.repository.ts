import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { customers, loginTokens, sessions, staff } from '../../db/schema.ts';

export type SessionRow = typeof sessions.$inferSelect;

export interface SessionWithPeople {
  session: SessionRow;
  customerEmail: string | null;
  staffEmail: string | null;
  staffRole: 'team' | 'admin' | null;
}

export const authRepository = {
  findCustomerByEmail: async (executor: Executor, email: string) => {
    const [row] = await executor.select().from(customers).where(eq(customers.email, email));
    return row;
  },

  findStaffByEmail: async (executor: Executor, email: string) => {
    const [row] = await executor.select().from(staff).where(eq(staff.email, email));
    return row;
  },

  /** A newer link voids older ones: every unused, unvoided token of the customer. */
  voidOpenLoginTokens: async (executor: Executor, customerId: string, now: Date) => {
    await executor
      .update(loginTokens)
      .set({ voidedAt: now })
      .where(
        and(
          eq(loginTokens.customerId, customerId),
          isNull(loginTokens.usedAt),
          isNull(loginTokens.voidedAt),
        ),
      );
  },

  insertLoginToken: async (executor: Executor, values: typeof loginTokens.$inferInsert) => {
    await executor.insert(loginTokens).values(values);
  },

  /** Marks the token used if it is still usable; returns its customer, atomically. */
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
      .returning({ customerId: loginTokens.customerId });
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
      })
      .from(sessions)
      .leftJoin(customers, eq(customers.id, sessions.customerId))
      .leftJoin(staff, eq(staff.id, sessions.staffId))
      .where(eq(sessions.tokenHash, tokenHash));
    return row;
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

  recordStaffLoginFailure: async (
    executor: Executor,
    staffId: string,
    lockAfter: number,
    lockUntil: Date,
  ) => {
    await executor
      .update(staff)
      .set({
        failedLogins: sql`${staff.failedLogins} + 1`,
        lockedUntil: sql`case when ${staff.failedLogins} + 1 >= ${lockAfter} then ${lockUntil.toISOString()}::timestamptz else ${staff.lockedUntil} end`,
      })
      .where(eq(staff.id, staffId));
  },

  clearStaffLoginFailures: async (executor: Executor, staffId: string) => {
    await executor
      .update(staff)
      .set({ failedLogins: 0, lockedUntil: null })
      .where(eq(staff.id, staffId));
  },
};
