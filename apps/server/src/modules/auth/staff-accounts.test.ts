import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staff, staffPasswordTokens } from '../../db/schema.ts';
import { hashToken } from '../../lib/tokens.ts';
import {
  bearer,
  createTestContext,
  nextIp,
  signInStaff,
  testPublicUrl,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { createStaffAccountsService } from './staff-accounts.service.ts';

let context: TestContext;
let accounts: ReturnType<typeof createStaffAccountsService>;
beforeAll(async () => {
  context = await createTestContext();
  // The service behind `npm run staff` (src/cli/staff-command.ts), on the app's database.
  accounts = createStaffAccountsService({
    db: context.database.db,
    clock: context.clock,
    publicUrl: testPublicUrl,
  });
});
afterAll(() => context.close());

const tokenOf = (link: string) => {
  const match = link.match(
    /^http:\/\/portal\.test\/team-login\/set-password\/([A-Za-z0-9_-]{43})$/,
  );
  if (!match?.[1]) throw new Error(`Not a set-password link: ${link}`);
  return match[1];
};
const setPassword = (token: string, password: string, remoteAddress = nextIp()) =>
  context.app.inject({
    method: 'POST',
    url: '/api/auth/staff-set-password',
    payload: { token, password },
    remoteAddress,
  });
const staffLogin = (email: string, password: string) =>
  context.app.inject({
    method: 'POST',
    url: '/api/auth/team-login',
    payload: { email, password },
    remoteAddress: nextIp(),
  });

describe('staff accounts from the command', () => {
  it('makes an account without a password whose one-time link sets one', async () => {
    const { link } = await accounts.addStaff({ email: ' New.Admin@Example.com', role: 'admin' });
    const token = tokenOf(link);
    const [member] = await context.database.db
      .select()
      .from(staff)
      .where(eq(staff.email, 'new.admin@example.com'));
    expect(member).toMatchObject({ role: 'admin', passwordHash: null });
    // Hashed at rest, like login links.
    const stored = await context.database.db.select().from(staffPasswordTokens);
    expect(stored.map((row) => row.tokenHash)).toEqual([hashToken(token)]);
    expect(stored[0]!.expiresAt.getTime() - context.clock.now().getTime()).toBe(24 * 3600 * 1000);

    // No password yet: nothing signs in, with the same answer as a wrong password.
    const before = await staffLogin('new.admin@example.com', '');
    expect(before.statusCode).toBe(400);
    const guess = await staffLogin('new.admin@example.com', 'anything at all');
    expect(guess.json()).toEqual({
      code: 'INVALID_CREDENTIALS',
      message: 'Incorrect email or password',
    });

    const response = await setPassword(token, 'correct horse battery');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Your password is set. You can sign in now.' });
    const session = await signInStaff(context, 'new.admin@example.com', 'correct horse battery');
    const userData = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(session),
    });
    expect(userData.json()).toMatchObject({
      data: { email: 'new.admin@example.com', role: 'admin' },
    });

    // Single use.
    const again = await setPassword(token, 'another long password');
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({
      code: 'INVALID_TOKEN',
      message: 'This link is not valid any more. Please ask an administrator for a new one.',
    });
  });

  it('refuses a second account for the same e-mail', async () => {
    await accounts.addStaff({ email: 'twice@example.com', role: 'team' });
    await expect(accounts.addStaff({ email: 'TWICE@example.com', role: 'admin' })).rejects.toThrow(
      'twice@example.com already has a staff account.',
    );
  });

  it('asks for 12 characters and refuses an expired link', async () => {
    const { link } = await accounts.addStaff({ email: 'slow@example.com', role: 'team' });
    const short = await setPassword(tokenOf(link), 'too short');
    expect(short.statusCode).toBe(400);
    expect(short.json()).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'Please choose a password of at least 12 characters.',
      field: 'password',
    });
    context.clock.advance(24 * 3600 * 1000 + 1000);
    const late = await setPassword(tokenOf(link), 'correct horse battery');
    expect(late.statusCode).toBe(400);
    expect(late.json<{ code: string }>().code).toBe('INVALID_TOKEN');
  });

  it('resets with a new link that voids the old one, and a new password ends every session', async () => {
    const first = await accounts.addStaff({ email: 'reset@example.com', role: 'team' });
    await setPassword(tokenOf(first.link), 'the first password');
    const session = await signInStaff(context, 'reset@example.com', 'the first password');

    const older = await accounts.resetStaffPassword('reset@example.com');
    const newer = await accounts.resetStaffPassword('Reset@example.com');
    // The current password still works until the link is used.
    expect((await staffLogin('reset@example.com', 'the first password')).statusCode).toBe(200);
    expect((await setPassword(tokenOf(older.link), 'the second password')).statusCode).toBe(400);
    expect((await setPassword(tokenOf(newer.link), 'the second password')).statusCode).toBe(200);

    expect((await staffLogin('reset@example.com', 'the first password')).statusCode).toBe(401);
    expect((await staffLogin('reset@example.com', 'the second password')).statusCode).toBe(200);
    const old = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(session),
    });
    expect(old.statusCode).toBe(401);
    await expect(accounts.resetStaffPassword('nobody@example.com')).rejects.toThrow(
      'nobody@example.com has no staff account.',
    );
  });

  it('lists accounts, and removing one ends its sessions at once', async () => {
    const { link } = await accounts.addStaff({ email: 'leaver@example.com', role: 'team' });
    await setPassword(tokenOf(link), 'a leaving password');
    const session = await signInStaff(context, 'leaver@example.com', 'a leaving password');
    expect(await accounts.listStaff()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: 'leaver@example.com', role: 'team', hasPassword: true }),
        expect.objectContaining({ email: 'twice@example.com', hasPassword: false }),
      ]),
    );

    expect(await accounts.removeStaff('leaver@example.com')).toEqual({ revokedSessions: 1 });
    const after = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(session),
    });
    expect(after.statusCode).toBe(401);
    expect((await staffLogin('leaver@example.com', 'a leaving password')).statusCode).toBe(401);
    expect((await accounts.listStaff()).map((member) => member.email)).not.toContain(
      'leaver@example.com',
    );
  });

  it('limits set-password attempts per IP', async () => {
    const ip = nextIp();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt += 1) {
      statuses.push((await setPassword('b'.repeat(43), 'correct horse battery', ip)).statusCode);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400));
    expect(statuses[10]).toBe(429);
  });
});
