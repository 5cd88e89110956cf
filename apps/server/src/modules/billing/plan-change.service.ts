/**
 * Plan changes (docs/requirements.md#states): the plans a camera can move to, the quote, and
 * the switch itself, charged the pro-rata difference at once, under the one switch rule
 * (plan-switch-rule.ts, docs/decisions/081).
 */
import { randomUUID } from 'node:crypto';
import type {
  ChangePlanResponse,
  EligiblePlan,
  EligiblePlansResponse,
  PlanChangePreview,
} from '@farmcam/contract';
import type { Database } from '../../db/client.ts';
import type { Region } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import {
  mapBillingErrors,
  type Actor,
  type BillingServiceContext,
  type BillingCaller,
} from './billing-service-context.ts';
import {
  billingRepository,
  type PlanRow,
  type SubscriptionWithPlan,
} from './billing.repository.ts';
import { pauseRefusal } from './pause-rules.ts';
import { planFeatures, planMetadata } from './plan-features.ts';
import { switchRefusal } from './plan-switch-rule.ts';
import { withSubscriptionLease } from './subscription-lease.ts';

const tierRank = (plan: PlanRow) => plan.product.dataAllowanceGb;
const monthlyCost = (plan: { unitAmount: number; interval: string }) =>
  plan.interval === 'year' ? plan.unitAmount / 12 : plan.unitAmount;

/** A plan card (docs/requirements.md#data Plan) relative to the plan the camera is on. */
export function toEligiblePlan(
  plan: PlanRow,
  current: {
    priceId: string;
    dataAllowanceGb: number;
    unitAmount: number;
    interval: string;
  } | null,
  monthlyPriceOfTier: number | undefined,
): EligiblePlan {
  const isSubscribed = current?.priceId === plan.price.id;
  const hasMoreData = current !== null && plan.product.dataAllowanceGb > current.dataAllowanceGb;
  const isBetterValue =
    current !== null &&
    !isSubscribed &&
    !hasMoreData &&
    plan.product.dataAllowanceGb === current.dataAllowanceGb &&
    monthlyCost(plan.price) < monthlyCost(current);
  // The confirmation's words (decision 054): the data allowance decides, as the badges do.
  const change =
    current === null || isSubscribed
      ? 'same'
      : plan.product.dataAllowanceGb > current.dataAllowanceGb
        ? 'upgrade'
        : plan.product.dataAllowanceGb < current.dataAllowanceGb
          ? 'downgrade'
          : 'same';
  return {
    id: plan.price.id,
    product_id: plan.product.id,
    product_name: plan.product.name,
    unit_amount: plan.price.unitAmount,
    currency: plan.price.currency,
    recurring: { interval: plan.price.interval },
    subscribed: isSubscribed,
    upgrade_data: !isSubscribed && hasMoreData,
    upgrade_value: isBetterValue,
    change,
    data_allowance_gb: plan.product.dataAllowanceGb,
    amountSaved:
      plan.price.interval === 'year' && monthlyPriceOfTier !== undefined
        ? Math.max(monthlyPriceOfTier * 12 - plan.price.unitAmount, 0)
        : 0,
    metadata: planMetadata(plan.product),
    features: planFeatures(plan.product),
  };
}

/** The plans of the camera's list (its region, solar or not, currency), cheapest tier first. */
export async function planList(
  db: Database,
  current: SubscriptionWithPlan | undefined,
  region?: Region,
) {
  const list = current
    ? {
        region: current.price.region,
        isSolar: current.price.isSolar,
        currency: current.price.currency,
      }
    : { region: region ?? 'uk', isSolar: false, currency: region === 'ie' ? 'eur' : 'gbp' };
  const plans = await billingRepository.plans(db, list);
  const monthlyByProduct = new Map(
    plans
      .filter((plan) => plan.price.interval === 'month')
      .map((plan) => [plan.product.id, plan.price.unitAmount]),
  );
  const currentPlan =
    current && current.subscription.status !== 'canceled'
      ? {
          priceId: current.price.id,
          dataAllowanceGb: current.product.dataAllowanceGb,
          unitAmount: current.price.unitAmount,
          interval: current.price.interval,
        }
      : null;
  return plans
    .sort((a, b) => tierRank(a) - tierRank(b) || (a.price.interval === 'month' ? -1 : 1))
    .map((plan) => toEligiblePlan(plan, currentPlan, monthlyByProduct.get(plan.product.id)));
}

