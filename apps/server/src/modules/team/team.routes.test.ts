import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, sims } from '../../db/schema.ts';
import { createSignedInMember } from '../../../test/helpers/members.ts';
import {
  bearer,
  createTestContext,
  impersonate,
  insertCustomer,
  insertStaff,
  nextIp,
  signInCustomer,
  signInStaff,
  testPublicUrl,
  type TestContext,
} from '../../../test/helpers/test-app.ts';

let context: TestContext;
let ownerId: string;
let owner: Record<string, string>;
let otherOwner: Record<string, string>;
const gate = '8944000000000000201';
const barn = '8944000000000000202';
const stock = '8944000000000000203';
const neighbours = '8944000000000000204';

beforeAll(async () => {
  context = await createTestContext();
  ownerId = await insertCustomer(context, 'owner@example.com');
  const otherId = await insertCustomer(context, 'neighbour@example.com');
  await context.database.db.insert(sims).values([
    { iccid: gate, state: 'active', customerId: ownerId, nickname: 'Gate' },
    { iccid: barn, state: 'active', customerId: ownerId, nickname: null },
    { iccid: stock, state: 'stock', customerId: ownerId },
    { iccid: neighbours, state: 'active', customerId: otherId, nickname: 'Their gate' },
  ]);
  owner = bearer(await signInCustomer(context, 'owner@example.com'));
  otherOwner = bearer(await signInCustomer(context, 'neighbour@example.com'));
});
afterAll(() => context.close());

const post = (url: string, headers: Record<string, string>, payload?: Record<string, unknown>) =>
  context.app.inject({
    method: 'POST',
    url,
    headers,
    ...(payload === undefined ? {} : { payload }),
    remoteAddress: nextIp(),
  });
const getTeam = (headers: Record<string, string>) =>
  context.app.inject({ method: 'GET', url: '/api/team', headers });
const invite = (payload: Record<string, unknown>, headers = owner) =>
  post('/api/team/invite', headers, payload);
const accept = (token: string) =>
  context.app.inject({
    method: 'POST',
    url: '/api/team/accept-invitation',
    payload: { token },
    remoteAddress: nextIp(),
  });
const userData = (token: string) =>
  context.app.inject({ method: 'GET', url: '/api/auth/user-data', headers: bearer(token) });

/** The newest invitation link e-mailed to `email`, read from the outbox like a person would. */
async function invitationToken(email: string): Promise<string> {
  const [message] = await context.mailer.list({ to: email, limit: 1 });
  const match = message?.text.match(/\/invitation\?token=([A-Za-z0-9_-]+)/);
  if (!match?.[1]) throw new Error(`No invitation in the outbox for ${email}`);
  return match[1];
}

