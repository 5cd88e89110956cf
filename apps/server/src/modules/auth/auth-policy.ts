/**
 * Sign-in's numbers and sentences, one place for every part of auth (DESIGN §4): lifetimes,
 * limits, the staff back-off (docs/decisions/062) and the answers the forms give.
 */
import { doublingWait } from '../../lib/back-off.ts';

/** Lifetimes and limits of sign-in (DESIGN §4). */
export const authPolicy = {
  loginTokenSeconds: 15 * 60,
  customerSession: { absoluteSeconds: 30 * 24 * 3600, idleSeconds: 7 * 24 * 3600 },
  staffSession: { absoluteSeconds: 12 * 3600, idleSeconds: 2 * 3600 },
  impersonationSeconds: 30 * 60,
  /** How often a session's last-seen time is written (idle expiry needs no finer grain). */
  touchEverySeconds: 60,
  /**
   * How long a resolved session is trusted from memory before it is read again. Revocation does
   * not wait for it: every process evicts on NOTIFY session_changes (docs/decisions/065).
   */
  sessionCacheSeconds: 5,
  sessionCacheEntries: 10_000,
  loginRequestsPerEmail: { limit: 5, windowSeconds: 15 * 60 },
  loginRequestsPerIp: { limit: 20, windowSeconds: 15 * 60 },
  /** Mails one address may receive per hour from every client together: this × the per-client limit. */
  loginMailsPerEmailHourFactor: 3,
  tokenExchangesPerIp: { limit: 30, windowSeconds: 15 * 60 },
  staffLoginsPerIp: { limit: 10, windowSeconds: 15 * 60 },
  /**
   * Failed staff sign-ins per (e-mail as typed, IP): the first 5 are free, then that pair waits
   * 1, 2, 4 … minutes (at most an hour) between tries; a success or a quiet day forgets them.
   * Nobody else is slowed: the account is never locked (docs/decisions/062).
   */
  staffLoginBackOff: {
    freeFailures: 5,
    firstWaitSeconds: 60,
    maxWaitSeconds: 3600,
    forgetAfterSeconds: 24 * 3600,
  },
} as const;

/** How long a (e-mail, IP) pair with `failures` failed sign-ins waits after its last one. */
export function staffLoginWaitSeconds(failures: number): number {
  const { freeFailures, firstWaitSeconds, maxWaitSeconds } = authPolicy.staffLoginBackOff;
  if (failures < freeFailures) return 0;
  return doublingWait(firstWaitSeconds, failures - freeFailures + 1, maxWaitSeconds);
}

/** A member's link or invitation after they were removed or their last day passed. */
export const memberAccessEndedMessage =
  "Your access to this farm's account has ended. Ask the account owner to invite you again.";

export const loginLinkSentMessage = 'Login link sent, please check your e-mail';
/** The job that looks the address up and sends the link (login-mail.service.ts). */
export const loginMailJobName = 'send-login-mail';
