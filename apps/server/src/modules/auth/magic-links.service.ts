/**
 * Magic links for customers and members (docs/decisions/003, 062): asking for one queues the
 * login e-mail (login-mail.service.ts makes and sends it), with the same answer and work for
 * every address; exchanging one signs the person in to the account it was made for.
 */
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import { hashToken } from '../../lib/tokens.ts';
import { authPolicy, loginLinkSentMessage, loginMailJobName } from './auth-policy.ts';
import { authRepository as repository } from './auth.repository.ts';
import type { IssuedSession, RequestContext } from './principal.ts';
import type { SessionsService } from './sessions.service.ts';

export function createMagicLinksService(deps: {
  db: Database;
  clock: Clock;
  /** Where `request-login` hands the login e-mail to its job. */
  jobQueue: JobQueue;
  rateLimiter: RateLimiter;
  sessions: Pick<SessionsService, 'signInToAccount'>;
  /** Overrides authPolicy.loginRequestsPerEmail.limit (e.g. for browser journeys). */
  loginLinksPerEmail?: number;
}) {
  const { db, clock, jobQueue, rateLimiter, sessions } = deps;
  const loginLinksPerEmail = deps.loginLinksPerEmail ?? authPolicy.loginRequestsPerEmail.limit;
  return {
    /**
     * Queues a one-time login link for the address; the job sends it only to a customer. The
     * answer, and the work done before it, are the same either way, so the form cannot be used
     * to learn who is a customer.
     */
    async requestLogin(email: string, context: RequestContext): Promise<{ message: string }> {
      const emailKey = email.trim().toLowerCase();
      // Counted per address AND client, so a stranger asking for someone's links cannot make the
      // form refuse that person (decision 062).
      await rateLimiter.consumeAll([
        { key: `login-request:ip:${context.ip}`, ...authPolicy.loginRequestsPerIp },
        {
          key: `login-request:email-ip:${emailKey}:${context.ip}`,
          ...authPolicy.loginRequestsPerEmail,
          limit: loginLinksPerEmail,
          message: 'Too many login links were requested for this e-mail. Please wait 15 minutes.',
        },
      ]);
      // Across every client, an address gets at most a few mails an hour (no mail bombing); past
      // that the answer stays the same and the newest link already sent keeps working.
      try {
        await rateLimiter.consume({
          key: `login-request:email:${emailKey}`,
          limit: loginLinksPerEmail * authPolicy.loginMailsPerEmailHourFactor,
          windowSeconds: 3600,
        });
      } catch (error) {
        if (error instanceof AppError && error.code === 'RATE_LIMITED') {
          return { message: loginLinkSentMessage };
        }
        throw error;
      }
      // The same work for every address: who is a customer is decided in the job (decision 062).
      await jobQueue.send(loginMailJobName, {
        email,
        requestedIp: context.ip,
        requestedAt: clock.now().toISOString(),
      });
      return { message: loginLinkSentMessage };
    },

    /** Exchanges a login link's token for a session. The token works once. */
    async exchangeLoginToken(token: string, context: RequestContext): Promise<IssuedSession> {
      await rateLimiter.consume({
        key: `login-exchange:ip:${context.ip}`,
        ...authPolicy.tokenExchangesPerIp,
      });
      const tokenHash = hashToken(token);
      const now = clock.now();
      const issued = await db.transaction(async (transaction) => {
        const consumed = await repository.consumeLoginToken(transaction, tokenHash, now);
        if (!consumed) return undefined;
        return sessions.signInToAccount(transaction, consumed, context);
      });
      if (issued) return { token: issued.token, expiresAt: issued.expiresAt };

      const existing = await repository.findLoginToken(db, tokenHash);
      const reason = !existing
        ? 'This login link is not valid. Please request a new one.'
        : existing.usedAt
          ? 'This login link has already been used. Please request a new one.'
          : existing.voidedAt
            ? 'A newer login link was sent. Please use the link in the latest e-mail.'
            : 'This login link has expired. Please request a new one.';
      throw new AppError('INVALID_TOKEN', reason);
    },
  };
}

export type MagicLinksService = ReturnType<typeof createMagicLinksService>;
