/**
 * The activation wizard's rules (docs/requirements.md#screens, #states, #input-rules, #api): finding a SIM by its 4-letter code or its
 * number, refusing every SIM that cannot be sold now (unknown, sold, live, terminated, barred) with
 * one message the wizard shows as it is, so the answer never tells whether a SIM exists (docs/
 * decisions/063), choosing the pricing table, and starting the hosted checkout that ends in
 * fulfilment (fulfilment.service.ts). Every look-up goes through the guessing limits
 * (activation-throttle.ts).
 */
import type {
  ActivationBillingCustomerResponse,
  ActivationCheckoutResponse,
  ActivationConfigResponse,
  ActivationRegion,
  OrderStatusResponse,
  PricingTableResponse,
  SimValidationResponse,
  SolarCheckResponse,
} from '@farmcam/contract';
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import { auditActorOf, writeAudit } from '../../lib/audit.ts';
import { BillingError, type BillingProvider } from '@farmcam/billing';
import { newProviderId } from '@farmcam/billing/ids';
import type { Principal } from '../auth/principal.ts';
import type { ActivationThrottle, LookupSubject } from './activation-throttle.ts';
import {
  activationRepository as repository,
  type ActivationCandidate,
  type SimRow,
} from './activation.repository.ts';
import { planFeatures, planMetadata } from '../billing/plan-features.ts';
import type { PricingTables } from './pricing-tables.ts';

export interface ActivationServiceDeps {
  db: Database;
  throttle: ActivationThrottle;
  pricingTables: PricingTables;
  billing: BillingProvider;
  publicUrl: string;
  supportEmail: string;
  setupGuideUrl: string;
  /** Stripe's publishable key, for its pricing table element. */
  publishableKey: string | undefined;
}

/** Who is calling: the throttle's view, and the signed-in session when there is one. */
export interface ActivationCaller extends LookupSubject {
  principal: Principal | undefined;
  userAgent?: string | undefined;
}

/** Who is activating, for the audit log: the signed-in person (staff marked), or a visitor. */
const activationActor = (caller: ActivationCaller) => ({
  ...(caller.principal
    ? auditActorOf(caller.principal)
    : { actorType: 'customer' as const, actorId: null }),
  ip: caller.ip,
  userAgent: caller.userAgent ?? null,
});

export const simValidatedMessage = 'SIM validated';

/**
 * The wizard shows these words as they are (docs/requirements.md#errors: data.message in a red box). One message per
 * method covers every SIM that cannot be activated, whatever the reason: a distinct answer for
 * "already active" or "terminated" would confirm to a guesser that the SIM exists.
 */
export function activationMessages(supportEmail: string) {
  const whatElse = `If the SIM is already yours, sign in to see it on your dashboard; for help, contact support at ${supportEmail}.`;
  return {
    unavailableCode: `We can't activate a SIM with this activation code. Check the 4 letters on your SIM card, or use the 20-digit method. ${whatElse}`,
    unavailableIccid: `We can't activate a SIM with this number. Check the 19 or 20 digits printed on your SIM card. ${whatElse}`,
  };
}

