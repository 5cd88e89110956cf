import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, loginTokens, rateLimits } from '../../db/schema.ts';
import { hashToken } from '../../lib/tokens.ts';
import {
  bearer,
  createTestContext,
  insertCustomer,
  insertStaff,
  latestLoginToken,
  nextIp,
  signInCustomer,
  signInStaff,
  testPublicUrl,
  type TestContext,
} from '../../../test/helpers/test-app.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
  await insertCustomer(context, 'farmer@example.com');
});
afterAll(() => context.close());

const requestLogin = (email: string, remoteAddress = nextIp()) =>
  context.app.inject({
    method: 'POST',
    url: '/api/auth/request-login',
    payload: { email },
    remoteAddress,
  });
const exchange = (token: string, remoteAddress = nextIp()) =>
  context.app.inject({ method: 'GET', url: `/api/auth/login?token=${token}`, remoteAddress });

describe('magic-link sign-in', () => {
  it('e-mails a link on PUBLIC_URL that signs the customer in once', async () => {
    const response = await requestLogin('Farmer@Example.com ');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Login link sent, please check your e-mail' });

    await context.jobQueue.runQueued();
    const [message] = await context.mailer.list({ to: 'farmer@example.com', limit: 1 });
    expect(message?.subject).toBe('Your Farmcam login link');
    expect(message?.html).toContain(`${testPublicUrl}/login/`);
    const token = await latestLoginToken(context, 'farmer@example.com');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const stored = await context.database.db
      .select()
      .from(loginTokens)
      .where(eq(loginTokens.tokenHash, hashToken(token)));
    expect(stored).toHaveLength(1);
    const plain = await context.database.db
      .select()
      .from(loginTokens)
      .where(eq(loginTokens.tokenHash, token));
    expect(plain).toHaveLength(0);

    const login = await exchange(token);
    expect(login.statusCode).toBe(200);
    const session = login.json<{ token: string }>().token;
    const userData = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(session),
    });
    expect(userData.json()).toMatchObject({
      data: { email: 'farmer@example.com', role: 'customer', impersonation: null },
    });

    const again = await exchange(token);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({
      code: 'INVALID_TOKEN',
      message: 'This login link has already been used. Please request a new one.',
    });
  });

  it('gives an unknown e-mail the same answer and sends nothing', async () => {
    const before = (await context.mailer.list({ to: 'stranger@example.com' })).length;
    const response = await requestLogin('stranger@example.com');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Login link sent, please check your e-mail' });
    await context.jobQueue.runQueued();
    expect((await context.mailer.list({ to: 'stranger@example.com' })).length).toBe(before);
  });

  it('answers a customer and a stranger identically and only queues, whatever the mail server does', async () => {
    const answer = (response: Awaited<ReturnType<typeof requestLogin>>) => ({
      status: response.statusCode,
      body: response.body,
      type: response.headers['content-type'],
      length: response.headers['content-length'],
    });
    const known = await requestLogin('farmer@example.com');
    const unknown = await requestLogin('never-a-customer@example.com');
    expect(answer(known)).toEqual(answer(unknown));
    // Nothing was looked up, written or sent in the request: both are one queued job alike.
    expect(context.jobQueue.pending()).toEqual([
      {
        name: 'send-login-mail',
        payload: {
          email: 'farmer@example.com',
          requestedIp: expect.any(String),
          requestedAt: context.clock.now().toISOString(),
        },
      },
      {
        name: 'send-login-mail',
        payload: {
          email: 'never-a-customer@example.com',
          requestedIp: expect.any(String),
          requestedAt: context.clock.now().toISOString(),
        },
      },
    ]);
    await context.jobQueue.runQueued();

    // With the mail server down the request cannot tell: the failure belongs to the job.
    const broken = await createTestContext({}, undefined, () => ({
      mailer: {
        mode: 'smtp',
        send: () => Promise.reject(new Error('connect ECONNREFUSED')),
        close: async () => undefined,
      },
    }));
    try {
      await insertCustomer(broken, 'farmer@example.com');
      const ask = (email: string) =>
        broken.app.inject({
          method: 'POST',
          url: '/api/auth/request-login',
          payload: { email },
          remoteAddress: nextIp(),
        });
      const knownWhileDown = await ask('farmer@example.com');
      const unknownWhileDown = await ask('never-a-customer@example.com');
      expect(answer(knownWhileDown)).toEqual(answer(unknownWhileDown));
      expect(answer(knownWhileDown)).toEqual(answer(known));
      await expect(broken.jobQueue.runQueued()).rejects.toThrow('connect ECONNREFUSED');
    } finally {
      await broken.close();
    }
  });

  it('voids older links when a newer one is sent', async () => {
    await requestLogin('farmer@example.com');
    const older = await latestLoginToken(context, 'farmer@example.com');
    await requestLogin('farmer@example.com');
    const newer = await latestLoginToken(context, 'farmer@example.com');
    expect(newer).not.toBe(older);
    const response = await exchange(older);
    expect(response.statusCode).toBe(400);
    expect(response.json<{ message: string }>().message).toMatch(/newer login link/);
    expect((await exchange(newer)).statusCode).toBe(200);
  });

  it('refuses a link after 15 minutes', async () => {
    await requestLogin('farmer@example.com');
    const token = await latestLoginToken(context, 'farmer@example.com');
    context.clock.advance(15 * 60 * 1000 + 1000);
    const response = await exchange(token);
    expect(response.statusCode).toBe(400);
    expect(response.json<{ message: string }>().message).toMatch(/expired/);
  });

  it('rejects malformed and unknown tokens with a clear 400', async () => {
    const malformed = await exchange('short');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    const unknown = await exchange('x'.repeat(43));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json<{ message: string }>().message).toMatch(/not valid/);
  });

  it('validates the e-mail at the edge', async () => {
    const response = await requestLogin('not-an-email');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'Please enter a valid e-mail address.',
      field: 'email',
    });
    const missing = await context.app.inject({
      method: 'POST',
      url: '/api/auth/request-login',
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
  });

  it('lets only one of two simultaneous exchanges of a link succeed', async () => {
    await requestLogin('farmer@example.com');
    const token = await latestLoginToken(context, 'farmer@example.com');
    const statuses = (await Promise.all([exchange(token), exchange(token), exchange(token)])).map(
      (response) => response.statusCode,
    );
    expect(statuses.sort()).toEqual([200, 400, 400]);
  });
});

