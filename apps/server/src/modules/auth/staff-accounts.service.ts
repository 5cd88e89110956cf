/**
 * Staff accounts (docs/decisions/062): made, listed and removed by the `staff` command, never by
 * starting the server. A new account has no password; its one-time link (24 h, single use,
 * hashed at rest like login links) lets the person choose one at /team-login/set-password.
 */
import { staffPasswordRule } from '@farmcam/contract';
import type { Database } from '../../db/client.ts';
import type { StaffRole } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import { createOpaqueToken, hashPassword, hashToken } from '../../lib/tokens.ts';
import { staffAccountsRepository as repository } from './staff-accounts.repository.ts';

export const staffAccountsPolicy = {
  passwordLinkSeconds: 24 * 3600,
  passwordSetsPerIp: { limit: 10, windowSeconds: 15 * 60 },
} as const;

export interface StaffAccountSummary {
  email: string;
  role: StaffRole;
  hasPassword: boolean;
  createdAt: Date;
}

const normalise = (email: string) => email.trim().toLowerCase();

export function createStaffAccountsService(deps: {
  db: Database;
  clock: Clock;
  publicUrl: string;
  /** Needed only by `setPassword` (the API); the command runs without one. */
  rateLimiter?: RateLimiter;
}) {
  const { db, clock, publicUrl } = deps;

  /** Voids the account's open links and returns a new one. */
  async function issuePasswordLink(
    executor: Parameters<Parameters<Database['transaction']>[0]>[0],
    staffId: string,
  ): Promise<string> {
    const token = createOpaqueToken();
    const now = clock.now();
    await repository.voidOpenPasswordTokens(executor, staffId, now);
    await repository.insertPasswordToken(executor, {
      staffId,
      tokenHash: hashToken(token),
      expiresAt: new Date(now.getTime() + staffAccountsPolicy.passwordLinkSeconds * 1000),
      createdAt: now,
    });
    return `${publicUrl}/team-login/set-password/${token}`;
  }

  return {
    /** Creates an account without a password; returns its one-time set-password link. */
    async addStaff(input: { email: string; role: StaffRole }): Promise<{ link: string }> {
      const email = normalise(input.email);
      return db.transaction(async (transaction) => {
        const created = await repository.insertStaff(transaction, { email, role: input.role });
        if (!created) throw new AppError('CONFLICT', `${email} already has a staff account.`);
        await writeAudit(transaction, {
          actorType: 'system',
          actorId: null,
          action: 'staff.account.add',
          subjectType: 'staff',
          subjectId: created.id,
          details: { role: input.role },
        });
        return { link: await issuePasswordLink(transaction, created.id) };
      });
    },

    /**
     * A new set-password link (older ones stop working). The current password keeps working
     * until the link is used; to shut someone out at once, remove the account.
     */
    async resetStaffPassword(emailInput: string): Promise<{ link: string }> {
      const email = normalise(emailInput);
      return db.transaction(async (transaction) => {
        const member = await repository.findStaffByEmail(transaction, email);
        if (!member) throw new AppError('NOT_FOUND', `${email} has no staff account.`);
        await writeAudit(transaction, {
          actorType: 'system',
          actorId: null,
          action: 'staff.account.password-link',
          subjectType: 'staff',
          subjectId: member.id,
        });
        return { link: await issuePasswordLink(transaction, member.id) };
      });
    },

    async listStaff(): Promise<StaffAccountSummary[]> {
      const rows = await repository.listStaff(db);
      return rows.map((row) => ({
        email: row.email,
        role: row.role,
        hasPassword: row.passwordHash !== null,
        createdAt: row.createdAt,
      }));
    },

    /** Deletes the account; its sessions are revoked first, so every process refuses them. */
    async removeStaff(emailInput: string): Promise<{ revokedSessions: number }> {
      const email = normalise(emailInput);
      const now = clock.now();
      return db.transaction(async (transaction) => {
        const member = await repository.findStaffByEmail(transaction, email);
        if (!member) throw new AppError('NOT_FOUND', `${email} has no staff account.`);
        const revokedSessions = await repository.revokeStaffSessions(transaction, member.id, now);
        await repository.deleteStaff(transaction, member.id);
        await writeAudit(transaction, {
          actorType: 'system',
          actorId: null,
          action: 'staff.account.remove',
          subjectType: 'staff',
          subjectId: member.id,
          details: { email, revokedSessions },
        });
        return { revokedSessions };
      });
    },

    /**
     * Sets the password from a one-time link. The link works once; every session of the
     * account is ended, so a password change also shuts out whoever knew the old one.
     */
    async setPassword(input: { token: string; password: string }, ip: string): Promise<void> {
      await deps.rateLimiter?.consume({
        key: `staff-set-password:ip:${ip}`,
        ...staffAccountsPolicy.passwordSetsPerIp,
      });
      if (input.password.length < staffPasswordRule.minLength) {
        throw new AppError('VALIDATION_FAILED', staffPasswordRule.tooShortMessage);
      }
      const passwordHash = await hashPassword(input.password);
      const now = clock.now();
      const isSet = await db.transaction(async (transaction) => {
        const consumed = await repository.consumePasswordToken(
          transaction,
          hashToken(input.token),
          now,
        );
        if (!consumed) return false;
        await repository.setPasswordHash(transaction, consumed.staffId, passwordHash);
        await repository.revokeStaffSessions(transaction, consumed.staffId, now);
        await writeAudit(transaction, {
          actorType: 'staff',
          actorId: consumed.staffId,
          action: 'staff.account.password-set',
          subjectType: 'staff',
          subjectId: consumed.staffId,
          ip,
        });
        return true;
      });
      if (!isSet) {
        throw new AppError(
          'INVALID_TOKEN',
          'This link is not valid any more. Please ask an administrator for a new one.',
        );
      }
    },
  };
}

export type StaffAccountsService = ReturnType<typeof createStaffAccountsService>;