export function createActivationService(deps: ActivationServiceDeps) {
  const { db, throttle, pricingTables, billing } = deps;
  const messages = activationMessages(deps.supportEmail);

  /** Whether the SIM can be sold and activated now: in stock, not barred, not already bought. */
  const isActivatable = (found: ActivationCandidate | undefined): found is ActivationCandidate =>
    found !== undefined &&
    found.sim.state === 'stock' &&
    !found.sim.isBarred &&
    !found.hasLiveSubscription;

  async function lookUpIccid(iccid: string, caller: ActivationCaller): Promise<SimRow> {
    const reservation = await throttle.beforeSimLookup(caller);
    // One query whatever the SIM's state, so the time taken tells no more than the answer.
    const found = await repository.findActivationCandidate(db, { iccid });
    if (!isActivatable(found)) throw new AppError('NOT_FOUND', messages.unavailableIccid);
    await throttle.succeeded(reservation);
    return found.sim;
  }

  const validated = (sim: SimRow): SimValidationResponse => ({
    success: true,
    message: simValidatedMessage,
    iccid: sim.iccid,
  });

  /** A SIM card's billing customer may hold this one camera only (DESIGN §3). */
  async function billingCustomerOfSecret(secret: string, iccid: string) {
    const billingCustomerId = await repository.billingCustomerOfSession(db, secret, billing.now());
    if (!billingCustomerId) return null;
    const held = await repository.simsOfBillingCustomer(db, billingCustomerId);
    if (held.some((heldIccid) => heldIccid !== iccid)) {
      throw new AppError('CONFLICT', 'This billing account already belongs to another camera');
    }
    return billingCustomerId;
  }

  return {
    messages,

    /** POST activation/validate-activation-code: the SIM a 4-letter code belongs to. */
    async validateActivationCode(
      activationCode: string,
      caller: ActivationCaller,
    ): Promise<SimValidationResponse> {
      const reservation = await throttle.beforeCodeLookup(caller);
      const found = await repository.findActivationCandidate(db, { activationCode });
      if (!isActivatable(found)) throw new AppError('NOT_FOUND', messages.unavailableCode);
      await throttle.succeeded(reservation);
      return validated(found.sim);
    },

    /** POST activation/validate-iccid: the 20-digit method. */
    async validateIccid(iccid: string, caller: ActivationCaller): Promise<SimValidationResponse> {
      return validated(await lookUpIccid(iccid, caller));
    },

    /** POST activation/validate: checks again, before the plans are shown, that the SIM is still for sale. */
    async validate(iccid: string, caller: ActivationCaller): Promise<SimValidationResponse> {
      return validated(await lookUpIccid(iccid, caller));
    },

    /** POST activation/check-solar-sim: the pricing table for this SIM's kind and the region. */
    async checkSolarSim(
      iccid: string,
      location: ActivationRegion,
      caller: ActivationCaller,
    ): Promise<SolarCheckResponse> {
      const sim = await lookUpIccid(iccid, caller);
      const isSolar = sim.kind === 'solar';
      return {
        is_solar_sim: isSolar,
        pricing_table_id: pricingTables.tableFor({ region: location, isSolar }),
      };
    },

    /** POST activation/log-price-table: which table a visitor was shown, for support. */
    async logPriceTable(
      input: {
        iccid: string;
        email: string;
        hasCustomerSession: boolean;
        pricingTableId: string | undefined;
      },
      caller: ActivationCaller,
    ): Promise<{ success: true }> {
      await throttle.beforePriceTableLog(caller);
      await writeAudit(db, {
        ...activationActor(caller),
        action: 'activation.pricing_table_shown',
        subjectType: 'sim',
        subjectId: input.iccid,
        details: {
          email: input.email,
          pricingTableId: input.pricingTableId ?? null,
          hasCustomerSession: input.hasCustomerSession,
        },
      });
      return { success: true };
    },

    /**
     * The thank-you page's order, from the audit trail the checkout and fulfilment leave (the same
     * for every billing provider). An order reference that was never issued is 404: the page must
     * not say "activated" for it (docs/decisions/027).
     */
    async orderStatus(orderId: string): Promise<OrderStatusResponse> {
      const steps = await repository.orderTrail(db, orderId, [
        'activation.checkout_started',
        'activation.sim_attached',
        'activation.sim_activated',
        'activation.refused',
      ]);
      const started = steps.find((step) => step.action === 'activation.checkout_started');
      if (!started) throw new AppError('NOT_FOUND', 'We could not find this order.');
      const priceId = typeof started.details.priceId === 'string' ? started.details.priceId : '';
      const productName = await repository.productNameOfPrice(db, priceId);
      const did = (action: string) => steps.some((step) => step.action === action);
      return {
        order: orderId,
        product: productName ?? 'Streaming plan',
        status: did('activation.refused')
          ? 'refused'
          : did('activation.sim_activated')
            ? 'activated'
            : did('activation.sim_attached')
              ? 'paid'
              : 'pending',
      };
    },

    config(): ActivationConfigResponse {
      return {
        provider: pricingTables.kind,
        publishable_key: pricingTables.kind === 'stripe' ? (deps.publishableKey ?? null) : null,
        fallback_pricing_tables: pricingTables.fallback,
        support_email: deps.supportEmail,
        setup_guide_url: deps.setupGuideUrl,
      };
    },

    /** One of our own pricing tables: the plans sold in a region, solar or not. */
    async pricingTable(pricingTableId: string): Promise<PricingTableResponse> {
      const table = pricingTables.describeLocal(pricingTableId);
      if (!table) throw new AppError('NOT_FOUND', 'Unknown pricing table');
      const rows = await repository.pricingTablePlans(db, table);
      return {
        id: pricingTableId,
        region: table.region,
        is_solar: table.isSolar,
        currency: table.region === 'ie' ? 'eur' : 'gbp',
        plans: rows.map(({ price, product }) => ({
          price_id: price.id,
          product_id: product.id,
          product_name: product.name,
          tier: product.tier,
          unit_amount: price.unitAmount,
          currency: price.currency,
          interval: price.interval,
          data_allowance_gb: product.dataAllowanceGb,
          metadata: planMetadata(product),
          features: planFeatures(product),
        })),
      };
    },

    /**
     * Signed-in customers: the billing account the new camera will have (one per camera), made
     * once per customer and SIM, so the pricing table can be given a customer session for it.
     */
    async billingCustomerFor(
      input: { iccid: string; location: ActivationRegion },
      caller: ActivationCaller & { customerId: string; email: string },
    ): Promise<ActivationBillingCustomerResponse> {
      await lookUpIccid(input.iccid, caller);
      try {
        const created = await billing.createCustomer({
          portalCustomerId: caller.customerId,
          email: caller.email,
          currency: input.location === 'ie' ? 'eur' : 'gbp',
          idempotencyKey: `activation-${caller.customerId}-${input.iccid}-${input.location}`,
        });
        // The farm's billing address and VAT number go on the new camera's account too, so
        // its invoices carry them like the others' (decision 127).
        const farmDetails = await repository.farmBillingDetails(db, caller.customerId);
        if (farmDetails && !created.details) {
          await billing.updateCustomerDetails({
            billingCustomerId: created.id,
            details: farmDetails,
            idempotencyKey: `activation-details-${created.id}`,
          });
        }
        return { customer_id: created.id };
      } catch (error) {
        if (error instanceof BillingError) {
          throw new AppError('PROVIDER_UNAVAILABLE', error.message);
        }
        throw error;
      }
    },

    /**
     * Our own pricing table's "Subscribe": checks the plan belongs to the table and the table to
     * the SIM, then opens the provider's hosted checkout. Paying there ends in fulfilment.
     */
    async startCheckout(
      input: {
        pricingTableId: string;
        priceId: string;
        iccid: string;
        email: string;
        customerSessionSecret: string | null;
      },
      caller: ActivationCaller,
    ): Promise<ActivationCheckoutResponse> {
      const sim = await lookUpIccid(input.iccid, caller);
      const table = pricingTables.describeLocal(input.pricingTableId);
      if (!table) throw new AppError('VALIDATION_FAILED', 'Unknown pricing table');
      if (table.isSolar !== (sim.kind === 'solar')) {
        throw new AppError(
          'VALIDATION_FAILED',
          table.isSolar
            ? 'These plans are for solar SIMs only'
            : 'This is a solar SIM: choose one of the solar plans',
        );
      }
      const plan = (await repository.pricingTablePlans(db, table)).find(
        (row) => row.price.id === input.priceId,
      );
      if (!plan) throw new AppError('VALIDATION_FAILED', 'That plan is not in this pricing table');

      const billingCustomerId = input.customerSessionSecret
        ? await billingCustomerOfSecret(input.customerSessionSecret, sim.iccid)
        : null;
      const existingCustomerId = await repository.customerIdByEmail(db, input.email);
      const orderId = newProviderId('ord', 20);
      const confirmation = new URL('/order-confirmation', deps.publicUrl);
      confirmation.searchParams.set('order', orderId);
      confirmation.searchParams.set('product', plan.product.name);
      const wizard = new URL('/activate', deps.publicUrl);
      wizard.searchParams.set('email', input.email);
      wizard.searchParams.set('code_type', '20-digits');
      wizard.searchParams.set('code', sim.iccid);
      wizard.searchParams.set('location', table.region);
      try {
        const session = await billing.createCheckoutSession({
          billingCustomerId,
          // A new e-mail gets its account when the checkout is paid (fulfilment), not before.
          portalCustomerId: existingCustomerId ?? null,
          email: input.email,
          priceId: plan.price.id,
          clientReferenceId: sim.iccid,
          successUrl: confirmation.toString(),
          cancelUrl: wizard.toString(),
          metadata: {
            purpose: 'activation',
            iccid: sim.iccid,
            order: orderId,
            region: table.region,
          },
          idempotencyKey: `activation-checkout-${orderId}`,
        });
        await writeAudit(db, {
          ...activationActor(caller),
          action: 'activation.checkout_started',
          subjectType: 'sim',
          subjectId: sim.iccid,
          details: {
            order: orderId,
            priceId: plan.price.id,
            email: input.email,
            checkoutId: session.id,
          },
        });
        return { url: session.url };
      } catch (error) {
        if (error instanceof BillingError) {
          throw new AppError(
            error.kind === 'invalid' ? 'CONFLICT' : 'PROVIDER_UNAVAILABLE',
            error.message,
          );
        }
        throw error;
      }
    },
  };
}

export type ActivationService = ReturnType<typeof createActivationService>;
