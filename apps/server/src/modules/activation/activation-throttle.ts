/**
 * Guessing protection for SIM look-ups (DESIGN §4). A 4-letter code has 26^4 = 456,976 values, so
 * with many SIMs in stock a blind guess hits one now and then: look-ups are throttled per visitor
 * session, per IP and for everyone together, and a stock SIM's code locks when wrong guesses pile up
 * around it. The numbers and the reasoning are in docs/decisions/051-activation-guessing-limits.md.
 */
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { describeWait, type RateLimiter, type RateLimitRule } from '../../lib/rate-limiter.ts';
import { activationRepository as repository } from './activation.repository.ts';

const minute = 60;

export const activationLimits = {
  /** 4-letter codes: one visitor session (the signed-in session, or the wizard's own id + IP). */
  codeLookupsPerSession: { limit: 10, windowSeconds: 15 * minute },
  codeLookupsPerIp: { limit: 20, windowSeconds: 15 * minute },
  /** Every visitor together: the whole space takes over five days at this pace. */
  codeLookupsGlobal: { limit: 60, windowSeconds: minute },
  /** SIM-number look-ups (validate-iccid, validate, check-solar-sim, checkout, billing account). */
  simLookupsPerSession: { limit: 30, windowSeconds: 15 * minute },
  simLookupsPerIp: { limit: 60, windowSeconds: 15 * minute },
  simLookupsGlobal: { limit: 600, windowSeconds: minute },
  priceTableLogsPerIp: { limit: 60, windowSeconds: 15 * minute },
  /**
   * A wrong guess one letter away from a stock SIM's code is a near miss for that SIM. Someone
   * working through the space passes most of a code's 100 neighbours before reaching it, so the code
   * locks first; a person with a typo makes one or two.
   */
  codeLock: {
    nearMissesToLock: 10,
    windowSeconds: 7 * 24 * 60 * minute,
    lockSeconds: 24 * 60 * minute,
  },
} as const;

/** Who is looking: the per-session bucket key and the client address. */
export interface LookupSubject {
  ip: string;
  sessionKey: string;
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The 100 codes one letter away from `code` (4 positions × 25 other letters). */
export function codeNeighbours(code: string): string[] {
  const neighbours: string[] = [];
  for (let position = 0; position < code.length; position += 1) {
    for (const letter of alphabet) {
      if (letter === code[position]) continue;
      neighbours.push(`${code.slice(0, position)}${letter}${code.slice(position + 1)}`);
    }
  }
  return neighbours;
}

const useTheIccid = 'You can also use the 20-digit SIM number printed on your SIM card.';

/** Re-words the limiter's answer, keeping its Retry-After. */
async function consumeWithMessage(
  rateLimiter: RateLimiter,
  rule: RateLimitRule,
  message: (wait: string) => string,
) {
  try {
    await rateLimiter.consume(rule);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'RATE_LIMITED') throw error;
    const wait = describeWait(Number(error.headers['retry-after'] ?? 60));
    throw new AppError('RATE_LIMITED', message(wait), error.headers);
  }
}

export function createActivationThrottle(deps: {
  db: Database;
  clock: Clock;
  rateLimiter: RateLimiter;
}) {
  const { db, clock, rateLimiter } = deps;
  const limits = activationLimits;

  return {
    /** Before a 4-letter code is looked up: session, IP, then everyone (429 with Retry-After). */
    async beforeCodeLookup(subject: LookupSubject): Promise<void> {
      const tooMany = (wait: string) =>
        `Too many activation code attempts. Please try again in ${wait}. ${useTheIccid}`;
      await consumeWithMessage(
        rateLimiter,
        { key: `activation-code:session:${subject.sessionKey}`, ...limits.codeLookupsPerSession },
        tooMany,
      );
      await consumeWithMessage(
        rateLimiter,
        { key: `activation-code:ip:${subject.ip}`, ...limits.codeLookupsPerIp },
        tooMany,
      );
      await consumeWithMessage(
        rateLimiter,
        { key: 'activation-code:global', ...limits.codeLookupsGlobal },
        (wait) =>
          `Activation codes are being checked too often right now. Please try again in ${wait}. ${useTheIccid}`,
      );
    },

    /** Before a SIM is looked up by its number. */
    async beforeSimLookup(subject: LookupSubject): Promise<void> {
      const tooMany = (wait: string) => `Too many SIM checks. Please try again in ${wait}.`;
      await consumeWithMessage(
        rateLimiter,
        { key: `activation-sim:session:${subject.sessionKey}`, ...limits.simLookupsPerSession },
        tooMany,
      );
      await consumeWithMessage(
        rateLimiter,
        { key: `activation-sim:ip:${subject.ip}`, ...limits.simLookupsPerIp },
        tooMany,
      );
      await consumeWithMessage(
        rateLimiter,
        { key: 'activation-sim:global', ...limits.simLookupsGlobal },
        (wait) => `SIMs are being checked too often right now. Please try again in ${wait}.`,
      );
    },

    async beforePriceTableLog(subject: LookupSubject): Promise<void> {
      await rateLimiter.consume({
        key: `activation-price-table-log:ip:${subject.ip}`,
        ...limits.priceTableLogsPerIp,
      });
    },

    /** The lock in force on a SIM's code, if any. */
    lockedUntil(sim: { codeLockedUntil: Date | null }): Date | null {
      return sim.codeLockedUntil && sim.codeLockedUntil > clock.now() ? sim.codeLockedUntil : null;
    },

    /**
     * A guess on a locked code keeps it locked: whoever keeps trying it must not learn when the
     * lock ends.
     */
    async extendLock(iccid: string, failures: number): Promise<void> {
      const now = clock.now();
      await repository.recordCodeFailures(db, {
        iccid,
        failures,
        lockedUntil: new Date(now.getTime() + limits.codeLock.lockSeconds * 1000),
        now,
      });
    },

    /**
     * Counts a wrong guess against every stock SIM whose code is one letter away, and locks the
     * codes that reach the limit. Returns the SIMs it locked.
     */
    async recordWrongCode(guess: string): Promise<string[]> {
      const near = await repository.stockSimsWithCodes(db, codeNeighbours(guess));
      const locked: string[] = [];
      for (const { iccid } of near) {
        const now = clock.now();
        const failures = await repository.countNearMiss(db, {
          iccid,
          now,
          windowSeconds: limits.codeLock.windowSeconds,
        });
        const shouldLock = failures >= limits.codeLock.nearMissesToLock;
        await repository.recordCodeFailures(db, {
          iccid,
          failures,
          lockedUntil: shouldLock
            ? new Date(now.getTime() + limits.codeLock.lockSeconds * 1000)
            : null,
          now,
        });
        if (shouldLock) locked.push(iccid);
      }
      return locked;
    },
  };
}

export type ActivationThrottle = ReturnType<typeof createActivationThrottle>;