describe('rate limits', () => {
  it('limits login links per e-mail and client with 429 and Retry-After', async () => {
    await insertCustomer(context, 'limited@example.com');
    const ip = nextIp();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await requestLogin('limited@example.com', ip)).statusCode).toBe(200);
    }
    const limited = await requestLogin('Limited@Example.com', ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json<{ code: string }>().code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    context.clock.advance(15 * 60 * 1000);
    expect((await requestLogin('limited@example.com', ip)).statusCode).toBe(200);
  });

  it("does not let a stranger's requests refuse the owner, and caps the mails an address gets", async () => {
    await insertCustomer(context, 'victim@example.com');
    const strangerIp = nextIp();
    for (let attempt = 0; attempt < 6; attempt += 1)
      await requestLogin('victim@example.com', strangerIp);
    expect((await requestLogin('victim@example.com', strangerIp)).statusCode).toBe(429);
    // The owner, from their own address, is not refused.
    expect((await requestLogin('victim@example.com')).statusCode).toBe(200);

    // Many clients together: past the hourly cap the answer is the same, but no more mail goes.
    for (let attempt = 0; attempt < 20; attempt += 1) {
      expect((await requestLogin('victim@example.com')).statusCode).toBe(200);
    }
    await context.jobQueue.runQueued();
    const sent = await context.mailer.list({ to: 'victim@example.com', limit: 100 });
    expect(sent).toHaveLength(15);
  });

  it('limits login requests per IP across e-mails', async () => {
    const ip = nextIp();
    for (let attempt = 0; attempt < 20; attempt += 1) {
      expect((await requestLogin(`someone${attempt}@example.com`, ip)).statusCode).toBe(200);
    }
    const limited = await requestLogin('someone-else@example.com', ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });
});

