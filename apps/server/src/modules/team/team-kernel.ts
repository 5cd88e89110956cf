/**
 * What the Team's services share (docs/decisions/091): the members as the Team screen shows
 * them, the checks on a role, cameras and last day, and how a change is audited.
 */
import type { MemberResponse, TeamMember } from '@farmcam/contract';
import type { Database, Executor } from '../../db/client.ts';
import type { MemberRole } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { auditActorOf } from '../../lib/audit.ts';
import {
  businessDay,
  endOfBusinessDay,
  lastBusinessDayBefore,
} from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { cameraNameOf } from '@farmcam/contract/rules';
import type { Principal, RequestContext } from '../auth/principal.ts';
import { memberAccessEnded } from '../auth/access.ts';
import { invitationDays } from './invitation-mail.ts';
import { teamRepository as repository, type MemberRow } from './team.repository.ts';

/** Who acts on the team: the owner (or staff inside their portal), from where. */
export interface TeamActor extends RequestContext {
  principal: Principal;
}

export const teamPolicy = {
  invitationSeconds: invitationDays * 24 * 3600,
  /** Invitation e-mails (new and sent again) per account and hour. */
  invitationsPerAccount: { limit: 20, windowSeconds: 3600 },
} as const;

export const teamMessages = {
  memberNotFound: 'That member was not found.',
  ownEmail: 'That is your own e-mail address: as the owner you already have every access.',
  alreadyMember: (email: string) =>
    `${email} is already on your team. Change their role or cameras in the list instead.`,
  chooseCameras: 'Choose at least one camera, or give access to every camera.',
  notYourCamera: (iccid: string) =>
    `The camera with SIM ${iccid} is not on this account. Choose from your cameras.`,
  pastLastDay: 'The last day of access cannot be before today.',
  alreadyAccepted: (email: string) =>
    `${email} has already accepted the invitation: they sign in with their e-mail address.`,
  tooManyInvitations:
    'You have sent many invitations in the last hour. Please wait a while before sending more.',
  invitationNotValid: 'This invitation link is not valid. Ask the account owner to send a new one.',
  invitationUsed:
    'This invitation has already been used. Sign in with your e-mail address on the sign-in page.',
  invitationReplaced: 'A newer invitation was sent. Please use the link in the latest e-mail.',
  invitationExpired: 'This invitation has expired. Ask the account owner to send it again.',
  mailFailed: (email: string) =>
    `${email} is on your team, but the invitation could not be e-mailed just now. Use "Send again" in a few minutes.`,
  invitationWithdrawn:
    'This invitation was withdrawn by the account owner. Ask them to invite you again.',
} as const;

export function createTeamKernel(deps: { db: Database; clock: Clock }) {
  const { clock } = deps;

  function statusOf(member: MemberRow, now: Date): TeamMember['status'] {
    if (memberAccessEnded(member, now)) return 'expired';
    return member.acceptedAt ? 'active' : 'invited';
  }

  /** The members as the Team screen shows them, with their cameras and open invitations. */
  async function toTeamMembers(executor: Executor, members: MemberRow[]): Promise<TeamMember[]> {
    const ids = members.map((member) => member.id);
    const cameras = await repository.listMemberCameras(executor, ids);
    const invitations = await repository.listOpenInvitations(executor, ids);
    const now = clock.now();
    return members.map((member) => {
      const invitation = invitations.filter((row) => row.memberId === member.id).at(-1);
      return {
        id: member.id,
        email: member.email,
        role: member.role,
        allCameras: member.allCameras,
        cameras: member.allCameras
          ? []
          : cameras
              .filter((camera) => camera.memberId === member.id)
              .map((camera) => ({
                iccid: camera.iccid,
                nickname: cameraNameOf(camera.nickname, camera.iccid),
              })),
        accessUntil: member.accessUntil ? lastBusinessDayBefore(member.accessUntil) : null,
        status: statusOf(member, now),
        invitedAt: member.createdAt.toISOString(),
        acceptedAt: member.acceptedAt?.toISOString() ?? null,
        invitationExpiresAt:
          !member.acceptedAt && invitation ? invitation.expiresAt.toISOString() : null,
      };
    });
  }

  async function memberResponse(executor: Executor, member: MemberRow): Promise<MemberResponse> {
    const [teamMember] = await toTeamMembers(executor, [member]);
    return { member: teamMember! };
  }

  /**
   * The role, cameras and end of access asked for, checked against the account: chosen cameras
   * must be the account's (not stock), at least one, and the last day not before today.
   */
  async function checkedAccess(
    executor: Executor,
    customerId: string,
    body: {
      role: MemberRole;
      allCameras: boolean;
      iccids?: string[] | undefined;
      accessUntil?: string | null | undefined;
    },
  ) {
    const iccids = body.allCameras ? [] : [...new Set(body.iccids ?? [])];
    if (!body.allCameras) {
      if (iccids.length === 0) throw new AppError('UNPROCESSABLE', teamMessages.chooseCameras);
      const accountCameras = new Set(
        (await repository.listAccountCameras(executor, customerId)).map((camera) => camera.iccid),
      );
      const foreign = iccids.find((iccid) => !accountCameras.has(iccid));
      if (foreign) throw new AppError('UNPROCESSABLE', teamMessages.notYourCamera(foreign));
    }
    const lastDay = body.accessUntil ?? null;
    if (lastDay !== null && lastDay < businessDay(clock.now())) {
      throw new AppError('UNPROCESSABLE', teamMessages.pastLastDay);
    }
    return {
      role: body.role,
      allCameras: body.allCameras,
      iccids,
      accessUntil: lastDay === null ? null : endOfBusinessDay(lastDay),
    };
  }

  async function requireMember(executor: Executor, customerId: string, memberId: string) {
    const member = await repository.findCurrentMember(executor, customerId, memberId);
    if (!member) throw notFound(teamMessages.memberNotFound);
    return member;
  }

  const auditOf = (actor: TeamActor) => ({
    ...auditActorOf(actor.principal),
    ip: actor.ip,
    userAgent: actor.userAgent?.slice(0, 300) ?? null,
  });

  /** What the activity log keeps of a member's access. */
  const accessDetails = (member: MemberRow, iccids: string[]) => ({
    email: member.email,
    role: member.role,
    allCameras: member.allCameras,
    iccids,
    lastDay: member.accessUntil ? lastBusinessDayBefore(member.accessUntil) : null,
  });

  return {
    toTeamMembers,
    memberResponse,
    checkedAccess,
    requireMember,
    auditOf,
    accessDetails,
  };
}

export type TeamKernel = ReturnType<typeof createTeamKernel>;
