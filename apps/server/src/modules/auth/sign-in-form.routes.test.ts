import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestContext,
  insertCustomer,
  latestLoginToken,
  nextIp,
  type TestContext,
} from '../../../test/helpers/test-app.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
  await insertCustomer(context, 'farmer@example.com');
});
afterAll(() => context.close());

/** The sign-in form of `/` as a browser without the app posts it (decision 116). */
const postForm = (
  body: string,
  { remoteAddress = nextIp(), headers = {} }: { remoteAddress?: string; headers?: object } = {},
) =>
  context.app.inject({
    method: 'POST',
    url: '/login-link',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: body,
    remoteAddress,
  });

const requestLoginApi = (email: string, remoteAddress: string) =>
  context.app.inject({
    method: 'POST',
    url: '/api/auth/request-login',
    payload: { email },
    remoteAddress,
  });

describe('POST /login-link (the sign-in form without JavaScript)', () => {
  it('sends the login link to the address typed and answers a page that says so', async () => {
    const response = await postForm('email=+Farmer%40Example.com+', {
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.body).toContain(
      '<p class="notice success" id="notice" role="status">Login link sent, please check your e-mail</p>',
    );
    expect(response.body).toContain('<form method="post" action="/login-link">');
    expect(response.body).not.toContain('<script');

    await context.jobQueue.runQueued();
    const [message] = await context.mailer.list({ to: 'farmer@example.com', limit: 1 });
    expect(message?.subject).toBe('Your Farmcam login link');
    expect(await latestLoginToken(context, 'farmer@example.com')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('answers an unknown address exactly as a known one, and sends nothing', async () => {
    const known = await postForm('email=farmer%40example.com');
    const unknown = await postForm('email=nobody%40example.com');
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body).toBe(known.body);
    await context.jobQueue.runQueued();
    expect(await context.mailer.list({ to: 'nobody@example.com', limit: 10 })).toEqual([]);
  });

  it('says what is wrong with a mistyped address and keeps it, escaped, in the field', async () => {
    const response = await postForm('email=%22%3E%3Cb%3Enot+an+address');
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('role="alert">Please enter a valid e-mail address.</p>');
    expect(response.body).toContain(
      'value="&#34;&#62;&#60;b&#62;not an address" aria-invalid="true" aria-describedby="notice">',
    );
    const empty = await postForm('');
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('Please enter your e-mail address.');
  });

  it('shares its rate limits with the API: 429 with the wait, and the same count', async () => {
    await insertCustomer(context, 'limited@example.com');
    const ip = nextIp();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(
        (await postForm('email=limited%40example.com', { remoteAddress: ip })).statusCode,
      ).toBe(200);
    }
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect((await requestLoginApi('limited@example.com', ip)).statusCode).toBe(200);
    }
    const limited = await postForm('email=limited%40example.com', { remoteAddress: ip });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toContain(
      'Too many login links were requested for this e-mail. Please wait 15 minutes.',
    );
    expect((await requestLoginApi('limited@example.com', ip)).statusCode).toBe(429);
  });

  it('refuses a form posted from another website, and sends nothing', async () => {
    await insertCustomer(context, 'target@example.com');
    const response = await postForm('email=target%40example.com', {
      headers: { 'sec-fetch-site': 'cross-site', origin: 'https://elsewhere.example' },
    });
    expect(response.statusCode).toBe(403);
    await context.jobQueue.runQueued();
    expect(await context.mailer.list({ to: 'target@example.com', limit: 10 })).toEqual([]);
  });

  it('never takes the address in the URL: a GET goes back to the sign-in page', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: '/login-link?email=farmer%40example.com',
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/');
  });

  it('serves its style sheet', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/login-link/page.css' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/css; charset=utf-8');
  });
});
