/**
 * Stripe's webhooks, the mirror's second source (the first is each write's answer): what happens
 * inside Stripe (renewals, declines, dunning, cards changed in its portal, pricing-table
 * checkouts) reaches our tables here. Each event is verified with `constructEvent` on the raw
 * body, applied once (deduplicated by event id in `webhook_events`, in the transaction that
 * mirrors it) by the handler of its kind (webhook-events.ts), and what the app must react to is
 * raised after the commit.
 */
import type Stripe from 'stripe';
import { eq } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { webhookEvents } from '../../../db/schema.ts';
import type { Clock } from '../../../lib/clock.ts';
import { BillingError, type BillingEvent } from '@farmcam/billing';
import { webhookEventHandlers, type WebhookEventDeps } from './webhook-events.ts';

export interface StripeWebhookDeps extends WebhookEventDeps {
  db: Database;
  clock: Clock;
  webhookSecret: string;
  /** Hands the app's events to its handlers, after the commit. */
  raise(events: BillingEvent[]): Promise<void>;
}

/** Verifies, deduplicates and applies a webhook; `isDuplicate` when the event was seen before. */
export function createStripeWebhookHandler(deps: StripeWebhookDeps) {
  const { db, client, clock } = deps;
  const handlerFor = webhookEventHandlers(deps);
  return async function handleWebhook(
    rawBody: Buffer,
    signature: string,
  ): Promise<{ isDuplicate: boolean; type: string }> {
    let event: Stripe.Event;
    try {
      event = client.webhooks.constructEvent(rawBody, signature, deps.webhookSecret);
    } catch {
      throw new BillingError('invalid', 'The webhook signature is not valid');
    }
    const [seen] = await db.select().from(webhookEvents).where(eq(webhookEvents.id, event.id));
    if (seen) return { isDuplicate: true, type: event.type };

    const handler = handlerFor(event.type);
    const fetched = await handler?.fetch(event);
    const raised = await db.transaction(async (transaction) => {
      const inserted = await transaction
        .insert(webhookEvents)
        .values({ id: event.id, provider: 'stripe', type: event.type })
        .onConflictDoNothing()
        .returning();
      if (inserted.length === 0) return undefined;
      return (await handler?.apply(transaction, event, fetched, clock.now())) ?? [];
    });
    if (!raised) return { isDuplicate: true, type: event.type };
    handler?.afterCommit?.(event);
    await deps.raise(raised);
    return { isDuplicate: false, type: event.type };
  };
}
