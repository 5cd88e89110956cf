import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sessions, staff, staffPasswordTokens, type StaffRole } from '../../db/schema.ts';

export const staffAccountsRepository = {
  /** Undefined when the e-mail already has an account. */
  insertStaff: async (executor: Executor, values: { email: string; role: StaffRole }) => {
    const [row] = await executor
      .insert(staff)
      .values({ ...values, passwordHash: null })
      .onConflictDoNothing()
      .returning({ id: staff.id });
    return row;
  },

  findStaffByEmail: async (executor: Executor, email: string) => {
    const [row] = await executor.select().from(staff).where(eq(staff.email, email));
    return row;
  },

  listStaff: (executor: Executor) => executor.select().from(staff).orderBy(asc(staff.email)),

  deleteStaff: async (executor: Executor, staffId: string) => {
    await executor.delete(staff).where(eq(staff.id, staffId));
  },

  setPasswordHash: async (executor: Executor, staffId: string, passwordHash: string) => {
    await executor.update(staff).set({ passwordHash }).where(eq(staff.id, staffId));
  },

  /** Revokes every open session of the account, its customer portals included. */
  revokeStaffSessions: async (executor: Executor, staffId: string, now: Date) => {
    const rows = await executor
      .update(sessions)
      .set({ revokedAt: now })
      .where(and(eq(sessions.staffId, staffId), isNull(sessions.revokedAt)))
      .returning({ id: sessions.id });
    return rows.length;
  },

  voidOpenPasswordTokens: async (executor: Executor, staffId: string, now: Date) => {
    await executor
      .update(staffPasswordTokens)
      .set({ voidedAt: now })
      .where(
        and(
          eq(staffPasswordTokens.staffId, staffId),
          isNull(staffPasswordTokens.usedAt),
          isNull(staffPasswordTokens.voidedAt),
        ),
      );
  },

  insertPasswordToken: async (
    executor: Executor,
    values: typeof staffPasswordTokens.$inferInsert,
  ) => {
    await executor.insert(staffPasswordTokens).values(values);
  },

  /** Marks the link used if it still works; returns its account, atomically. */
  consumePasswordToken: async (executor: Executor, tokenHash: string, now: Date) => {
    const [row] = await executor
      .update(staffPasswordTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(staffPasswordTokens.tokenHash, tokenHash),
          isNull(staffPasswordTokens.usedAt),
          isNull(staffPasswordTokens.voidedAt),
          gt(staffPasswordTokens.expiresAt, now),
        ),
      )
      .returning({ staffId: staffPasswordTokens.staffId });
    return row;
  },
};
