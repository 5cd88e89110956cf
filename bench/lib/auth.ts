/**
 * Customer sign-in through the real flow: ask for a login link, read it from the local outbox
 * (MAIL=outbox), exchange its token for a session token, and check the session with user-data.
 * Login requests are rate limited per IP (20 per 15 minutes), so sign in once and reuse the token.
 */
import { sleep } from './processes.ts';

interface OutboxMessage {
  to: string;
  subject: string;
  text: string;
  createdAt: string;
}

async function call(url: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const body = await response.text();
  if (!response.ok) {
    throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${body}`);
  }
  return body ? JSON.parse(body) : undefined;
}

export async function signIn(baseUrl: string, email: string): Promise<string> {
  const requestedAt = Date.now();
  await call(`${baseUrl}/api/auth/request-login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });

  let loginToken: string | undefined;
  for (let attempt = 0; attempt < 25 && !loginToken; attempt += 1) {
    const messages = (await call(
      `${baseUrl}/dev/outbox?to=${encodeURIComponent(email)}&limit=1`,
    )) as OutboxMessage[];
    const newest = messages[0];
    // Allow a little clock rounding; the outbox is newest first.
    if (newest && Date.parse(newest.createdAt) >= requestedAt - 2_000) {
      loginToken = /\/login\/([A-Za-z0-9_-]+)/.exec(newest.text)?.[1];
      if (!loginToken) throw new Error(`No /login/<token> link in the e-mail: ${newest.text}`);
    } else {
      await sleep(200);
    }
  }
  if (!loginToken) throw new Error(`No login e-mail for ${email} arrived in the outbox`);

  const session = (await call(
    `${baseUrl}/api/auth/login?token=${encodeURIComponent(loginToken)}`,
  )) as { token?: string; expiresAt?: string };
  if (!session.token)
    throw new Error(`The login exchange returned no token: ${JSON.stringify(session)}`);

  const userData = (await call(`${baseUrl}/api/auth/user-data`, {
    headers: { authorization: `Bearer ${session.token}` },
  })) as { data?: { email?: string } };
  if (userData.data?.email !== email) {
    throw new Error(`user-data answered ${JSON.stringify(userData)} for ${email}`);
  }
  return session.token;
}
