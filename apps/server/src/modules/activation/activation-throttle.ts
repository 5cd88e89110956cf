/**
 * Guessing protection for SIM look-ups (DESIGN §4). A 4-letter code has 26^4 = 456,976 values, so
 * with many SIMs in stock a blind guess hits one now and then. Every look-up reserves a place in
 * its session's and its network's allowance, and a look-up that finds a SIM for sale gives it
 * back: only failures use the allowance, so a farmer who types the right code is never slowed.
 * Going over the allowance again and again doubles the wait (back-off). A global guard bounds
 * what many networks together can try, but it only counts networks that have already failed a
 * few times today, so neither one client nor a crowd of them can shut the door on everyone else.
 * No SIM is ever locked: the SIM's holder always has both methods. The numbers and the maths are
 * in docs/decisions/063-guessing-and-rate-limits.md.
 */
import { AppError } from '../../errors.ts';
import { clientNetwork } from '../../lib/client-address.ts';
import { describeWait, type RateLimiter, type RateLimitRule } from '../../lib/rate-limiter.ts';

const minute = 60;
const hour = 60 * minute;

/** The allowance of one kind of look-up (4-letter codes, or SIM numbers). */
export interface LookupLimits {
  /** Failed look-ups per session (a signed-in session, or the wizard's own id on its address). */
  perSession: { limit: number; windowSeconds: number };
  /** Failed look-ups per network (an IPv4 address, an IPv6 /64). */
  perNetwork: { limit: number; windowSeconds: number };
  /** How the wait grows when a session or network keeps going over. */
  backoff: { maxSeconds: number; memorySeconds: number };
  /** A network with fewer failed look-ups than this today never meets the global guard. */
  freePerNetworkPerDay: number;
  /** Failed look-ups from networks past their free ones, all networks together. */
  global: { limit: number; windowSeconds: number };
}

const backoff = { maxSeconds: 24 * hour, memorySeconds: 48 * hour };

export const activationLimits = {
  code: {
    perSession: { limit: 5, windowSeconds: 15 * minute },
    perNetwork: { limit: 10, windowSeconds: 15 * minute },
    backoff,
    freePerNetworkPerDay: 3,
    global: { limit: 30, windowSeconds: 15 * minute },
  },
  /** validate-iccid, validate, check-solar-sim, checkout and billing-customer. */
  simNumber: {
    perSession: { limit: 5, windowSeconds: 15 * minute },
    perNetwork: { limit: 10, windowSeconds: 15 * minute },
    backoff,
    freePerNetworkPerDay: 3,
    global: { limit: 30, windowSeconds: 15 * minute },
  },
  priceTableLogsPerNetwork: { limit: 60, windowSeconds: 15 * minute },
} as const satisfies Record<'code' | 'simNumber', LookupLimits> & Record<string, unknown>;

/** Who is looking: the per-session bucket key and the client address. */
export interface LookupSubject {
  ip: string;
  sessionKey: string;
}

/** The buckets one look-up counted in, to give back when it finds a SIM for sale. */
export interface LookupReservation {
  keys: string[];
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

export function createActivationThrottle(deps: { rateLimiter: RateLimiter }) {
  const { rateLimiter } = deps;

  async function reserve(
    kind: 'code' | 'sim',
    limits: LookupLimits,
    subject: LookupSubject,
    words: { tooMany: (wait: string) => string; busy: (wait: string) => string },
  ): Promise<LookupReservation> {
    const network = clientNetwork(subject.ip);
    const keys = [`activation-${kind}:session:${subject.sessionKey}`];
    await consumeWithMessage(
      rateLimiter,
      { key: keys[0]!, ...limits.perSession, backoff: limits.backoff },
      words.tooMany,
    );
    keys.push(`activation-${kind}:network:${network}`);
    await consumeWithMessage(
      rateLimiter,
      { key: keys[1]!, ...limits.perNetwork, backoff: limits.backoff },
      words.tooMany,
    );
    const todayKey = `activation-${kind}:network-day:${network}`;
    keys.push(todayKey);
    const failuresToday = await rateLimiter.count(todayKey, 24 * hour);
    if (failuresToday > limits.freePerNetworkPerDay) {
      keys.push(`activation-${kind}:global`);
      await consumeWithMessage(rateLimiter, { key: keys[3]!, ...limits.global }, words.busy);
    }
    return { keys };
  }

  return {
    /** Before a 4-letter code is looked up (429 with Retry-After when over an allowance). */
    beforeCodeLookup(subject: LookupSubject): Promise<LookupReservation> {
      return reserve('code', activationLimits.code, subject, {
        tooMany: (wait) =>
          `Too many activation code attempts. Please try again in ${wait}. ${useTheIccid}`,
        busy: (wait) =>
          `Activation codes are being checked too often right now. Please try again in ${wait}. ${useTheIccid}`,
      });
    },

    /** Before a SIM is looked up by its number. */
    beforeSimLookup(subject: LookupSubject): Promise<LookupReservation> {
      return reserve('sim', activationLimits.simNumber, subject, {
        tooMany: (wait) => `Too many SIM checks. Please try again in ${wait}.`,
        busy: (wait) => `SIMs are being checked too often right now. Please try again in ${wait}.`,
      });
    },

    /** The look-up found a SIM for sale: it does not use the allowance. */
    async succeeded(reservation: LookupReservation): Promise<void> {
      await rateLimiter.giveBack(reservation.keys);
    },

    async beforePriceTableLog(subject: LookupSubject): Promise<void> {
      await rateLimiter.consume({
        key: `activation-price-table-log:network:${clientNetwork(subject.ip)}`,
        ...activationLimits.priceTableLogsPerNetwork,
      });
    },
  };
}

export type ActivationThrottle = ReturnType<typeof createActivationThrottle>;