/** A plan as the activity log names it, e.g. "Heavy Streaming (monthly)". */
export const planLabel = (name: string, interval: string) =>
  `${name} (${interval === 'year' ? 'annual' : 'monthly'})`;

export function createPlanChangeService(context: BillingServiceContext) {
  const { db, billing, today, audit, requireSubscription, requireReachable } = context;

  /** Plan switches need a subscription in good standing and not paused (plan-switch-rule.ts). */
  function assertSwitchable(current: SubscriptionWithPlan) {
    const refusal = switchRefusal(current.subscription, today());
    if (refusal) throw new AppError('CONFLICT', refusal);
  }

  async function findPlan(current: SubscriptionWithPlan, newPlanId: string) {
    const plan = (await planList(db, current)).find((candidate) => candidate.id === newPlanId);
    if (!plan)
      throw new AppError('VALIDATION_FAILED', 'That plan is not available for this camera');
    if (plan.subscribed)
      throw new AppError('CONFLICT', `This camera is already on ${plan.product_name}`);
    return plan;
  }

  return {
    async eligiblePlans(
      caller: BillingCaller,
      billingCustomerId: string,
    ): Promise<EligiblePlansResponse> {
      await requireReachable(caller, billingCustomerId);
      const current = await billingRepository.currentSubscription(db, billingCustomerId);
      const refusal = switchRefusal(current?.subscription ?? null, today());
      // The pause's own rule, so Manage plan never offers a pause the server refuses (decision 170).
      const pauseRefused = pauseRefusal(
        current ? { status: current.subscription.status, interval: current.price.interval } : null,
      );
      return {
        eligible_plans: await planList(db, current),
        subscription_status: current?.subscription.status ?? null,
        can_switch: refusal === null,
        switch_refusal: refusal,
        can_pause: pauseRefused === null,
        pause_refusal: pauseRefused,
      };
    },

    async previewPlanChange(
      caller: BillingCaller,
      billingCustomerId: string,
      newPlanId: string,
    ): Promise<PlanChangePreview> {
      await requireReachable(caller, billingCustomerId);
      const current = await requireSubscription(billingCustomerId);
      assertSwitchable(current);
      const plan = await findPlan(current, newPlanId);
      const quote = await mapBillingErrors(() =>
        billing.previewPlanChange({
          subscriptionId: current.subscription.id,
          newPriceId: newPlanId,
        }),
      );
      return {
        plan,
        amount_due: quote.amountDue,
        credit: quote.credit,
        currency: quote.currency,
        lines: quote.lines,
      };
    },

    /** Switches plan now, charging the pro-rata difference at once (docs/requirements.md#states). */
    async changePlan(
      caller: BillingCaller,
      billingCustomerId: string,
      newPlanId: string,
      idempotencyKey: string | undefined,
      actor: Actor,
    ): Promise<ChangePlanResponse> {
      await requireReachable(caller, billingCustomerId);
      const current = await requireSubscription(billingCustomerId);
      assertSwitchable(current);
      const plan = await findPlan(current, newPlanId);
      const result = await withSubscriptionLease(
        { db, clock: billing },
        current.subscription.id,
        () =>
          mapBillingErrors(() =>
            billing.changePlan({
              subscriptionId: current.subscription.id,
              newPriceId: newPlanId,
              idempotencyKey: `change-plan-${idempotencyKey ?? randomUUID()}`,
            }),
          ),
      );
      await audit(
        actor,
        'billing.plan_changed',
        { billingCustomerId, iccid: current.subscription.simIccid },
        {
          from: current.price.id,
          to: newPlanId,
          fromPlan: planLabel(current.product.name, current.price.interval),
          toPlan: planLabel(plan.product_name, plan.recurring.interval),
          invoiceId: result.invoice?.id ?? null,
          charged: result.invoice?.amountDue ?? 0,
          currency: result.invoice?.currency ?? current.price.currency,
        },
      );
      return {
        success: true as const,
        message: `Switched to ${plan.product_name} (${plan.recurring.interval === 'year' ? 'annual' : 'monthly'})`,
        subscription: {
          id: result.subscription.id,
          price_id: result.subscription.priceId,
          status: result.subscription.status,
        },
        invoice: result.invoice
          ? {
              id: result.invoice.id,
              amount_due: result.invoice.amountDue,
              currency: result.invoice.currency,
              status: result.invoice.status,
            }
          : null,
      };
    },
  };
}

export type PlanChangeService = ReturnType<typeof createPlanChangeService>;
