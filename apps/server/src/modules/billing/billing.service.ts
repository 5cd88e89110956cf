/**
 * Subscriptions, payment methods, pause and invoices for one camera's billing customer (docs/requirements.md#screens,
 * #states, #api). Routes have already checked that the billing customer belongs to the caller; this
 * service applies the rules and talks to the billing port. Reads come from our tables only;
 * writes go to the provider (with an idempotency key) under a per-subscription lease.
 */
import { randomUUID } from 'node:crypto';
import type {
  ActivePauseResponse,
  ChangePlanResponse,
  CheckoutResponse,
  EligiblePlan,
  EligiblePlansResponse,
  Invoice,
  InvoicesResponse,
  PauseOptionsResponse,
  PauseResultResponse,
  PaymentMethod,
  PlanChangePreview,
  RenewalPlansResponse,
} from '@farmcam/contract';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { sims, type Region } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import { runIdempotent } from '../../lib/idempotency.ts';
import type { Principal } from '../auth/auth.service.ts';
import {
  BillingError,
  type BillingEvent,
  type BillingProvider,
} from '../../providers/billing/billing.ts';
import { formatDay } from '../../providers/billing/money.ts';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import { simTerminationAt } from '../../providers/billing/dunning-policy.ts';
import type { Mailer } from '../../providers/mail/mail.ts';
import {
  billingRepository,
  type PlanRow,
  type SubscriptionWithPlan,
} from './billing.repository.ts';
import { createDunningMail } from './dunning-mail.ts';
import {
  businessDay,
  earliestMonthStart,
  pauseRefusal,
  pauseStateOn,
  pauseWindow,
  pauseWindowFrom,
} from './pause-rules.ts';
import { switchRefusal } from './plan-switch-rule.ts';
import { withSubscriptionLease } from './subscription-lease.ts';

export interface BillingServiceDeps {
  db: Database;
  billing: BillingProvider;
  connectivity: ConnectivityPlatform;
  /** For the e-mails of failed renewal payments (local engine). */
  mailer?: Mailer;
  publicUrl: string;
  log: {
    warn(object: object, message: string): void;
    error(object: object, message: string): void;
  };
}

/** Who is acting, for the audit log. */
export interface Actor {
  principal: Principal;
  ip: string;
}

/** A billing failure in the words the customer sees, with the right status. */
function toAppError(error: unknown): unknown {
  if (!(error instanceof BillingError)) return error;
  if (error.kind === 'card_declined') return new AppError('UNPROCESSABLE', error.message);
  if (error.kind === 'invalid') return new AppError('CONFLICT', error.message);
  return new AppError('PROVIDER_UNAVAILABLE', error.message);
}

async function mapBillingErrors<Result>(work: () => Promise<Result>): Promise<Result> {
  try {
    return await work();
  } catch (error) {
    throw toAppError(error);
  }
}

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
  const metadata = plan.product.metadata;
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
    metadata: {
      ...(metadata.Provider !== undefined && { Provider: metadata.Provider }),
      ...(metadata.Hours !== undefined && { Hours: metadata.Hours }),
    },
  };
}

