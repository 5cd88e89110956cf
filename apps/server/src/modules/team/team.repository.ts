/**
 * Members of farm accounts, their cameras and invitations (docs/decisions/091). A member is a row
 * per (account, e-mail); removing keeps the row (removed_at) for the activity log.
 */
import { and, asc, eq, gt, inArray, isNotNull, isNull, ne } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import {
  accountMemberCameras,
  accountMembers,
  loginTokens,
  memberInvitations,
  sims,
  type MemberRole,
} from '../../db/schema.ts';

export type MemberRow = typeof accountMembers.$inferSelect;
export type InvitationRow = typeof memberInvitations.$inferSelect;

export const teamRepository = {
  /** A member of this account (not removed), or undefined. */
  findCurrentMember: async (executor: Executor, customerId: string, memberId: string) => {
    const [row] = await executor
      .select()
      .from(accountMembers)
      .where(
        and(
          eq(accountMembers.id, memberId),
          eq(accountMembers.customerId, customerId),
          isNull(accountMembers.removedAt),
        ),
      );
    return row;
  },

  /** A member of this account already removed, or undefined. */
  findRemovedMember: async (executor: Executor, customerId: string, memberId: string) => {
    const [row] = await executor
      .select()
      .from(accountMembers)
      .where(
        and(
          eq(accountMembers.id, memberId),
          eq(accountMembers.customerId, customerId),
          isNotNull(accountMembers.removedAt),
        ),
      );
    return row;
  },

  findCurrentMemberByEmail: async (executor: Executor, customerId: string, email: string) => {
    const [row] = await executor
      .select()
      .from(accountMembers)
      .where(
        and(
          eq(accountMembers.customerId, customerId),
          eq(accountMembers.email, email),
          isNull(accountMembers.removedAt),
        ),
      );
    return row;
  },

  /** Current (not removed) members of an account, oldest first. */
  listCurrentMembers: async (executor: Executor, customerId: string) => {
    return executor
      .select()
      .from(accountMembers)
      .where(and(eq(accountMembers.customerId, customerId), isNull(accountMembers.removedAt)))
      .orderBy(asc(accountMembers.createdAt), asc(accountMembers.id));
  },

  /** The chosen cameras of these members, with nicknames. */
  listMemberCameras: async (executor: Executor, memberIds: string[]) => {
    if (memberIds.length === 0) return [];
    return executor
      .select({
        memberId: accountMemberCameras.memberId,
        iccid: accountMemberCameras.iccid,
        nickname: sims.nickname,
      })
      .from(accountMemberCameras)
      .innerJoin(sims, eq(sims.iccid, accountMemberCameras.iccid))
      .where(inArray(accountMemberCameras.memberId, memberIds))
      .orderBy(asc(accountMemberCameras.iccid));
  },

  /** The cameras an owner can give: the account's SIMs that are not stock. */
  listAccountCameras: async (executor: Executor, customerId: string) => {
    return executor
      .select({ iccid: sims.iccid, nickname: sims.nickname })
      .from(sims)
      .where(and(eq(sims.customerId, customerId), ne(sims.state, 'stock')))
      .orderBy(asc(sims.iccid));
  },

  insertMember: async (
    executor: Executor,
    values: {
      customerId: string;
      email: string;
      role: MemberRole;
      allCameras: boolean;
      accessUntil: Date | null;
      acceptedAt?: Date | null;
      now: Date;
    },
  ) => {
    const [row] = await executor
      .insert(accountMembers)
      .values({
        customerId: values.customerId,
        email: values.email,
        role: values.role,
        allCameras: values.allCameras,
        accessUntil: values.accessUntil,
        acceptedAt: values.acceptedAt ?? null,
        createdAt: values.now,
        updatedAt: values.now,
      })
      .returning();
    return row!;
  },

  updateMember: async (
    executor: Executor,
    memberId: string,
    values: Partial<
      Pick<MemberRow, 'role' | 'allCameras' | 'accessUntil' | 'acceptedAt' | 'removedAt'>
    > & { updatedAt: Date },
  ) => {
    const [row] = await executor
      .update(accountMembers)
      .set(values)
      .where(eq(accountMembers.id, memberId))
      .returning();
    return row!;
  },

  /** Makes the member's chosen cameras exactly `iccids` (only the differences are written). */
  replaceMemberCameras: async (executor: Executor, memberId: string, iccids: string[]) => {
    const current = await executor
      .select({ iccid: accountMemberCameras.iccid })
      .from(accountMemberCameras)
      .where(eq(accountMemberCameras.memberId, memberId));
    const had = new Set(current.map((row) => row.iccid));
    const wanted = new Set(iccids);
    const gone = [...had].filter((iccid) => !wanted.has(iccid));
    const added = [...wanted].filter((iccid) => !had.has(iccid));
    if (gone.length > 0) {
      await executor
        .delete(accountMemberCameras)
        .where(
          and(
            eq(accountMemberCameras.memberId, memberId),
            inArray(accountMemberCameras.iccid, gone),
          ),
        );
    }
    if (added.length > 0) {
      await executor
        .insert(accountMemberCameras)
        .values(added.map((iccid) => ({ memberId, iccid })));
    }
  },

  insertInvitation: async (
    executor: Executor,
    values: { memberId: string; tokenHash: string; expiresAt: Date; now: Date },
  ) => {
    const [row] = await executor
      .insert(memberInvitations)
      .values({
        memberId: values.memberId,
        tokenHash: values.tokenHash,
        expiresAt: values.expiresAt,
        createdAt: values.now,
      })
      .returning();
    return row!;
  },

  /** Voids every open invitation of the member (a newer one was sent, or they were removed). */
  voidOpenInvitations: async (executor: Executor, memberId: string, now: Date) => {
    await executor
      .update(memberInvitations)
      .set({ voidedAt: now })
      .where(
        and(
          eq(memberInvitations.memberId, memberId),
          isNull(memberInvitations.usedAt),
          isNull(memberInvitations.voidedAt),
        ),
      );
  },

  voidInvitation: async (executor: Executor, invitationId: string, now: Date) => {
    await executor
      .update(memberInvitations)
      .set({ voidedAt: now })
      .where(eq(memberInvitations.id, invitationId));
  },

  /** A removed member's e-mailed sign-in links stop working too. */
  voidMemberLoginTokens: async (executor: Executor, memberId: string, now: Date) => {
    await executor
      .update(loginTokens)
      .set({ voidedAt: now })
      .where(
        and(
          eq(loginTokens.memberId, memberId),
          isNull(loginTokens.usedAt),
          isNull(loginTokens.voidedAt),
        ),
      );
  },

  /** The newest open invitation of each member, for the "invited" status and its end. */
  listOpenInvitations: async (executor: Executor, memberIds: string[]) => {
    if (memberIds.length === 0) return [];
    return executor
      .select()
      .from(memberInvitations)
      .where(
        and(
          inArray(memberInvitations.memberId, memberIds),
          isNull(memberInvitations.usedAt),
          isNull(memberInvitations.voidedAt),
        ),
      )
      .orderBy(asc(memberInvitations.createdAt));
  },

  findInvitationByTokenHash: async (executor: Executor, tokenHash: string) => {
    const [row] = await executor
      .select({ invitation: memberInvitations, member: accountMembers })
      .from(memberInvitations)
      .innerJoin(accountMembers, eq(accountMembers.id, memberInvitations.memberId))
      .where(eq(memberInvitations.tokenHash, tokenHash));
    return row;
  },

  /** Marks the invitation used if it is still open and unexpired; true when this call did. */
  consumeInvitation: async (executor: Executor, invitationId: string, now: Date) => {
    const rows = await executor
      .update(memberInvitations)
      .set({ usedAt: now })
      .where(
        and(
          eq(memberInvitations.id, invitationId),
          isNull(memberInvitations.usedAt),
          isNull(memberInvitations.voidedAt),
          gt(memberInvitations.expiresAt, now),
        ),
      )
      .returning({ id: memberInvitations.id });
    return rows.length === 1;
  },
};
