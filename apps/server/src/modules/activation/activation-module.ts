/**
 * Wires activation together: the guessing limits, the pricing tables, the wizard's service and
 * fulfilment of paid orders (registered on the billing provider's events). The composition root
 * (process/compose.ts) creates it once; the routes, the reconciliation job and the tests use it.
 */
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import type { BillingProvider } from '../../providers/billing/billing.ts';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import type { Mailer } from '../../providers/mail/mail.ts';
import { createActivationThrottle } from './activation-throttle.ts';
import { createActivationService, type ActivationService } from './activation.service.ts';
import { createActivationFulfilment, type ActivationFulfilment } from './fulfilment.service.ts';
import type { PricingTables } from './pricing-tables.ts';
import { createLoginLinks } from './welcome-email.ts';

export interface ActivationModule {
  service: ActivationService;
  fulfilment: ActivationFulfilment;
}

export function createActivationModule(deps: {
  config: Config;
  db: Database;
  clock: Clock;
  rateLimiter: RateLimiter;
  billing: BillingProvider;
  /** The tables BILLING sells from (createPricingTables); the security headers need them too. */
  pricingTables: PricingTables;
  connectivity: ConnectivityPlatform;
  mailer: Mailer;
  log: {
    warn(details: object, message: string): void;
    error(details: object, message: string): void;
  };
}): ActivationModule {
  const { config, db, clock } = deps;
  const service = createActivationService({
    db,
    throttle: createActivationThrottle({ rateLimiter: deps.rateLimiter }),
    pricingTables: deps.pricingTables,
    billing: deps.billing,
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    setupGuideUrl: config.activation.setupGuideUrl,
    publishableKey: config.billing.mode === 'stripe' ? config.billing.publishableKey : undefined,
  });
  const fulfilment = createActivationFulfilment({
    db,
    clock,
    billing: deps.billing,
    connectivity: deps.connectivity,
    mailer: deps.mailer,
    loginLinks: createLoginLinks({ db, clock, publicUrl: config.publicUrl }),
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    log: deps.log,
  });
  deps.billing.onEvent((event) => fulfilment.handleEvent(event));
  return { service, fulfilment };
}
