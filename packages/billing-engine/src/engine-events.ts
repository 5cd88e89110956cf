/**
 * The local engine's events kept as Stripe keeps its webhook events (docs/decisions/077): each
 * event a change raises is written in the change's own transaction, handed to the app's handlers
 * after the commit and marked delivered. A handler that throws is tried again with back-off for
 * up to three days, then given up on (logged for an operator); an event whose process died
 * before delivering it is taken up by the delivery job once its first minute is over. Delivery
 * is at least once, so the handlers are idempotent (one dunning e-mail per failed attempt, SIM
 * reconciliation from the current state).
 *
 * Every delivery first claims its event with one conditional update (attempts + 1, next attempt
 * moved past a lease), so two processes never hand the same event over at once: the loser's
 * update finds the row no longer due.
 */
import { and, asc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Database, Executor } from '@farmcam/db';
import { billingEngineEvents } from '@farmcam/db/schema';
import { dayMs } from '@farmcam/contract/rules';
import type { EngineMetrics } from './engine-metrics.ts';
import type { BillingEvent, BillingEventHandler } from '@farmcam/billing';

const minuteMs = 60_000;

/** The numbers of delivery, in one place. */
export const billingEventDeliveryPolicy = {
  /** An event still unclaimed this long after it was raised is the job's: its process died. */
  unclaimedAfterMs: minuteMs,
  /** A claimed delivery not finished within this is the job's again: its process died. */
  claimLeaseMs: 5 * minuteMs,
  /** Waits after the 1st, 2nd… failed delivery; the last one repeats. */
  retryDelaysMs: [minuteMs, 5 * minuteMs, 30 * minuteMs, 2 * 60 * minuteMs, 6 * 60 * minuteMs],
  /** Stripe retries a webhook for up to three days, then stops; so do we. */
  giveUpAfterMs: 3 * dayMs,
  /** Events the job reads at a time. */
  jobBatchSize: 100,
} as const;

/** When to try again after `attempts` failed deliveries, or null: three days are over. */
export function nextAttemptAfterFailure(createdAt: Date, attempts: number, now: Date): Date | null {
  const delays = billingEventDeliveryPolicy.retryDelaysMs;
  const delay = delays[Math.min(Math.max(attempts, 1), delays.length) - 1]!;
  const next = now.getTime() + delay;
  return next - createdAt.getTime() > billingEventDeliveryPolicy.giveUpAfterMs
    ? null
    : new Date(next);
}

export interface StoredBillingEvent {
  id: number;
  createdAt: Date;
  event: BillingEvent;
}

export interface BillingEventDeliveryFailure {
  error: Error;
  event: BillingEvent;
  eventId: number;
  attempts: number;
  /** Null: given up on after three days. */
  nextAttemptAt: Date | null;
}