export function createBillingService(deps: BillingServiceDeps) {
  const { db, billing } = deps;
  const dunningMail = deps.mailer
    ? createDunningMail({ db, mailer: deps.mailer, publicUrl: deps.publicUrl })
    : undefined;
  const today = () => businessDay(billing.now());

  async function audit(actor: Actor, action: string, subjectId: string, details: object) {
    const { principal } = actor;
    await writeAudit(db, {
      actorType: principal.staffId ? 'staff' : 'customer',
      actorId: principal.staffId ?? principal.customerId,
      onBehalfOfCustomerId: principal.staffId ? principal.customerId : null,
      action,
      subjectType: 'billing_customer',
      subjectId,
      details: details as Record<string, unknown>,
      ip: actor.ip,
    });
  }

  async function planList(current: SubscriptionWithPlan | undefined, region?: Region) {
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

  async function requireSubscription(billingCustomerId: string) {
    const current = await billingRepository.currentSubscription(db, billingCustomerId);
    if (!current) throw new AppError('NOT_FOUND', 'No subscription found for this camera');
    return current;
  }

  /** Plan switches need a subscription in good standing and not paused (plan-switch-rule.ts). */
  function assertSwitchable(current: SubscriptionWithPlan) {
    const refusal = switchRefusal(current.subscription, today());
    if (refusal) throw new AppError('CONFLICT', refusal);
  }

  async function findPlan(current: SubscriptionWithPlan, newPlanId: string) {
    const plan = (await planList(current)).find((candidate) => candidate.id === newPlanId);
    if (!plan)
      throw new AppError('VALIDATION_FAILED', 'That plan is not available for this camera');
    if (plan.subscribed)
      throw new AppError('CONFLICT', `This camera is already on ${plan.product_name}`);
    return plan;
  }

  async function updateSimState(
    iccid: string,
    action: 'pause' | 'resume' | 'terminate',
    at: Date = billing.now(),
  ) {
    const call =
      action === 'pause'
        ? deps.connectivity.pauseSim
        : action === 'resume'
          ? deps.connectivity.resumeSim
          : deps.connectivity.terminateSim;
    const sim = await call.call(deps.connectivity, iccid, {
      idempotencyKey: `billing-${action}-${iccid}-${businessDay(at)}`,
    });
    // Writes go to the platform first, then to our tables (the local platform's rows are ours).
    await db
      .update(sims)
      .set({ state: sim.state, terminatedAt: sim.terminatedAt, updatedAt: at })
      .where(eq(sims.iccid, iccid));
  }

  /**
   * Brings each SIM in line with its billing: paused through a pause, live again after it (or
   * after a lapsed subscription is paid), terminated once a canceled subscription's grace for
   * renewal is over. Safe to repeat; the billing job runs it after each cycle.
   */
  async function reconcileSims(
    iccid?: string,
    /** The billing time to act as of (a day the billing cycle replays); default now. */
    at?: Date,
  ): Promise<{ changed: number }> {
    const now = at ?? billing.now();
    const day = businessDay(now);
    let changed = 0;
    for (const row of await billingRepository.simsWithLatestSubscription(db, iccid)) {
      const { subscription } = row;
      if (row.simState === 'terminated' || row.simState === 'stock') continue;
      let action: 'pause' | 'resume' | 'terminate' | null = null;
      if (subscription.status === 'canceled') {
        const canceledAt = subscription.canceledAt ?? subscription.updatedAt;
        if (simTerminationAt(canceledAt) <= now) action = 'terminate';
      } else if (subscription.status !== 'incomplete') {
        const isPaused = pauseStateOn(subscription, day) === 'paused';
        if (isPaused && row.simState === 'active') action = 'pause';
        if (!isPaused && row.simState === 'paused') action = 'resume';
      }
      if (!action) continue;
      try {
        await updateSimState(row.iccid, action, now);
        changed += 1;
      } catch (error) {
        deps.log.warn(
          { err: error, iccid: row.iccid, action },
          'Could not update the SIM; will retry',
        );
      }
    }
    return { changed };
  }

  return {
    async eligiblePlans(billingCustomerId: string): Promise<EligiblePlansResponse> {
      const current = await billingRepository.currentSubscription(db, billingCustomerId);
      const refusal = switchRefusal(current?.subscription ?? null, today());
      return {
        eligible_plans: await planList(current),
        subscription_status: current?.subscription.status ?? null,
        can_switch: refusal === null,
        switch_refusal: refusal,
      };
    },

    async previewPlanChange(
      billingCustomerId: string,
      newPlanId: string,
    ): Promise<PlanChangePreview> {
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
      billingCustomerId: string,
      newPlanId: string,
      idempotencyKey: string | undefined,
      actor: Actor,
    ): Promise<ChangePlanResponse> {
      return runIdempotent(
        { db, clock: billing },
        { scope: `change-plan:${billingCustomerId}`, key: idempotencyKey, request: { newPlanId } },
        async () => {
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
          await audit(actor, 'billing.plan_changed', billingCustomerId, {
            from: current.price.id,
            to: newPlanId,
            invoiceId: result.invoice?.id ?? null,
            charged: result.invoice?.amountDue ?? 0,
          });
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
      );
    },

    async paymentMethods(billingCustomerId: string): Promise<{ payment_methods: PaymentMethod[] }> {
      const now = billing.now();
      const rows = await billingRepository.paymentMethods(db, billingCustomerId);
      return {
        payment_methods: rows.map((row) => ({
          id: row.id,
          card_brand: row.brand,
          last4: row.last4,
          exp_month: row.expMonth,
          exp_year: row.expYear,
          is_expired:
            row.expYear < now.getUTCFullYear() ||
            (row.expYear === now.getUTCFullYear() && row.expMonth < now.getUTCMonth() + 1),
          is_default: row.isDefault,
        })),
      };
    },

    /** With a key, a repeated call (a retry of one click) gets the same session back. */
    async createPortalSession(billingCustomerId: string, idempotencyKey?: string) {
      return runIdempotent(
        { db, clock: billing },
        { scope: `portal-session:${billingCustomerId}`, key: idempotencyKey, request: {} },
        () =>
          mapBillingErrors(() =>
            billing.createPortalSession({
              billingCustomerId,
              returnUrl: `${deps.publicUrl}/dashboard?refresh=true`,
            }),
          ),
      );
    },

    async createCustomerSecret(billingCustomerId: string, idempotencyKey?: string) {
      return runIdempotent(
        { db, clock: billing },
        { scope: `customer-secret:${billingCustomerId}`, key: idempotencyKey, request: {} },
        () => mapBillingErrors(() => billing.createCustomerSecret({ billingCustomerId })),
      );
    },

    async pauseOptions(billingCustomerId: string): Promise<PauseOptionsResponse> {
      const current = await requireSubscription(billingCustomerId);
      const { subscription } = current;
      const day = today();
      const state = pauseStateOn(subscription, day);
      const currentPause =
        state && subscription.pauseStartsOn && subscription.pauseResumesOn
          ? {
              start_date: subscription.pauseStartsOn,
              end_date: subscription.pauseResumesOn,
              state,
            }
          : null;
      const none = (message: string) => ({
        pause_options: {
          message,
          pause_from: null,
          resume_dates: [],
          customer_id: billingCustomerId,
          current_pause: currentPause,
        },
      });
      const refusal = pauseRefusal({
        status: subscription.status,
        interval: current.price.interval,
      });
      if (refusal) return none(refusal);
      if (state === 'paused' && subscription.pauseStartsOn && subscription.pauseResumesOn) {
        // A running pause can only be moved to restart on another 1st.
        const restartFrom = earliestMonthStart(day);
        const window = pauseWindow(day);
        const resumeDates = [restartFrom, ...window.resumeDates].filter(
          (date, index, all) => all.indexOf(date) === index,
        );
        return {
          pause_options: {
            message: `Your plan is paused until ${formatDay(subscription.pauseResumesOn)}. Choose another date to restart it.`,
            pause_from: subscription.pauseStartsOn,
            resume_dates: resumeDates,
            customer_id: billingCustomerId,
            current_pause: currentPause,
          },
        };
      }
      if (state === 'scheduled' && subscription.pauseStartsOn) {
        // Moving a scheduled pause changes only its restart: its start was promised when it was
        // asked for in time, and from the 25th today's window would push it a month later,
        // billing the very month the customer had paused (decision 021).
        const resumeDates = pauseWindowFrom(subscription.pauseStartsOn).resumeDates;
        return {
          pause_options: {
            message: `Your plan will be paused from ${formatDay(subscription.pauseStartsOn)}. Choose another date to restart it.`,
            pause_from: subscription.pauseStartsOn,
            resume_dates: resumeDates,
            customer_id: billingCustomerId,
            current_pause: currentPause,
          },
        };
      }
      const window = pauseWindow(day);
      return {
        pause_options: {
          message: `Your plan will be paused from ${formatDay(window.pauseFrom)}. Pauses start on the 1st of a month: requests made before the 25th start next month. Choose when it should restart.`,
          pause_from: window.pauseFrom,
          resume_dates: window.resumeDates,
          customer_id: billingCustomerId,
          current_pause: currentPause,
        },
      };
    },

    /** Schedules a pause (or moves a scheduled or running one) to end on `resumeDate`. */
    async pauseSubscription(
      billingCustomerId: string,
      resumeDate: string,
      idempotencyKey: string | undefined,
      actor: Actor,
    ): Promise<PauseResultResponse> {
      return runIdempotent(
        { db, clock: billing },
        { scope: `pause:${billingCustomerId}`, key: idempotencyKey, request: { resumeDate } },
        async () => {
          const options = (await this.pauseOptions(billingCustomerId)).pause_options;
          if (!options.pause_from) throw new AppError('CONFLICT', options.message);
          if (!options.resume_dates.includes(resumeDate)) {
            throw new AppError('VALIDATION_FAILED', 'Choose one of the offered restart dates');
          }
          const current = await requireSubscription(billingCustomerId);
          const startsOn = options.pause_from;
          const updated = await withSubscriptionLease(
            { db, clock: billing },
            current.subscription.id,
            () =>
              mapBillingErrors(() =>
                billing.schedulePause({
                  subscriptionId: current.subscription.id,
                  startsOn,
                  resumesOn: resumeDate,
                  idempotencyKey: `pause-${idempotencyKey ?? randomUUID()}`,
                }),
              ),
          );
          await audit(actor, 'billing.pause_scheduled', billingCustomerId, {
            startsOn,
            resumesOn: resumeDate,
          });
          // A running pause whose restart moved may have to end (or go on) today.
          await reconcileSims(current.subscription.simIccid);
          return {
            success: true,
            message: `Your plan will be paused from ${formatDay(startsOn)} and restart on ${formatDay(resumeDate)}.`,
            pause: {
              start_date: updated.pauseStartsOn ?? startsOn,
              end_date: updated.pauseResumesOn ?? resumeDate,
            },
          };
        },
      );
    },

    async activePause(billingCustomerId: string): Promise<ActivePauseResponse> {
      const current = await requireSubscription(billingCustomerId);
      const { subscription } = current;
      const state = pauseStateOn(subscription, today());
      return {
        has_active_pause: state !== null,
        state,
        pause:
          state && subscription.pauseStartsOn && subscription.pauseResumesOn
            ? { start_date: subscription.pauseStartsOn, end_date: subscription.pauseResumesOn }
            : null,
      };
    },

    /**
     * Cancels a scheduled pause. A pause already running cannot be undone mid-month (plans
     * restart on a 1st): its restart moves to the earliest 1st allowed.
     */
    async cancelPause(
      billingCustomerId: string,
      idempotencyKey: string | undefined,
      actor: Actor,
    ): Promise<PauseResultResponse> {
      return runIdempotent(
        { db, clock: billing },
        { scope: `cancel-pause:${billingCustomerId}`, key: idempotencyKey, request: {} },
        async () => {
          const current = await requireSubscription(billingCustomerId);
          const { subscription } = current;
          const day = today();
          const state = pauseStateOn(subscription, day);
          if (!state) throw new AppError('CONFLICT', 'There is no pause to cancel');
          const key = `cancel-pause-${idempotencyKey ?? randomUUID()}`;
          if (state === 'paused') {
            const restart = earliestMonthStart(day);
            if (restart >= subscription.pauseResumesOn!) {
              throw new AppError(
                'CONFLICT',
                `Your plan already restarts on ${formatDay(subscription.pauseResumesOn!)}, the earliest possible date.`,
              );
            }
            const updated = await withSubscriptionLease(
              { db, clock: billing },
              subscription.id,
              () =>
                mapBillingErrors(() =>
                  billing.schedulePause({
                    subscriptionId: subscription.id,
                    startsOn: subscription.pauseStartsOn!,
                    resumesOn: restart,
                    idempotencyKey: key,
                  }),
                ),
            );
            await audit(actor, 'billing.pause_shortened', billingCustomerId, {
              resumesOn: restart,
            });
            return {
              success: true,
              message: `Your plan will restart on ${formatDay(restart)}.`,
              pause: { start_date: updated.pauseStartsOn!, end_date: restart },
            };
          }
          await withSubscriptionLease({ db, clock: billing }, subscription.id, () =>
            mapBillingErrors(() =>
              billing.cancelPause({ subscriptionId: subscription.id, idempotencyKey: key }),
            ),
          );
          await audit(actor, 'billing.pause_canceled', billingCustomerId, {
            startsOn: subscription.pauseStartsOn,
          });
          return { success: true, message: 'Pause canceled successfully', pause: null };
        },
      );
    },

    async invoices(billingCustomerId: string): Promise<InvoicesResponse> {
      const absolute = (url: string | null) =>
        url?.startsWith('/') ? `${deps.publicUrl}${url}` : url;
      const rows = await billingRepository.invoices(db, billingCustomerId);
      const ids = rows.map((row) => row.id);
      const lines = await billingRepository.invoiceLines(db, ids);
      const notes = await billingRepository.creditNotes(db, ids);
      const balance = await billingRepository.creditBalance(db, billingCustomerId);
      return {
        credit_balance: balance.credit,
        currency: balance.currency,
        invoices: rows.map((row) => ({
          id: row.id,
          number: row.number,
          amount_due: row.amountDue,
          amount_paid: row.amountPaid,
          currency: row.currency,
          lines: linesOf(row, lines),
          total: row.total,
          tax: row.tax,
          credit_notes: notes
            .filter((note) => note.invoiceId === row.id)
            .map((note) => ({
              id: note.id,
              number: note.number,
              total: note.total,
              created_date: note.createdAt.toISOString(),
              pdf: absolute(note.pdfUrl) ?? null,
            })),
          created_date: row.createdAt.toISOString(),
          status: row.status,
          invoice_pdf: absolute(row.invoicePdfUrl),
          hosted_invoice_url: absolute(row.hostedInvoiceUrl),
          is_payable: row.status === 'open' && row.amountDue > row.amountPaid,
          attempt_count: row.attemptCount,
          next_payment_attempt: row.nextPaymentAttempt
            ? Math.floor(row.nextPaymentAttempt.getTime() / 1000)
            : null,
        })),
      };
    },

    /** The no-active-subscription screen: can this SIM be renewed, and on which plans. */
    async renewalPlans(
      billingCustomerId: string,
      iccid: string,
      region: Region,
    ): Promise<RenewalPlansResponse> {
      const sim = await billingRepository.sim(db, iccid);
      if (!sim || sim.billingCustomerId !== billingCustomerId) {
        throw new AppError('NOT_FOUND', 'Camera not found');
      }
      const current = await billingRepository.currentSubscription(db, billingCustomerId);
      const plans = await planList(undefined, region);
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
    },

    /** Starts a hosted checkout for a new subscription on a camera whose subscription ended. */
    async startRenewal(
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
      const sim = await billingRepository.sim(db, input.iccid);
      if (!sim) throw new AppError('NOT_FOUND', 'Camera not found');
      const region: Region = input.priceId.includes('_ie') ? 'ie' : 'uk';
      const options = await this.renewalPlans(input.billingCustomerId, input.iccid, region);
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
          successUrl: `${deps.publicUrl}/dashboard?refresh=true`,
          cancelUrl: `${deps.publicUrl}/pricing/${input.iccid}/${input.billingCustomerId}?location=${region}`,
          metadata: { purpose: 'renewal', iccid: input.iccid },
          idempotencyKey: `renew-${idempotencyKey ?? randomUUID()}`,
        }),
      );
      await audit(actor, 'billing.renewal_started', input.billingCustomerId, {
        iccid: input.iccid,
        priceId: input.priceId,
      });
      return { url: session.url };
    },

    reconcileSims,

    /** The app's reaction to billing events: bring the camera's SIM in line at once. */
    async handleEvent(event: BillingEvent): Promise<void> {
      if (event.type === 'invoice.payment_failed') {
        await dunningMail?.send(event);
        return;
      }
      const iccid = event.type === 'checkout.completed' ? event.clientReferenceId : event.simIccid;
      if (iccid)
        await reconcileSims(iccid, event.type === 'checkout.completed' ? undefined : event.at);
    },
  };
}

export type BillingService = ReturnType<typeof createBillingService>;

/**
 * An invoice's lines with their amounts; an invoice mirrored without lines (from before they
 * were kept) shows its description for its total.
 */
function linesOf(
  invoice: { id: string; description: string; total: number; amountDue: number },
  lines: { invoiceId: string | null; description: string; amount: number }[],
): Invoice['lines'] {
  const own = lines.filter((line) => line.invoiceId === invoice.id);
  if (own.length > 0) {
    return own.map((line) => ({ description: line.description, amount: line.amount }));
  }
  return [{ description: invoice.description, amount: invoice.total || invoice.amountDue }];
}
