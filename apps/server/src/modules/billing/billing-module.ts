/**
 * Wires billing together: the provider chosen by configuration (local engine or Stripe), the
 * service, and the cycle the billing job runs. buildApp creates it once and exposes it as
 * `app.billing` (the job in server.ts and the tests use the same instance).
 */
import type { FastifyBaseLogger } from 'fastify';
import { and, eq, gt, inArray, lte } from 'drizzle-orm';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import { subscriptions } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { BillingProvider, CheckoutHooks } from '../../providers/billing/billing.ts';
import {
  createLocalBillingEngine,
  type LocalBillingEngine,
} from '../../providers/billing/local/local-billing-engine.ts';
import { createTestClock } from '../../providers/billing/local/test-clock.ts';
import {
  createStripeBilling,
  type StripeBilling,
} from '../../providers/billing/stripe/stripe-billing.ts';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import { createBillingService, type BillingService } from './billing.service.ts';
import { businessDay } from './pause-rules.ts';

export interface BillingModule {
  provider: BillingProvider;
  service: BillingService;
  /** Set with BILLING=local: the engine behind the hosted pages and the test clock. */
  engine: LocalBillingEngine | undefined;
  /** Set with BILLING=stripe: the adapter behind the webhook route. */
  stripe: StripeBilling | undefined;
  /** One billing cycle: renewals and dunning (local engine), pause transitions, SIM state. */
  runCycle(): Promise<{ renewed: number; simsChanged: number }>;
}

declare module 'fastify' {
  interface FastifyInstance {
    billing: BillingModule;
  }
}

export function createBillingModule(deps: {
  config: Config;
  db: Database;
  clock: Clock;
  connectivity: ConnectivityPlatform;
  log: FastifyBaseLogger;
  /** The activation module's part in paid checkouts (modules/activation/checkout-hooks.ts). */
  checkoutHooks?: CheckoutHooks;
}): BillingModule {
  const { config, db, log } = deps;
  let engine: LocalBillingEngine | undefined;
  let stripe: StripeBilling | undefined;
  if (config.billing.mode === 'stripe') {
    stripe = createStripeBilling({
      db,
      clock: deps.clock,
      secretKey: config.billing.secretKey,
      webhookSecret: config.billing.webhookSecret,
      apiUrl: config.billing.apiUrl,
      checkoutHooks: deps.checkoutHooks,
    });
  } else {
    engine = createLocalBillingEngine({
      db,
      clock: createTestClock(db, deps.clock),
      publicUrl: config.publicUrl,
      checkoutHooks: deps.checkoutHooks,
      onHandlerError: (error, event) =>
        log.warn(
          { err: error, event },
          'A billing event handler failed; the billing job will retry',
        ),
    });
  }
  const provider: BillingProvider = (engine ?? stripe)!;
  const service = createBillingService({
    db,
    billing: provider,
    connectivity: deps.connectivity,
    publicUrl: config.publicUrl,
    log,
  });
  provider.onEvent((event) => service.handleEvent(event));

  /** Stored status follows the pause dates: paused from the start date, active again after. */
  async function applyPauseTransitions() {
    const today = businessDay(provider.now());
    await db
      .update(subscriptions)
      .set({ status: 'paused', updatedAt: provider.now() })
      .where(
        and(
          eq(subscriptions.status, 'active'),
          lte(subscriptions.pauseStartsOn, today),
          gt(subscriptions.pauseResumesOn, today),
        ),
      );
    await db
      .update(subscriptions)
      .set({
        status: 'active',
        pauseStartsOn: null,
        pauseResumesOn: null,
        updatedAt: provider.now(),
      })
      .where(
        and(
          inArray(subscriptions.status, ['active', 'paused']),
          lte(subscriptions.pauseResumesOn, today),
        ),
      );
  }

  return {
    provider,
    service,
    engine,
    stripe,
    async runCycle() {
      const renewed = engine ? (await engine.runBillingCycle()).renewed : 0;
      if (stripe) await stripe.applyScheduledPauses();
      await applyPauseTransitions();
      const { changed } = await service.reconcileSims();
      return { renewed, simsChanged: changed };
    },
  };
}
