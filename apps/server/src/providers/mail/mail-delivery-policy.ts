/**
 * The numbers of e-mail delivery in SMTP mode, in one place (docs/decisions/104).
 */
import { doublingWait } from '../../lib/back-off.ts';

const secondMs = 1000;
const minuteMs = 60 * secondMs;

export const mailDeliveryPolicy = {
  /** E-mails one worker claims at a time. */
  batchSize: 50,
  /** E-mails one worker sends at once: the SMTP connections its pool keeps open. */
  concurrency: 5,
  /**
   * Looked at this often without a notification: retries that came due, a notification missed
   * while the listening connection was down. A new e-mail wakes the workers at once.
   */
  idlePollMs: 2 * secondMs,
  /** Waits after the 1st, 2nd… time the server refused a message for now; the last repeats. */
  retryDelaysMs: [10 * secondMs, minuteMs, 5 * minuteMs, 15 * minuteMs, 30 * minuteMs],
  /** A message still not delivered this long after it was queued is given up (and logged). */
  giveUpAfterMs: 3 * 24 * 60 * minuteMs,
  /** Attempts at a message the server refuses for good (5xx) before it is given up. */
  permanentRefusalAttempts: 3,
  /**
   * While the server cannot be reached: one e-mail tries it after this wait, doubling up to the
   * maximum; the others wait, their attempts uncounted. Its first answer sends them all.
   */
  unreachableFirstWaitMs: secondMs,
  unreachableMaxWaitMs: 30 * secondMs,
  /** The queue's size and oldest age are read for the metrics at most this often. */
  statsEveryMs: 10 * secondMs,
  /** Settled e-mails (without their bodies) are kept this long for support, then deleted. */
  keepSettledDays: 30,
} as const;

/**
 * After a refusal: when to try again, or null to give up (a permanent refusal tried enough, or
 * three days gone since it was queued). `attempts` counts the one that just failed.
 */
export function nextMailAttempt(
  queuedAt: Date,
  attempts: number,
  isPermanent: boolean,
  now: Date,
): Date | null {
  if (isPermanent && attempts >= mailDeliveryPolicy.permanentRefusalAttempts) return null;
  const delays = mailDeliveryPolicy.retryDelaysMs;
  const next = now.getTime() + delays[Math.min(Math.max(attempts, 1), delays.length) - 1]!;
  return next - queuedAt.getTime() > mailDeliveryPolicy.giveUpAfterMs ? null : new Date(next);
}

/** The wait before the next try of a server that could not be reached `failures` times running. */
export function unreachableWaitMs(failures: number): number {
  return doublingWait(
    mailDeliveryPolicy.unreachableFirstWaitMs,
    failures,
    mailDeliveryPolicy.unreachableMaxWaitMs,
  );
}