describe('inviting a member', () => {
  it('adds them as invited and e-mails a 7-day link on PUBLIC_URL', async () => {
    const response = await invite({
      email: 'Vet@Example.com',
      role: 'viewer',
      allCameras: false,
      iccids: [gate],
      accessUntil: '2026-04-30',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      member: {
        id: expect.any(String),
        email: 'vet@example.com',
        role: 'viewer',
        allCameras: false,
        cameras: [{ iccid: gate, nickname: 'Gate' }],
        accessUntil: '2026-04-30',
        status: 'invited',
        invitedAt: '2026-03-10T12:00:00.000Z',
        acceptedAt: null,
        invitationExpiresAt: '2026-03-17T12:00:00.000Z',
      },
    });
    const [mail] = await context.mailer.list({ to: 'vet@example.com', limit: 1 });
    expect(mail!.subject).toBe('owner@example.com invited you to their Farmcam cameras');
    expect(mail!.text).toContain('as a Viewer');
    expect(mail!.text).toContain('the camera Gate, until the end of 30 April 2026');
    expect(mail!.html).toContain(`${testPublicUrl}/invitation?token=`);

    const [entry] = await context.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'member.invited'), eq(auditLog.accountId, ownerId)));
    expect(entry).toMatchObject({
      actorType: 'customer',
      actorEmail: 'owner@example.com',
      details: { email: 'vet@example.com', role: 'viewer', iccids: [gate], lastDay: '2026-04-30' },
    });

    const team = await getTeam(owner);
    expect(team.statusCode).toBe(200);
    expect(team.json()).toMatchObject({
      members: [{ email: 'vet@example.com', status: 'invited' }],
      cameras: [
        { iccid: gate, nickname: 'Gate' },
        { iccid: barn, nickname: 'Camera 0202' },
      ],
    });
  });

  it('refuses the owner’s own e-mail, a current member, and cameras that are not the account’s', async () => {
    const own = await invite({ email: 'owner@example.com', role: 'manager', allCameras: true });
    expect(own.statusCode).toBe(409);
    expect(own.json().message).toBe(
      'That is your own e-mail address: as the owner you already have every access.',
    );
    const again = await invite({ email: 'vet@example.com', role: 'manager', allCameras: true });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(
      'vet@example.com is already on your team. Change their role or cameras in the list instead.',
    );
    for (const iccid of [stock, neighbours]) {
      const foreign = await invite({
        email: 'someone@example.com',
        role: 'viewer',
        allCameras: false,
        iccids: [iccid],
      });
      expect(foreign.statusCode).toBe(422);
      expect(foreign.json().message).toBe(
        `The camera with SIM ${iccid} is not on this account. Choose from your cameras.`,
      );
    }
    const none = await invite({ email: 'someone@example.com', role: 'viewer', allCameras: false });
    expect(none.statusCode).toBe(422);
    expect(none.json().message).toBe('Choose at least one camera, or give access to every camera.');
    const past = await invite({
      email: 'someone@example.com',
      role: 'viewer',
      allCameras: true,
      accessUntil: '2026-03-09',
    });
    expect(past.statusCode).toBe(422);
    expect(past.json().message).toBe('The last day of access cannot be before today.');
  });

  it('applies a retried invitation once', async () => {
    const headers = { ...owner, 'idempotency-key': 'invite-relief-1' };
    const payload = { email: 'relief@example.com', role: 'manager', allCameras: true };
    const first = await invite(payload, headers);
    const second = await invite(payload, headers);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(await context.mailer.list({ to: 'relief@example.com' })).toHaveLength(1);
  });

  it('is the owner’s (or staff in their portal): members and plain staff are refused', async () => {
    await insertStaff(context, 'support@example.com', 'team');
    const staffToken = await signInStaff(context, 'support@example.com');
    expect(
      (await getTeam(bearer(await impersonate(context, staffToken, ownerId)))).statusCode,
    ).toBe(200);
    expect((await getTeam(bearer(staffToken))).statusCode).toBe(403);
    expect((await getTeam({})).statusCode).toBe(401);
    const manager = await createSignedInMember(context, ownerId, {
      email: 'manager@example.com',
      role: 'manager',
    });
    const refused = await getTeam(manager.headers);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('Only the account owner can manage the team.');
    expect(
      (await invite({ email: 'x@example.com', role: 'viewer', allCameras: true }, manager.headers))
        .statusCode,
    ).toBe(403);
    // Another account's owner does not reach this account's members.
    expect(
      (await post(`/api/team/members/${manager.memberId}/remove`, otherOwner)).statusCode,
    ).toBe(404);
  });

  it('is limited per account and hour', async () => {
    const limited = await insertCustomer(context, 'busy@example.com');
    const headers = bearer(await signInCustomer(context, 'busy@example.com'));
    for (let index = 0; index < 20; index += 1) {
      const response = await invite(
        { email: `hand-${index}@example.com`, role: 'viewer', allCameras: true },
        headers,
      );
      expect(response.statusCode).toBe(201);
    }
    const over = await invite(
      { email: 'one-too-many@example.com', role: 'viewer', allCameras: true },
      headers,
    );
    expect(over.statusCode).toBe(429);
    expect(over.json().message).toBe(
      'You have sent many invitations in the last hour. Please wait a while before sending more.',
    );
    expect(limited).toBeTruthy();
  });
});

