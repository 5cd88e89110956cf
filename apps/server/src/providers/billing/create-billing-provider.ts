import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { BillingProvider, CheckoutHooks } from '@farmcam/billing';
import {
  createLocalBillingEngine,
  createTestClock,
  type LocalBillingEngine,
} from '@farmcam/billing-engine';
import { countBillingEventDelivery, countPayment } from '../../lib/metrics.ts';
import { createStripeBilling, type StripeBilling } from './stripe/stripe-billing.ts';

/** The provider BILLING chose, and the adapter itself for what only that adapter has. */
export interface BillingProviderChoice {
  provider: BillingProvider;
  /** Set with BILLING=local: the engine behind the hosted pages and the test clock. */
  engine: LocalBillingEngine | undefined;
  /** Set with BILLING=stripe: the adapter behind the webhook route. */
  stripe: StripeBilling | undefined;
}

/** The billing provider BILLING names: the local billing engine (default) or Stripe. */
export function createBillingProvider(
  config: Pick<Config, 'billing' | 'publicUrl' | 'invoicing' | 'supplier'>,
  deps: {
    db: Database;
    clock: Clock;
    /** The activation module's part in paid checkouts (modules/activation/checkout-hooks.ts). */
    checkoutHooks?: CheckoutHooks;
    log: {
      warn(details: object, message: string): void;
      error(details: object, message: string): void;
    };
  },
): BillingProviderChoice {
  const { db, log } = deps;
  if (config.billing.mode === 'stripe') {
    const stripe = createStripeBilling({
      db,
      clock: deps.clock,
      secretKey: config.billing.secretKey,
      webhookSecret: config.billing.webhookSecret,
      apiUrl: config.billing.apiUrl,
      checkoutHooks: deps.checkoutHooks,
    });
    return { provider: stripe, engine: undefined, stripe };
  }
  const engine = createLocalBillingEngine({
    db,
    clock: createTestClock(db, deps.clock),
    publicUrl: config.publicUrl,
    checkoutHooks: deps.checkoutHooks,
    // The supplier is fixed in each invoice's snapshot when it is issued (decision 026).
    invoicing: { ...config.invoicing, supplier: config.supplier },
    metrics: {
      countPayments: (isPaid, count) => countPayment('local', isPaid, count),
      countEventDelivery: countBillingEventDelivery,
    },
    onDeliveryFailure: ({ error, event, eventId, attempts, nextAttemptAt }) => {
      const details = { err: error, eventId, eventType: event.type, attempts };
      if (nextAttemptAt) {
        log.warn(
          { ...details, nextAttemptAt },
          'A billing event handler failed; the event is delivered again later',
        );
      } else {
        // Three days of failures (decision 077): an operator redelivers it by hand, or not.
        log.error(details, 'A billing event could not be delivered for three days; gave up');
      }
    },
  });
  return { provider: engine, engine, stripe: undefined };
}
