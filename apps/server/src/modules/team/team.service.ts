/**
 * The Team screen's work (docs/decisions/091): the owner's list of members, changing a member's
 * role, cameras or last day, and removing them (their sessions end at once); inviting is
 * invitations.service.ts. Every change is recorded in the account's activity (decision 092).
 */
import type { MemberResponse, TeamResponse, updateMemberBody } from '@farmcam/contract';
import type { z } from 'zod';
import type { Database } from '../../db/client.ts';
import { notFound } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import type { Mailer } from '../../providers/mail/mail.ts';
import { cameraNameOf } from '@farmcam/contract/rules';
import type { SessionsService } from '../auth/sessions.service.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { createInvitationsService } from './invitations.service.ts';
import { teamRepository as repository } from './team.repository.ts';
import { createTeamKernel, teamMessages, type TeamActor } from './team-kernel.ts';

export { teamMessages, teamPolicy, type TeamActor } from './team-kernel.ts';

export function createTeamService(deps: {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  /** Tells the owner of team changes (decision 122). */
  notifier: Notifier;
  rateLimiter: RateLimiter;
  /** A member's sessions end or are read again when their access changes. */
  sessions: Pick<
    SessionsService,
    'signInToAccount' | 'memberSessionHashes' | 'forgetSessions' | 'revokeMemberSessions'
  >;
  publicUrl: string;
}) {
  const { db, clock, sessions } = deps;
  const kernel = createTeamKernel({ db, clock });
  const { toTeamMembers, memberResponse, checkedAccess, requireMember, auditOf, accessDetails } =
    kernel;
  const invitations = createInvitationsService({ ...deps, kernel });

  return {
    async getTeam(customerId: string): Promise<TeamResponse> {
      const members = await repository.listCurrentMembers(db, customerId);
      const cameras = await repository.listAccountCameras(db, customerId);
      return {
        members: await toTeamMembers(db, members),
        cameras: cameras.map((camera) => ({
          iccid: camera.iccid,
          nickname: cameraNameOf(camera.nickname, camera.iccid),
        })),
      };
    },

    async update(
      actor: TeamActor,
      customerId: string,
      memberId: string,
      body: z.output<typeof updateMemberBody>,
    ): Promise<MemberResponse> {
      const access = await checkedAccess(db, customerId, {
        role: body.role,
        allCameras: body.allCameras,
        iccids: body.iccids,
        accessUntil: body.accessUntil,
      });
      let tokenHashes: string[] = [];
      const response = await db.transaction(async (transaction) => {
        await requireMember(transaction, customerId, memberId);
        const member = await repository.updateMember(transaction, memberId, {
          role: access.role,
          allCameras: access.allCameras,
          accessUntil: access.accessUntil,
          updatedAt: clock.now(),
        });
        await repository.replaceMemberCameras(transaction, memberId, access.iccids);
        await writeAudit(transaction, {
          ...auditOf(actor),
          action: 'member.updated',
          subjectType: 'member',
          subjectId: memberId,
          details: accessDetails(member, access.iccids),
        });
        // Their sessions are read again with the new access (the NOTIFY tells the others).
        tokenHashes = await sessions.memberSessionHashes(transaction, memberId);
        return memberResponse(transaction, member);
      });
      sessions.forgetSessions(tokenHashes);
      return response;
    },

    /** Removes the member: their sessions end at once and their links stop working. */
    async remove(actor: TeamActor, customerId: string, memberId: string): Promise<void> {
      const now = clock.now();
      const tokenHashes = await db.transaction(async (transaction) => {
        const current = await repository.findCurrentMember(transaction, customerId, memberId);
        if (!current) {
          // Removing again (a retry) changes nothing.
          if (await repository.findRemovedMember(transaction, customerId, memberId)) return [];
          throw notFound(teamMessages.memberNotFound);
        }
        const member = await repository.updateMember(transaction, memberId, {
          removedAt: now,
          updatedAt: now,
        });
        await repository.voidOpenInvitations(transaction, memberId, now);
        await repository.voidMemberLoginTokens(transaction, memberId, now);
        const revoked = await sessions.revokeMemberSessions(transaction, memberId);
        await writeAudit(transaction, {
          ...auditOf(actor),
          action: 'member.removed',
          subjectType: 'member',
          subjectId: memberId,
          details: { email: member.email, role: member.role, sessionsEnded: revoked.length },
        });
        return revoked;
      });
      sessions.forgetSessions(tokenHashes);
    },

    ...invitations,
  };
}

export type TeamService = ReturnType<typeof createTeamService>;
