/**
 * Waiting longer after each failure, one formula for every retry and every slowing-down
 * (decision 170): the staff sign-in's back-off, the rate limiter's, the mail queue's wait for an
 * unreachable server, and the retries of the SIM platform's and Ofcom's APIs.
 */

/**
 * The wait after the `failure`th failure in a row (1 for the first): `first`, doubled after each
 * further failure, never more than `max`.
 */
export function doublingWait(first: number, failure: number, max = Number.POSITIVE_INFINITY) {
  return Math.min(max, first * 2 ** Math.max(0, failure - 1));
}

/**
 * A wait spread by up to a quarter either way, so that many clients failing together do not all
 * try again at the same moment. `random` is in [0, 1); at 0.5 the wait is as given.
 */
export const withJitter = (wait: number, random: () => number = Math.random): number =>
  wait * (0.75 + random() * 0.5);
