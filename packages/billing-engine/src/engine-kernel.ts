/**
 * The local billing engine's kernel: what every part of it writes through. Transactions that
 * write the events they raised (docs/decisions/077) and hand them over after the commit, the
 * engine's own idempotency keys, the test clock, and the catalogue price look-up.
 */
import { and, eq } from 'drizzle-orm';
import type { Database, Executor } from '@farmcam/db';
import { idempotencyKeys, prices, products } from '@farmcam/db/schema';
import { hashRequest, isUniqueViolation } from '@farmcam/db';
import { BillingError, type BillingEvent, type BillingEventHandler } from '@farmcam/billing';
import { createBillingEventStore, type BillingEventDeliveryFailure } from './engine-events.ts';
import { uncounted, type EngineMetrics } from './engine-metrics.ts';
import type { InvoicingSettings } from './ledger.ts';
import type { TestClock } from './test-clock.ts';

export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

export interface EngineKernelDeps {
  db: Database;
  clock: TestClock;
  /** A handler threw: the event is tried again later, or, after three days, given up on. */
  onDeliveryFailure?: (failure: BillingEventDeliveryFailure) => void;
  /**
   * False: events are only written, and left to the delivery job (a test's stand-in for a
   * process that dies between the commit and the delivery). True by default.
   */
  deliversAfterCommit?: boolean;
  /** What it counts for the app's metrics; nothing when not given. */
  metrics?: EngineMetrics;
}

export type EngineKernel = ReturnType<typeof createEngineKernel>;

/** What the parts of the engine share besides the kernel: the invoicing settings and the address. */
export interface EngineSettings {
  invoicing: InvoicingSettings;
  /** The portal's public address, for the hosted pages' absolute URLs. */
  publicUrl: string;
}

export function createEngineKernel(deps: EngineKernelDeps) {
  const { db, clock } = deps;
  const metrics = deps.metrics ?? uncounted;
  const handlers: BillingEventHandler[] = [];
  const eventStore = createBillingEventStore({
    db,
    // Real time: the test clock runs ahead by its offset.
    now: () => new Date(clock.now().getTime() - clock.offsetMs()),
    handlers,
    onFailure: deps.onDeliveryFailure,
    metrics,
  });

  /**
   * Events raised inside a transaction wait here until its work is done, then are written in it
   * (docs/decisions/077) and handed over after the commit: a handler calls other systems (the
   * SIM platform, the mail server), which must never see a change that is then rolled back.
   */
  const pendingEvents = new WeakMap<Executor, BillingEvent[]>();

  function emit(executor: Executor, event: BillingEvent) {
    const pending = pendingEvents.get(executor);
    if (pending) pending.push(event);
  }

  /**
   * Runs `work` in a transaction that also writes the events it raised, then hands them to the
   * handlers (each marked delivered, or retried later by the delivery job). `raised`, if given,
   * collects them too (the billing cycle's result).
   */
  async function transact<Result>(
    work: (transaction: Transaction) => Promise<Result>,
    raised?: BillingEvent[],
  ) {
    const events: BillingEvent[] = [];
    let stored: Awaited<ReturnType<typeof eventStore.record>> = [];
    const result = await db.transaction(async (transaction) => {
      pendingEvents.set(transaction, events);
      const result = await work(transaction);
      stored = await eventStore.record(transaction, events);
      return result;
    });
    raised?.push(...events);
    // No handler yet (a process that only reads, a script): the delivery job hands them over.
    if (deps.deliversAfterCommit !== false && handlers.length > 0) {
      await eventStore.deliverRaised(stored);
    }
    return result;
  }

  /** The engine's own idempotency: a write repeated with the same key returns the first result. */
  async function onceForKey<Result>(
    operation: string,
    key: string,
    request: unknown,
    work: (transaction: Transaction) => Promise<Result>,
  ): Promise<Result> {
    await clock.refresh();
    const scope = `local-billing:${operation}`;
    const requestHash = hashRequest(request);
    const run = () =>
      transact(async (transaction) => {
        const [existing] = await transaction
          .select()
          .from(idempotencyKeys)
          .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
        if (existing) {
          if (existing.requestHash !== requestHash) {
            throw new BillingError('invalid', 'This idempotency key was used for another request');
          }
          return existing.response as Result;
        }
        const result = await work(transaction);
        await transaction
          .insert(idempotencyKeys)
          .values({ scope, key, requestHash, statusCode: 200, response: result as object });
        return result;
      });
    try {
      return await run();
    } catch (error) {
      // Two identical calls at once: the loser's insert hits the key; the winner's result stands.
      if (isUniqueViolation(error)) return run();
      throw error;
    }
  }

  return {
    db,
    clock,
    metrics,
    /** Registers a handler of the engine's events (the app's `onEvent`). */
    onEvent(handler: BillingEventHandler) {
      handlers.push(handler);
    },
    emit,
    transact,
    onceForKey,
    /** Hands over the events whose delivery is due (the delivery job, docs/decisions/077). */
    deliverDueEvents: () => eventStore.deliverDue(),
  };
}

/** A catalogue price with its product. */
export async function loadPrice(executor: Executor, priceId: string) {
  const [row] = await executor
    .select({ price: prices, product: products })
    .from(prices)
    .innerJoin(products, eq(products.id, prices.productId))
    .where(eq(prices.id, priceId));
  return row;
}