describe('accepting an invitation', () => {
  it('signs the member in once, as that member', async () => {
    await invite({ email: 'herd@example.com', role: 'viewer', allCameras: false, iccids: [barn] });
    const token = await invitationToken('herd@example.com');
    const response = await accept(token);
    expect(response.statusCode).toBe(200);
    const session = response.json<{ token: string; expiresAt: string }>();
    expect(session.expiresAt).toEqual(expect.any(String));
    expect((await userData(session.token)).json().data).toMatchObject({
      email: 'herd@example.com',
      customerId: ownerId,
      access: { role: 'viewer', accountEmail: 'owner@example.com', cameraIds: [barn] },
    });
    const team = await getTeam(owner);
    expect(
      team.json().members.find((member: { email: string }) => member.email === 'herd@example.com'),
    ).toMatchObject({
      status: 'active',
      acceptedAt: expect.any(String),
      invitationExpiresAt: null,
    });
    const [entry] = await context.database.db
      .select()
      .from(auditLog)
      .where(
        and(eq(auditLog.action, 'member.accepted'), eq(auditLog.actorEmail, 'herd@example.com')),
      );
    expect(entry).toMatchObject({ actorType: 'member', accountId: ownerId });

    const again = await accept(token);
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe(
      'This invitation has already been used. Sign in with your e-mail address on the sign-in page.',
    );
  });

  it('says when the link expired, was replaced or withdrawn', async () => {
    const invited = await invite({ email: 'late@example.com', role: 'viewer', allCameras: true });
    const memberId = invited.json().member.id as string;
    const first = await invitationToken('late@example.com');
    const resent = await post(`/api/team/members/${memberId}/resend-invitation`, owner);
    expect(resent.statusCode).toBe(200);
    const second = await invitationToken('late@example.com');
    expect((await accept(first)).json().message).toBe(
      'A newer invitation was sent. Please use the link in the latest e-mail.',
    );

    context.clock.advance(7 * 24 * 3600 * 1000 + 1);
    try {
      expect((await accept(second)).json().message).toBe(
        'This invitation has expired. Ask the account owner to send it again.',
      );
    } finally {
      context.clock.set('2026-03-10T12:00:00Z');
    }
    await post(`/api/team/members/${memberId}/resend-invitation`, owner);
    const third = await invitationToken('late@example.com');
    expect((await post(`/api/team/members/${memberId}/remove`, owner)).statusCode).toBe(204);
    expect((await accept(third)).json().message).toBe(
      'This invitation was withdrawn by the account owner. Ask them to invite you again.',
    );
    expect((await accept('x'.repeat(43))).json().message).toBe(
      'This invitation link is not valid. Ask the account owner to send a new one.',
    );
  });

  it('is not sent again to someone who already accepted', async () => {
    const member = await createSignedInMember(context, ownerId, {
      email: 'joined@example.com',
      role: 'viewer',
    });
    const response = await post(`/api/team/members/${member.memberId}/resend-invitation`, owner);
    expect(response.statusCode).toBe(409);
  });
});

