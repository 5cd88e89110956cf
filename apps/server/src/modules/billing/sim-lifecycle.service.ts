/**
 * The SIM's side of billing: each SIM brought in line with its subscription (paused through a
 * pause, live again after it or once a lapsed subscription is paid, terminated once a canceled
 * subscription's grace for renewal is over, @farmcam/billing/dunning-policy), and the app's
 * reaction to the billing provider's events (the dunning e-mail, the SIM at once).
 */
import type { BillingEvent } from '@farmcam/billing';
import { simTerminationAt } from '@farmcam/billing/dunning-policy';
import type { BillingServiceContext } from './billing-service-context.ts';
import { billingRepository } from './billing.repository.ts';
import { createDunningAlerts } from './dunning-alerts.service.ts';
import { businessDay, pauseStateOn } from './pause-rules.ts';

export type SimLifecycle = ReturnType<typeof createSimLifecycle>;

export function createSimLifecycle(context: BillingServiceContext) {
  const { db, billing } = context;
  const dunningAlerts = context.notifier
    ? createDunningAlerts({
        db,
        notifier: context.notifier,
        publicUrl: context.publicUrl,
        supportEmail: context.supportEmail ?? 'support',
        log: context.log,
      })
    : undefined;

  async function updateSimState(
    iccid: string,
    action: 'pause' | 'resume' | 'terminate',
    at: Date = billing.now(),
  ) {
    const call =
      action === 'pause'
        ? context.connectivity.pauseSim
        : action === 'resume'
          ? context.connectivity.resumeSim
          : context.connectivity.terminateSim;
    const sim = await call.call(context.connectivity, iccid, {
      idempotencyKey: `billing-${action}-${iccid}-${businessDay(at)}`,
    });
    // Writes go to the platform first, then to our tables (the local platform's rows are ours).
    await billingRepository.setSimState(db, iccid, {
      state: sim.state,
      terminatedAt: sim.terminatedAt,
      updatedAt: at,
    });
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
        context.log.warn(
          { err: error, iccid: row.iccid, action },
          'Could not update the SIM; will retry',
        );
      }
    }
    return { changed };
  }

  return {
    reconcileSims,

    /**
     * The e-mails of the end of dunning due at `at` (billing time): the plan canceled, then the
     * SIM switched off (docs/decisions/108). The billing cycle calls it after the SIMs are
     * reconciled, so a SIM switched off that day is e-mailed that day.
     */
    async sendDunningEndMails(at: Date = billing.now()): Promise<{ sent: number }> {
      return dunningAlerts ? dunningAlerts.sendEndMailsDue(at) : { sent: 0 };
    },

    /** The app's reaction to billing events: bring the camera's SIM in line at once. */
    async handleEvent(event: BillingEvent): Promise<void> {
      if (event.type === 'invoice.payment_failed') {
        await dunningAlerts?.paymentFailed(event);
        return;
      }
      const iccid = event.type === 'checkout.completed' ? event.clientReferenceId : event.simIccid;
      if (iccid)
        await reconcileSims(iccid, event.type === 'checkout.completed' ? undefined : event.at);
    },
  };
}