export function createBillingEventStore(deps: {
  db: Database;
  /** Real time (never the test clock's): leases and retries are about processes, not billing. */
  now: () => Date;
  handlers: readonly BillingEventHandler[];
  onFailure?: (failure: BillingEventDeliveryFailure) => void;
  metrics: EngineMetrics;
}) {
  const { db } = deps;

  /** Writes the events a transaction raised, in one insert, as part of that transaction. */
  async function record(executor: Executor, events: BillingEvent[]): Promise<StoredBillingEvent[]> {
    if (events.length === 0) return [];
    const createdAt = deps.now();
    const nextAttemptAt = new Date(
      createdAt.getTime() + billingEventDeliveryPolicy.unclaimedAfterMs,
    );
    const rows = await executor
      .insert(billingEngineEvents)
      .values(
        events.map((event) => ({
          type: event.type,
          payload: event as object,
          createdAt,
          nextAttemptAt,
        })),
      )
      .returning({ id: billingEngineEvents.id });
    // Identity values follow the rows' order: the smallest id is the first event raised.
    const ids = rows.map((row) => row.id).sort((left, right) => left - right);
    return events.map((event, index) => ({ id: ids[index]!, createdAt, event }));
  }

  /** Hands one claimed event to every handler, then marks it delivered or books its retry. */
  async function handOver(stored: StoredBillingEvent, attempts: number) {
    let failure: Error | undefined;
    for (const handler of deps.handlers) {
      try {
        await handler(stored.event);
      } catch (error) {
        // The other handlers still get the event; a retry hands it to all of them again.
        failure ??= asError(error);
      }
    }
    const now = deps.now();
    if (!failure) {
      await db
        .update(billingEngineEvents)
        .set({ deliveredAt: now, nextAttemptAt: null, lastError: null })
        .where(eq(billingEngineEvents.id, stored.id));
      deps.metrics.countEventDelivery('delivered');
      return true;
    }
    const nextAttemptAt = nextAttemptAfterFailure(stored.createdAt, attempts, now);
    await db
      .update(billingEngineEvents)
      .set({ lastError: failure.message.slice(0, 2000), nextAttemptAt })
      .where(eq(billingEngineEvents.id, stored.id));
    deps.metrics.countEventDelivery(nextAttemptAt ? 'retrying' : 'gave_up');
    deps.onFailure?.({
      error: failure,
      event: stored.event,
      eventId: stored.id,
      attempts,
      nextAttemptAt,
    });
    return false;
  }

  function leaseEnd() {
    return new Date(deps.now().getTime() + billingEventDeliveryPolicy.claimLeaseMs);
  }

  return {
    record,

    /**
     * Right after the commit, in the raising process: each event in the order raised, unless
     * the job has already taken it (this process was too slow, over a minute).
     */
    async deliverRaised(events: StoredBillingEvent[]) {
      for (const stored of events) {
        try {
          const [claimed] = await db
            .update(billingEngineEvents)
            .set({ attempts: sql`${billingEngineEvents.attempts} + 1`, nextAttemptAt: leaseEnd() })
            .where(
              and(
                eq(billingEngineEvents.id, stored.id),
                isNull(billingEngineEvents.deliveredAt),
                eq(billingEngineEvents.attempts, 0),
              ),
            )
            .returning({ attempts: billingEngineEvents.attempts });
          if (claimed) await handOver(stored, claimed.attempts);
        } catch (error) {
          // The database failed around the delivery, after the change was committed: the change
          // stands, and the job hands the event over once its claim (or first minute) is over.
          deps.onFailure?.({
            error: asError(error),
            event: stored.event,
            eventId: stored.id,
            attempts: 1,
            nextAttemptAt: leaseEnd(),
          });
        }
      }
    },

    /**
     * The delivery job: every undelivered event whose next attempt is due (a retry, or one its
     * process never delivered), oldest first. Safe on several workers at once: each event is
     * claimed by one of them.
     */
    async deliverDue(): Promise<{ delivered: number; failed: number }> {
      let delivered = 0;
      let failed = 0;
      for (;;) {
        const now = deps.now();
        const due = await db
          .select({ id: billingEngineEvents.id })
          .from(billingEngineEvents)
          .where(
            and(
              isNull(billingEngineEvents.deliveredAt),
              lte(billingEngineEvents.nextAttemptAt, now),
            ),
          )
          .orderBy(asc(billingEngineEvents.id))
          .limit(billingEventDeliveryPolicy.jobBatchSize);
        for (const { id } of due) {
          const [claimed] = await db
            .update(billingEngineEvents)
            .set({ attempts: sql`${billingEngineEvents.attempts} + 1`, nextAttemptAt: leaseEnd() })
            .where(
              and(
                eq(billingEngineEvents.id, id),
                isNull(billingEngineEvents.deliveredAt),
                lte(billingEngineEvents.nextAttemptAt, now),
              ),
            )
            .returning();
          if (!claimed) continue;
          const stored = {
            id,
            createdAt: claimed.createdAt,
            event: reviveEvent(claimed.payload as BillingEvent),
          };
          if (await handOver(stored, claimed.attempts)) delivered += 1;
          else failed += 1;
        }
        // Every event read was claimed (by this run or another) and is no longer due.
        if (due.length < billingEventDeliveryPolicy.jobBatchSize) break;
      }
      return { delivered, failed };
    },
  };
}

export type BillingEventStore = ReturnType<typeof createBillingEventStore>;

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

/** An event read back from its JSON: its instants as dates again. */
function reviveEvent(event: BillingEvent): BillingEvent {
  const revived: Record<string, unknown> = { ...event };
  for (const key of ['at', 'nextPaymentAttempt', 'cancelAt']) {
    const value = revived[key];
    if (typeof value === 'string') revived[key] = new Date(value);
  }
  return revived as BillingEvent;
}
