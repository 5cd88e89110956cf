/**
 * Invitations to a farm's team (docs/decisions/091): the owner invites a person by e-mail with a
 * role; the e-mail holds a one-time link valid for 7 days that signs the member in. Sent again, the
 * older link stops working.
 */
import type { inviteMemberBody, MemberResponse } from '@farmcam/contract';
import type { z } from 'zod';
import type { Database, Executor } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import { lastBusinessDayBefore } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUniqueViolation } from '../../lib/database-errors.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import { createOpaqueToken, hashToken } from '../../lib/tokens.ts';
import type { MailMessage, Mailer } from '../../providers/mail/mail.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { cameraNameOf } from '@farmcam/contract/rules';
import { authPolicy, memberAccessEndedMessage } from '../auth/auth-policy.ts';
import type { SessionsService } from '../auth/sessions.service.ts';
import type { IssuedSession, RequestContext } from '../auth/principal.ts';
import { memberAccessEnded } from '../auth/access.ts';
import { invitationEmail, joinedEmail, joinedTitle } from './invitation-mail.ts';
import { teamRepository as repository, type MemberRow } from './team.repository.ts';
import { teamMessages, teamPolicy, type TeamActor, type TeamKernel } from './team-kernel.ts';

export function createInvitationsService(deps: {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  notifier: Notifier;
  rateLimiter: RateLimiter;
  sessions: Pick<SessionsService, 'signInToAccount'>;
  publicUrl: string;
  kernel: TeamKernel;
}) {
  const { db, clock, mailer, rateLimiter, sessions, publicUrl, kernel } = deps;
  const { memberResponse, checkedAccess, requireMember, auditOf, accessDetails } = kernel;

  /** The owner's "team changes" alert: someone they invited joined (decision 122). */
  async function tellOwnerOfJoining(member: MemberRow) {
    try {
      await deps.notifier.notify({
        kind: 'team',
        customerId: member.customerId,
        iccid: null,
        email: (to) => joinedEmail({ to, memberEmail: member.email, role: member.role, publicUrl }),
        short: {
          title: joinedTitle(member.email, member.role),
          body: 'Manage the team on the Team page.',
          path: '/team',
        },
      });
    } catch {
      // The joining stands; the owner sees the member on the Team page either way.
    }
  }

  /**
   * A new one-time invitation link for the member, older ones voided, inside the caller's
   * transaction. Returns the e-mail to send once that transaction committed (`deliver`).
   */
  async function prepareInvitation(
    transaction: Executor,
    member: MemberRow,
    ownerEmail: string,
  ): Promise<{ invitationId: string; message: MailMessage }> {
    const token = createOpaqueToken();
    const now = clock.now();
    await repository.voidOpenInvitations(transaction, member.id, now);
    const invitation = await repository.insertInvitation(transaction, {
      memberId: member.id,
      tokenHash: hashToken(token),
      expiresAt: new Date(now.getTime() + teamPolicy.invitationSeconds * 1000),
      now,
    });
    const cameras = member.allCameras
      ? null
      : (await repository.listMemberCameras(transaction, [member.id])).map((camera) =>
          cameraNameOf(camera.nickname, camera.iccid),
        );
    const message = invitationEmail({
      to: member.email,
      ownerEmail,
      role: member.role,
      cameraNames: cameras,
      lastDay: member.accessUntil ? lastBusinessDayBefore(member.accessUntil) : null,
      url: `${publicUrl}/invitation?token=${token}`,
    });
    return { invitationId: invitation.id, message };
  }

  /**
   * Sends the invitation (after the commit: the mail is not held inside a transaction). When the
   * mail server refuses, the link nobody received is voided and the owner is told to send again.
   */
  async function deliver(
    prepared: { invitationId: string; message: MailMessage },
    email: string,
  ): Promise<void> {
    try {
      await mailer.send(prepared.message);
    } catch {
      await repository.voidInvitation(db, prepared.invitationId, clock.now());
      throw new AppError('PROVIDER_UNAVAILABLE', teamMessages.mailFailed(email));
    }
  }

  async function countInvitation(customerId: string): Promise<void> {
    await rateLimiter.consume({
      key: `team-invite:${customerId}`,
      ...teamPolicy.invitationsPerAccount,
      message: teamMessages.tooManyInvitations,
    });
  }

  return {
    async invite(
      actor: TeamActor,
      customerId: string,
      body: z.output<typeof inviteMemberBody>,
    ): Promise<MemberResponse> {
      const ownerEmail = actor.principal.customerEmail ?? '';
      const email = body.email.trim().toLowerCase();
      if (email === ownerEmail) throw new AppError('CONFLICT', teamMessages.ownEmail);
      const access = await checkedAccess(db, customerId, {
        role: body.role,
        allCameras: body.allCameras,
        iccids: body.iccids,
        accessUntil: body.accessUntil,
      });
      if (await repository.findCurrentMemberByEmail(db, customerId, email)) {
        throw new AppError('CONFLICT', teamMessages.alreadyMember(email));
      }
      await countInvitation(customerId);
      let invited: { member: MemberRow; response: MemberResponse };
      let prepared: { invitationId: string; message: MailMessage };
      try {
        ({ invited, prepared } = await db.transaction(async (transaction) => {
          const member = await repository.insertMember(transaction, {
            customerId,
            email,
            role: access.role,
            allCameras: access.allCameras,
            accessUntil: access.accessUntil,
            now: clock.now(),
          });
          await repository.replaceMemberCameras(transaction, member.id, access.iccids);
          await writeAudit(transaction, {
            ...auditOf(actor),
            action: 'member.invited',
            subjectType: 'member',
            subjectId: member.id,
            details: accessDetails(member, access.iccids),
          });
          const invitation = await prepareInvitation(transaction, member, ownerEmail);
          return {
            invited: { member, response: await memberResponse(transaction, member) },
            prepared: invitation,
          };
        }));
      } catch (error) {
        // Two invitations of the same address at once: the second finds the first.
        if (isUniqueViolation(error)) {
          throw new AppError('CONFLICT', teamMessages.alreadyMember(email));
        }
        throw error;
      }
      await deliver(prepared, email);
      return invited.response;
    },

    /** A new invitation link for someone who has not accepted yet; the older one stops working. */
    async resendInvitation(
      actor: TeamActor,
      customerId: string,
      memberId: string,
    ): Promise<MemberResponse> {
      const member = await requireMember(db, customerId, memberId);
      if (member.acceptedAt) {
        throw new AppError('CONFLICT', teamMessages.alreadyAccepted(member.email));
      }
      await countInvitation(customerId);
      const { prepared, response } = await db.transaction(async (transaction) => {
        await writeAudit(transaction, {
          ...auditOf(actor),
          action: 'member.invitation-resent',
          subjectType: 'member',
          subjectId: memberId,
          details: { email: member.email, role: member.role },
        });
        const invitation = await prepareInvitation(
          transaction,
          member,
          actor.principal.customerEmail ?? '',
        );
        return { prepared: invitation, response: await memberResponse(transaction, member) };
      });
      await deliver(prepared, member.email);
      return response;
    },

    /**
     * Accepts an invitation: the member joins and is signed in (a session as that member). The
     * link works once, for 7 days, while the member is on the team.
     */
    async acceptInvitation(token: string, context: RequestContext): Promise<IssuedSession> {
      await rateLimiter.consume({
        key: `invitation-accept:ip:${context.ip}`,
        ...authPolicy.tokenExchangesPerIp,
      });
      const now = clock.now();
      const found = await repository.findInvitationByTokenHash(db, hashToken(token));
      if (!found) throw new AppError('INVALID_TOKEN', teamMessages.invitationNotValid);
      const { invitation, member } = found;
      if (member.removedAt) throw new AppError('INVALID_TOKEN', teamMessages.invitationWithdrawn);
      if (invitation.usedAt) throw new AppError('INVALID_TOKEN', teamMessages.invitationUsed);
      if (invitation.voidedAt) {
        throw new AppError('INVALID_TOKEN', teamMessages.invitationReplaced);
      }
      if (invitation.expiresAt <= now) {
        throw new AppError('INVALID_TOKEN', teamMessages.invitationExpired);
      }
      if (memberAccessEnded(member, now)) {
        throw new AppError('INVALID_TOKEN', memberAccessEndedMessage);
      }
      const session = await db.transaction(async (transaction) => {
        // Atomic: of two clicks at once, one signs in and the other is told the link was used.
        if (!(await repository.consumeInvitation(transaction, invitation.id, now))) {
          return undefined;
        }
        if (!member.acceptedAt) {
          await repository.updateMember(transaction, member.id, {
            acceptedAt: now,
            updatedAt: now,
          });
        }
        const issued = await sessions.signInToAccount(
          transaction,
          { customerId: member.customerId, memberId: member.id },
          context,
        );
        await writeAudit(transaction, {
          actorType: 'member',
          actorId: member.id,
          actorEmail: member.email,
          actorRole: member.role,
          accountId: member.customerId,
          action: 'member.accepted',
          subjectType: 'member',
          subjectId: member.id,
          details: { email: member.email, role: member.role },
          ip: context.ip,
          userAgent: context.userAgent?.slice(0, 300) ?? null,
        });
        return issued;
      });
      if (!session) throw new AppError('INVALID_TOKEN', teamMessages.invitationUsed);
      if (!member.acceptedAt) await tellOwnerOfJoining(member);
      return { token: session.token, expiresAt: session.expiresAt };
    },
  };
}

export type InvitationsService = ReturnType<typeof createInvitationsService>;
