/**
 * Renewal of a camera whose subscription ended: whether its SIM can be renewed, on which plans,
 * and the hosted checkout for a new subscription (fulfilled on `checkout.completed`).
 */
import { randomUUID } from 'node:crypto';
import type { CheckoutResponse, RenewalPlansResponse } from '@farmcam/contract';
import type { Region } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { mayReachCamera } from '../auth/access.ts';
import {
  mapBillingErrors,
  type Actor,
  type BillingServiceContext,
  type BillingCaller,
} from './billing-service-context.ts';
import { billingRepository } from './billing.repository.ts';
import { planLabel, planList } from './plan-change.service.ts';

export function createRenewalService(context: BillingServiceContext) {
  const { db, billing, publicUrl, audit, requireReachable } = context;

  /** The no-active-subscription screen: can this SIM be renewed, and on which plans. */
  async function renewalPlans(
    billingCustomerId: string,
    iccid: string,
    region: Region,
  ): Promise<RenewalPlansResponse> {
    const sim = await billingRepository.sim(db, iccid);
    if (!sim || sim.billingCustomerId !== billingCustomerId) {
      throw new AppError('NOT_FOUND', 'Camera not found');
    }
    const current = await billingRepository.currentSubscription(db, billingCustomerId);
    const plans = await planList(db, undefined, region);
    const reason =
      sim.state === 'terminated'
        ? 'This SIM has been terminated and cannot be renewed. Please contact support.'
        : current && current.subscription.status !== 'canceled'
          ? 'This camera already has a subscription.'
          : null;
    return {
      iccid,
      customer_id: billingCustomerId,
      nickname: sim.nickname,
      can_renew: reason === null,
      reason,
      plans,
    };
  }

  /** The SIM must be one of the caller's cameras too (404 otherwise), decision 091. */
  function requireCamera(caller: BillingCaller, iccid: string) {
    if (!mayReachCamera(caller.access, iccid)) throw notFound('Camera not found');
  }

  return {
    async renewalPlans(
      caller: BillingCaller,
      billingCustomerId: string,
      iccid: string,
      region: Region,
    ): Promise<RenewalPlansResponse> {
      await requireReachable(caller, billingCustomerId);
      requireCamera(caller, iccid);
      return renewalPlans(billingCustomerId, iccid, region);
    },

    /** Starts a hosted checkout for a new subscription on a camera whose subscription ended. */
    async startRenewal(
      caller: BillingCaller,
      input: {
        billingCustomerId: string;
        iccid: string;
        priceId: string;
        email: string;
        customerId: string;
      },
      idempotencyKey: string | undefined,
      actor: Actor,
    ): Promise<CheckoutResponse> {
      await requireReachable(caller, input.billingCustomerId);
      requireCamera(caller, input.iccid);
      const sim = await billingRepository.sim(db, input.iccid);
      if (!sim) throw new AppError('NOT_FOUND', 'Camera not found');
      const region: Region = input.priceId.includes('_ie') ? 'ie' : 'uk';
      const options = await renewalPlans(input.billingCustomerId, input.iccid, region);
      if (!options.can_renew) throw new AppError('CONFLICT', options.reason ?? 'Cannot renew');
      const plan = options.plans.find((candidate) => candidate.id === input.priceId);
      if (!plan) throw new AppError('VALIDATION_FAILED', 'That plan is not available');
      const session = await mapBillingErrors(() =>
        billing.createCheckoutSession({
          billingCustomerId: input.billingCustomerId,
          portalCustomerId: input.customerId,
          email: input.email,
          priceId: input.priceId,
          clientReferenceId: input.iccid,
          successUrl: `${publicUrl}/dashboard?refresh=true`,
          cancelUrl: `${publicUrl}/pricing/${input.iccid}/${input.billingCustomerId}?location=${region}`,
          metadata: { purpose: 'renewal', iccid: input.iccid },
          idempotencyKey: `renew-${idempotencyKey ?? randomUUID()}`,
        }),
      );
      await audit(
        actor,
        'billing.renewal_started',
        { billingCustomerId: input.billingCustomerId, iccid: input.iccid },
        {
          priceId: input.priceId,
          plan: planLabel(plan.product_name, plan.recurring.interval),
        },
      );
      return { url: session.url };
    },
  };
}

export type RenewalService = ReturnType<typeof createRenewalService>;