describe('sessions', () => {
  it('revokes the session on logout', async () => {
    const token = await signInCustomer(context, 'farmer@example.com');
    const logout = await context.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: bearer(token),
    });
    expect(logout.statusCode).toBe(204);
    const after = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(token),
    });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'Session expired, please login again',
    });
  });

  it('expires an idle session', async () => {
    const token = await signInCustomer(context, 'farmer@example.com');
    context.clock.advance(8 * 24 * 3600 * 1000);
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(token),
    });
    expect(response.statusCode).toBe(401);
  });

  it('answers 401 without a token or with a made-up one', async () => {
    const none = await context.app.inject({ method: 'GET', url: '/api/auth/user-data' });
    expect(none.statusCode).toBe(401);
    const madeUp = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer('y'.repeat(43)),
    });
    expect(madeUp.statusCode).toBe(401);
  });

  it('takes the session from the Authorization header only, never a ?token= query (decision 014)', async () => {
    const token = await signInCustomer(context, 'farmer@example.com');
    const inQuery = await context.app.inject({
      method: 'GET',
      url: `/api/auth/user-data?token=${token}`,
    });
    // A token in an address ends up in logs, history and Referer headers.
    expect(inQuery.statusCode).toBe(401);
    const inHeader = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(token),
    });
    expect(inHeader.statusCode).toBe(200);
    expect(inHeader.headers['cache-control']).toBe('no-store');
  });
});

