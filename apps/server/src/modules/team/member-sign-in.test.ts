import { and, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, loginTokens, sessions } from '../../db/schema.ts';
import { createOpaqueToken, hashToken } from '../../lib/tokens.ts';
import { teamRepository } from './team.repository.ts';
import {
  createSignedInMember,
  insertMember,
  latestMemberLoginToken,
} from '../../../test/helpers/members.ts';
import {
  bearer,
  createTestContext,
  insertCustomer,
  latestLoginToken,
  nextIp,
  testPublicUrl,
  type TestContext,
} from '../../../test/helpers/test-app.ts';

let context: TestContext;
let hillId: string;
let valeId: string;

beforeAll(async () => {
  context = await createTestContext();
  hillId = await insertCustomer(context, 'hill@example.com');
  valeId = await insertCustomer(context, 'vale@example.com');
});
afterAll(() => context.close());

const requestLogin = (email: string) =>
  context.app.inject({
    method: 'POST',
    url: '/api/auth/request-login',
    payload: { email },
    remoteAddress: nextIp(),
  });
const exchange = (token: string) =>
  context.app.inject({
    method: 'GET',
    url: `/api/auth/login?token=${token}`,
    remoteAddress: nextIp(),
  });
const mailsTo = async (email: string) => {
  await context.jobQueue.runQueued();
  return context.mailer.list({ to: email });
};
const userData = async (token: string) =>
  (
    await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(token),
    })
  ).json<{ data: { email: string; customerId: string; access: { role: string } } }>().data;

describe('member sign-in', () => {
  it('sends one e-mail with one link per account the address may enter', async () => {
    await insertMember(context, hillId, { email: 'vet@example.com', role: 'viewer' });
    await insertMember(context, valeId, { email: 'vet@example.com', role: 'manager' });
    expect((await requestLogin('vet@example.com')).statusCode).toBe(200);
    const mails = await mailsTo('vet@example.com');
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail!.subject).toBe('Your Farmcam login link');
    expect(mail!.text).toContain("Sign in to hill@example.com's account (Viewer): ");
    expect(mail!.text).toContain("Sign in to vale@example.com's account (Manager): ");
    expect(mail!.html.match(new RegExp(`${testPublicUrl}/login/`, 'g'))?.length).toBe(4);

    const hill = await exchange(
      await latestMemberLoginToken(context, 'vet@example.com', 'hill@example.com'),
    );
    const vale = await exchange(
      await latestMemberLoginToken(context, 'vet@example.com', 'vale@example.com'),
    );
    expect(hill.statusCode).toBe(200);
    expect(vale.statusCode).toBe(200);
    expect(await userData(hill.json<{ token: string }>().token)).toMatchObject({
      email: 'vet@example.com',
      customerId: hillId,
      access: { role: 'viewer' },
    });
    expect(await userData(vale.json<{ token: string }>().token)).toMatchObject({
      email: 'vet@example.com',
      customerId: valeId,
      access: { role: 'manager' },
    });
    const memberSessions = await context.database.db
      .select()
      .from(sessions)
      .where(isNotNull(sessions.memberId));
    expect(memberSessions.map((session) => session.customerId).sort()).toEqual(
      [hillId, valeId].sort(),
    );
  });

  it("gives an owner who is also a member their own account's link and the other's", async () => {
    await insertMember(context, valeId, { email: 'hill@example.com', role: 'viewer' });
    await requestLogin('hill@example.com');
    const [mail] = await mailsTo('hill@example.com');
    expect(mail!.text).toContain('Sign in to your own Farmcam account: ');
    expect(mail!.text).toContain("Sign in to vale@example.com's account (Viewer): ");
    // The first link is the person's own account.
    const own = await exchange(await latestLoginToken(context, 'hill@example.com'));
    expect(await userData(own.json<{ token: string }>().token)).toMatchObject({
      email: 'hill@example.com',
      customerId: hillId,
      access: { role: 'owner' },
    });
  });

  it('sends nothing to removed, expired or not yet accepted members, and answers the same', async () => {
    await insertMember(context, hillId, {
      email: 'gone@example.com',
      role: 'viewer',
      removed: true,
    });
    await insertMember(context, hillId, {
      email: 'past@example.com',
      role: 'viewer',
      accessUntil: '2026-03-09',
    });
    await insertMember(context, hillId, {
      email: 'invited@example.com',
      role: 'viewer',
      accepted: false,
    });
    const stranger = await requestLogin('stranger@example.com');
    for (const email of ['gone@example.com', 'past@example.com', 'invited@example.com']) {
      const response = await requestLogin(email);
      expect(response.statusCode).toBe(stranger.statusCode);
      expect(response.body).toBe(stranger.body);
      expect(await mailsTo(email)).toHaveLength(0);
    }
  });

  it('a newer link voids the older one for the same account only', async () => {
    await insertMember(context, valeId, { email: 'relief@example.com', role: 'manager' });
    await requestLogin('vale@example.com');
    const owners = await latestLoginToken(context, 'vale@example.com');
    await requestLogin('relief@example.com');
    const first = await latestMemberLoginToken(context, 'relief@example.com', 'vale@example.com');
    await requestLogin('relief@example.com');
    const second = await latestMemberLoginToken(context, 'relief@example.com', 'vale@example.com');
    expect((await exchange(first)).json()).toEqual({
      code: 'INVALID_TOKEN',
      message: 'A newer login link was sent. Please use the link in the latest e-mail.',
    });
    expect((await exchange(second)).statusCode).toBe(200);
    // The owner's own link into the same account was not voided by the member's.
    expect((await exchange(owners)).statusCode).toBe(200);
  });

  it('refuses a link of a member removed after it was sent', async () => {
    const memberId = await insertMember(context, hillId, {
      email: 'late@example.com',
      role: 'viewer',
    });
    const token = createOpaqueToken();
    const now = context.clock.now();
    await context.database.db.insert(loginTokens).values({
      customerId: hillId,
      memberId,
      tokenHash: hashToken(token),
      expiresAt: new Date(now.getTime() + 60_000),
      createdAt: now,
    });
    await teamRepository.updateMember(context.database.db, memberId, {
      removedAt: now,
      updatedAt: now,
    });
    const response = await exchange(token);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'INVALID_TOKEN',
      message:
        "Your access to this farm's account has ended. Ask the account owner to invite you again.",
    });
  });

  it('records sign-ins of owners and members in the account activity', async () => {
    const { memberId } = await createSignedInMember(context, valeId, {
      email: 'audited@example.com',
      role: 'viewer',
    });
    const entries = await context.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'auth.sign-in'), eq(auditLog.accountId, valeId)));
    expect(entries).toContainEqual(
      expect.objectContaining({
        actorType: 'member',
        actorId: memberId,
        actorEmail: 'audited@example.com',
        ip: expect.any(String),
      }),
    );
    const owner = await context.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'auth.sign-in'), eq(auditLog.accountId, hillId)));
    expect(owner).toContainEqual(
      expect.objectContaining({ actorType: 'customer', actorEmail: 'hill@example.com' }),
    );
  });
});