describe('changing and removing a member', () => {
  it('changes role and cameras, and the member’s open session follows at once', async () => {
    const member = await createSignedInMember(context, ownerId, {
      email: 'changing@example.com',
      role: 'manager',
    });
    const access = async () =>
      (
        await context.app.inject({
          method: 'GET',
          url: '/api/auth/user-data',
          headers: member.headers,
        })
      ).json().data.access;
    expect(await access()).toMatchObject({ role: 'manager', allCameras: true });
    const response = await post(`/api/team/members/${member.memberId}`, owner, {
      role: 'viewer',
      allCameras: false,
      iccids: [gate],
      accessUntil: '2026-06-01',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().member).toMatchObject({
      role: 'viewer',
      allCameras: false,
      cameras: [{ iccid: gate, nickname: 'Gate' }],
      accessUntil: '2026-06-01',
      status: 'active',
    });
    expect(await access()).toMatchObject({
      role: 'viewer',
      allCameras: false,
      cameraIds: [gate],
      accessUntil: '2026-06-01T23:00:00.000Z',
    });
    const [entry] = await context.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'member.updated'), eq(auditLog.subjectId, member.memberId)));
    expect(entry?.details).toMatchObject({ email: 'changing@example.com', role: 'viewer' });
  });

  it('ends the removed member’s session at once; removing again changes nothing', async () => {
    const member = await createSignedInMember(context, ownerId, {
      email: 'leaving@example.com',
      role: 'manager',
    });
    const me = () =>
      context.app.inject({ method: 'GET', url: '/api/auth/user-data', headers: member.headers });
    expect((await me()).statusCode).toBe(200);
    expect((await me()).statusCode).toBe(200);
    const removed = await post(`/api/team/members/${member.memberId}/remove`, owner);
    expect(removed.statusCode).toBe(204);
    // No waiting: this process dropped the session the moment the removal committed.
    expect((await me()).statusCode).toBe(401);
    expect((await post(`/api/team/members/${member.memberId}/remove`, owner)).statusCode).toBe(204);
    const team = await getTeam(owner);
    expect(
      team.json().members.some((entry: { email: string }) => entry.email === 'leaving@example.com'),
    ).toBe(false);
    const entries = await context.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'member.removed'), eq(auditLog.subjectId, member.memberId)));
    expect(entries).toHaveLength(1);
    expect(entries[0]!.details).toMatchObject({ email: 'leaving@example.com', sessionsEnded: 1 });
    // They can be invited again later.
    expect(
      (await invite({ email: 'leaving@example.com', role: 'viewer', allCameras: true })).statusCode,
    ).toBe(201);
  });

  it('answers 404 for a member of another account', async () => {
    const member = await createSignedInMember(context, ownerId, {
      email: 'mine@example.com',
      role: 'viewer',
    });
    const response = await post(`/api/team/members/${member.memberId}`, otherOwner, {
      role: 'manager',
      allCameras: true,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().message).toBe('That member was not found.');
  });
});

describe('when the mail server refuses the invitation', () => {
  it('keeps the member invited, voids the link nobody received and says to send again', async () => {
    let isMailDown = true;
    const broken = await createTestContext({}, undefined, ({ mailer }) => ({
      mailer: {
        mode: 'smtp',
        send: (message) =>
          isMailDown ? Promise.reject(new Error('connect ECONNREFUSED')) : mailer.send(message),
        close: async () => undefined,
      },
    }));
    try {
      await insertCustomer(broken, 'farm@example.com');
      isMailDown = false;
      const headers = bearer(await signInCustomer(broken, 'farm@example.com'));
      isMailDown = true;
      const response = await broken.app.inject({
        method: 'POST',
        url: '/api/team/invite',
        headers,
        payload: { email: 'hand@example.com', role: 'viewer', allCameras: true },
      });
      expect(response.statusCode).toBe(503);
      expect(response.json().message).toBe(
        'hand@example.com is on your team, but the invitation could not be e-mailed just now. Use "Send again" in a few minutes.',
      );
      const team = await broken.app.inject({ method: 'GET', url: '/api/team', headers });
      const [member] = team.json().members;
      expect(member).toMatchObject({
        email: 'hand@example.com',
        status: 'invited',
        invitationExpiresAt: null,
      });

      isMailDown = false;
      const resent = await broken.app.inject({
        method: 'POST',
        url: `/api/team/members/${member.id}/resend-invitation`,
        headers,
      });
      expect(resent.statusCode).toBe(200);
      expect(resent.json().member.invitationExpiresAt).toBe('2026-03-17T12:00:00.000Z');
    } finally {
      await broken.close();
    }
  });
});