describe('staff sign-in', () => {
  beforeAll(async () => {
    await insertStaff(context, 'admin@example.com', 'admin', 'the admin password');
    await insertStaff(context, 'team@example.com', 'team', 'the team password');
  });

  it('signs admin and team in on both paths with their own role', async () => {
    for (const path of ['/api/auth/admin-login', '/api/auth/team-login']) {
      const admin = await context.app.inject({
        method: 'POST',
        url: path,
        payload: { email: 'admin@example.com', password: 'the admin password' },
        remoteAddress: nextIp(),
      });
      expect(admin.statusCode).toBe(200);
      const userData = await context.app.inject({
        method: 'GET',
        url: '/api/auth/user-data',
        headers: bearer(admin.json<{ token: string }>().token),
      });
      expect(userData.json()).toMatchObject({
        data: { email: 'admin@example.com', role: 'admin', customerId: null },
      });
    }
    const team = await signInStaff(context, 'team@example.com', 'the team password');
    const userData = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(team),
    });
    expect(userData.json()).toMatchObject({ data: { role: 'team' } });
  });

  it('answers a wrong password and an unknown e-mail alike', async () => {
    const wrong = await context.app.inject({
      method: 'POST',
      url: '/api/auth/admin-login',
      payload: { email: 'admin@example.com', password: 'nope' },
      remoteAddress: nextIp(),
    });
    const unknown = await context.app.inject({
      method: 'POST',
      url: '/api/auth/admin-login',
      payload: { email: 'nobody@example.com', password: 'nope' },
      remoteAddress: nextIp(),
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
  });

  it('requires both fields', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/auth/admin-login',
      payload: { email: '', password: '' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ message: string }>().message).toMatch(
      /Please enter both email and password/,
    );
  });

  const staffLogin = (email: string, password: string, remoteAddress: string) =>
    context.app.inject({
      method: 'POST',
      url: '/api/auth/team-login',
      payload: { email, password },
      remoteAddress,
    });
  const answer = (response: Awaited<ReturnType<typeof staffLogin>>) => ({
    status: response.statusCode,
    body: response.json<unknown>(),
    retryAfter: response.headers['retry-after'],
  });

  it('slows one IP guessing one account with growing waits, and never locks the account', async () => {
    await insertStaff(context, 'guarded@example.com', 'team', 'a good password');
    const attacker = nextIp();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(
        (await staffLogin('guarded@example.com', `guess ${attempt}`, attacker)).statusCode,
      ).toBe(401);
    }
    // The sixth try waits a minute, even with the right password: guessing cannot continue.
    const waiting = await staffLogin('guarded@example.com', 'a good password', attacker);
    expect(answer(waiting)).toEqual({
      status: 429,
      body: {
        code: 'RATE_LIMITED',
        message: 'Too many failed sign-ins. Please try again in 1 minute.',
      },
      retryAfter: '60',
    });

    // The account's owner, from anywhere else, signs in at once.
    expect((await signInStaff(context, 'guarded@example.com', 'a good password')).length).toBe(43);

    // After the wait, one more guess; failing again doubles the wait.
    context.clock.advance(60 * 1000);
    expect((await staffLogin('guarded@example.com', 'guess 6', attacker)).statusCode).toBe(401);
    const longer = await staffLogin('guarded@example.com', 'guess 7', attacker);
    expect(longer.statusCode).toBe(429);
    expect(longer.headers['retry-after']).toBe('120');

    // A success from that IP forgets its failures.
    context.clock.advance(120 * 1000);
    expect((await staffLogin('guarded@example.com', 'a good password', attacker)).statusCode).toBe(
      200,
    );
    const remembered = await context.database.db
      .select()
      .from(rateLimits)
      .where(eq(rateLimits.key, `staff-login-failures:${attacker}:guarded@example.com`));
    expect(remembered).toEqual([]);

    const audits = await context.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'auth.staff-login'));
    expect(audits.length).toBeGreaterThan(0);
  });

  it('throttles an unknown e-mail exactly like a staff account, so neither answer tells', async () => {
    const [staffIp, strangerIp] = [nextIp(), nextIp()];
    const staffAnswers = [];
    const strangerAnswers = [];
    for (let attempt = 0; attempt < 6; attempt += 1) {
      staffAnswers.push(answer(await staffLogin('team@example.com', `guess ${attempt}`, staffIp)));
      strangerAnswers.push(
        answer(await staffLogin('nobody-here@example.com', `guess ${attempt}`, strangerIp)),
      );
    }
    expect(staffAnswers).toEqual(strangerAnswers);
    expect(staffAnswers.map((entry) => entry.status)).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('caps the wait at an hour and forgets a pair after a quiet day', async () => {
    const ip = nextIp();
    const wait = async () => {
      const response = await staffLogin('admin@example.com', 'wrong', ip);
      return response.statusCode === 429 ? Number(response.headers['retry-after']) : 0;
    };
    for (let attempt = 0; attempt < 5; attempt += 1) await wait();
    const waits: number[] = [];
    for (let round = 0; round < 8; round += 1) {
      const seconds = await wait();
      waits.push(seconds);
      // Past the wait, and past the per-IP window (10 per 15 minutes) that would answer first.
      context.clock.advance(Math.max(seconds, 15 * 60) * 1000);
      expect(await wait()).toBe(0); // the allowed try, which fails again
    }
    expect(waits).toEqual([60, 120, 240, 480, 960, 1920, 3600, 3600]);
    context.clock.advance(24 * 3600 * 1000);
    expect(await wait()).toBe(0);
    expect(await wait()).toBe(0);
  });

  it('throttles staff sign-in per IP', async () => {
    const ip = nextIp();
    let lastStatus = 0;
    for (let attempt = 0; attempt < 11; attempt += 1) {
      const response = await context.app.inject({
        method: 'POST',
        url: '/api/auth/admin-login',
        payload: { email: `x${attempt}@example.com`, password: 'nope' },
        remoteAddress: ip,
      });
      lastStatus = response.statusCode;
    }
    expect(lastStatus).toBe(429);
  });
});
