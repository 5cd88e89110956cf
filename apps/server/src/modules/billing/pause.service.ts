/**
 * Pauses (docs/decisions/021, the rules in pause-rules.ts): the dates a camera's plan can be
 * paused from and restart on, scheduling or moving a pause, the pause in force, and cancelling a
 * scheduled pause (a running one only restarts earlier). Whether a plan is paused on a day is the
 * one rule of @farmcam/billing/pause-policy, counted in UK days (docs/decisions/081).
 */
import { beforePauseCutOff } from '@farmcam/contract/rules';
import { randomUUID } from 'node:crypto';
import type {
  ActivePauseResponse,
  PauseOptionsResponse,
  PauseResultResponse,
} from '@farmcam/contract';
import { AppError } from '../../errors.ts';
import { formatDay } from '@farmcam/billing/money';
import {
  mapBillingErrors,
  type Actor,
  type BillingServiceContext,
  type BillingCaller,
} from './billing-service-context.ts';
import {
  earliestMonthStart,
  pauseRefusal,
  pauseStateOn,
  pauseWindow,
  pauseWindowFrom,
} from './pause-rules.ts';
import type { SimLifecycle } from './sim-lifecycle.service.ts';
import { withSubscriptionLease } from './subscription-lease.ts';

export function createPauseService(
  context: BillingServiceContext,
  { reconcileSims }: Pick<SimLifecycle, 'reconcileSims'>,
) {
  const { db, billing, today, audit, requireSubscription, requireReachable } = context;

  async function pauseOptions(billingCustomerId: string): Promise<PauseOptionsResponse> {
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
        message: `Your plan will be paused from ${formatDay(window.pauseFrom)}. Pauses start on the 1st of a month: requests made ${beforePauseCutOff} start next month. Choose when it should restart.`,
        pause_from: window.pauseFrom,
        resume_dates: window.resumeDates,
        customer_id: billingCustomerId,
        current_pause: currentPause,
      },
    };
  }

  return {
    /** The pause options of the camera's plan (pauseSubscription asks the inner function). */
    async pauseOptions(caller: BillingCaller, billingCustomerId: string) {
      await requireReachable(caller, billingCustomerId);
      return pauseOptions(billingCustomerId);
    },

    /** Schedules a pause (or moves a scheduled or running one) to end on `resumeDate`. */
    async pauseSubscription(
      caller: BillingCaller,
      billingCustomerId: string,
      resumeDate: string,
      idempotencyKey: string | undefined,
      actor: Actor,
    ): Promise<PauseResultResponse> {
      await requireReachable(caller, billingCustomerId);
      const options = (await pauseOptions(billingCustomerId)).pause_options;
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
      await audit(
        actor,
        'billing.pause_scheduled',
        { billingCustomerId, iccid: current.subscription.simIccid },
        {
          startsOn,
          resumesOn: resumeDate,
        },
      );
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

    async activePause(
      caller: BillingCaller,
      billingCustomerId: string,
    ): Promise<ActivePauseResponse> {
      await requireReachable(caller, billingCustomerId);
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
      caller: BillingCaller,
      billingCustomerId: string,
      idempotencyKey: string | undefined,
      actor: Actor,
    ): Promise<PauseResultResponse> {
      await requireReachable(caller, billingCustomerId);
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
        const updated = await withSubscriptionLease({ db, clock: billing }, subscription.id, () =>
          mapBillingErrors(() =>
            billing.schedulePause({
              subscriptionId: subscription.id,
              startsOn: subscription.pauseStartsOn!,
              resumesOn: restart,
              idempotencyKey: key,
            }),
          ),
        );
        await audit(
          actor,
          'billing.pause_shortened',
          { billingCustomerId, iccid: subscription.simIccid },
          { resumesOn: restart },
        );
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
      await audit(
        actor,
        'billing.pause_canceled',
        { billingCustomerId, iccid: subscription.simIccid },
        { startsOn: subscription.pauseStartsOn },
      );
      return { success: true, message: 'Pause canceled successfully', pause: null };
    },
  };
}

export type PauseService = ReturnType<typeof createPauseService>;
