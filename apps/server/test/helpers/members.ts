/**
 * Farm-team members for tests (docs/decisions/091): rows made directly, sessions made through the
 * real sign-in (the login e-mail's link for the owner's account, exchanged at /auth/login).
 */
import { accountMemberCameras, type MemberRole } from '../../src/db/schema.ts';
import { endOfBusinessDay } from '../../src/lib/business-calendar.ts';
import { teamRepository } from '../../src/modules/team/team.repository.ts';
import { authRepository } from '../../src/modules/auth/auth.repository.ts';
import { bearer, nextIp, type TestContext } from './test-app.ts';

export interface TestMember {
  email: string;
  role: MemberRole;
  /** Default true; with false, `iccids` are the member's cameras. */
  allCameras?: boolean;
  iccids?: string[];
  /** The last UK day (YYYY-MM-DD) of access; access ends at the UK midnight after it. */
  accessUntil?: string | null;
  /** Default true: the invitation was accepted. */
  accepted?: boolean;
  /** Removed from the team (the row stays, as after POST /team/members/:id/remove). */
  removed?: boolean;
  /** Their access ended just now (their last day is over). */
  expired?: boolean;
}

/** Adds a member to the account of `ownerId` and returns the member's id. */
export async function insertMember(
  context: TestContext,
  ownerId: string,
  member: TestMember,
): Promise<string> {
  const { db } = context.database;
  const now = context.clock.now();
  const allCameras = member.allCameras ?? true;
  const row = await teamRepository.insertMember(db, {
    customerId: ownerId,
    email: member.email,
    role: member.role,
    allCameras,
    accessUntil: member.accessUntil ? endOfBusinessDay(member.accessUntil) : null,
    acceptedAt: member.accepted === false ? null : now,
    now,
  });
  if (!allCameras && member.iccids?.length) {
    await db
      .insert(accountMemberCameras)
      .values(member.iccids.map((iccid) => ({ memberId: row.id, iccid })));
  }
  await endMembership(context, row.id, member);
  return row.id;
}

/**
 * The newest sign-in link for `ownerEmail`'s account in the login e-mail to `email`, read from
 * the outbox like a person would (the e-mail has one link per account the address may enter).
 */
export async function latestMemberLoginToken(
  context: TestContext,
  email: string,
  ownerEmail: string,
): Promise<string> {
  await context.jobQueue.runQueued();
  const [message] = await context.mailer.list({ to: email, limit: 1 });
  const line = message?.text.split('\n').find((text) => text.includes(`${ownerEmail}'s account`));
  const match = line?.match(/\/login\/([A-Za-z0-9_-]+)/);
  if (!match?.[1]) throw new Error(`No link into ${ownerEmail}'s account in the mail to ${email}`);
  return match[1];
}

/**
 * Signs a member in through the real flow: request a login link for their e-mail, take the link
 * for the owner's account from the outbox, exchange it. Returns the session token. Sign in
 * before removing or expiring a member to hold a session that must stop working.
 */
export async function signInMember(context: TestContext, memberId: string): Promise<string> {
  const found = await authRepository.findMember(context.database.db, memberId);
  if (!found) throw new Error(`No member ${memberId}`);
  const remoteAddress = nextIp();
  const newestMail = async () =>
    (await context.mailer.list({ to: found.member.email, limit: 1 }))[0]?.id;
  const mailBefore = await newestMail();
  const request = await context.app.inject({
    method: 'POST',
    url: '/api/auth/request-login',
    payload: { email: found.member.email },
    remoteAddress,
  });
  if (request.statusCode !== 200) throw new Error(`request-login failed: ${request.body}`);
  await context.jobQueue.runQueued();
  if ((await newestMail()) === mailBefore) {
    throw new Error(
      `No link was e-mailed to ${found.member.email} (removed, expired or not accepted?)`,
    );
  }
  const token = await latestMemberLoginToken(context, found.member.email, found.ownerEmail);
  const login = await context.app.inject({
    method: 'GET',
    url: `/api/auth/login?token=${token}`,
    remoteAddress,
  });
  if (login.statusCode !== 200) throw new Error(`member login failed: ${login.body}`);
  return login.json<{ token: string }>().token;
}

/** A member added and signed in: their id and request headers. */
export async function createSignedInMember(
  context: TestContext,
  ownerId: string,
  member: TestMember,
): Promise<{ memberId: string; headers: Record<string, string> }> {
  const memberId = await insertMember(context, ownerId, {
    ...member,
    removed: false,
    expired: false,
  });
  const headers = bearer(await signInMember(context, memberId));
  await endMembership(context, memberId, member);
  return { memberId, headers };
}

/** Removes or expires the member as asked (the database tells every session cache). */
async function endMembership(
  context: TestContext,
  memberId: string,
  member: Pick<TestMember, 'removed' | 'expired'>,
): Promise<void> {
  const now = context.clock.now();
  if (member.removed) {
    await teamRepository.updateMember(context.database.db, memberId, {
      removedAt: now,
      updatedAt: now,
    });
  }
  if (member.expired) {
    await teamRepository.updateMember(context.database.db, memberId, {
      accessUntil: now,
      updatedAt: now,
    });
  }
}
