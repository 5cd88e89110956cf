/**
 * The local billing engine's customers and subscriptions: creating a billing customer, plan
 * changes (quoted and made, pro-rated: an upgrade charged at once, a downgrade's lines waiting
 * for the next invoice, docs/decisions/026), and the pause dates the billing cycle honours.
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '@farmcam/db';
import { billingCustomers, subscriptions } from '@farmcam/db/schema';
import {
  BillingError,
  type BillingProvider,
  type PlanChangeQuote,
  type PlanChangeResult,
  type SubscriptionRow,
  type UpcomingInvoice,
} from '@farmcam/billing';
import { isoDay } from '@farmcam/billing/money';
import { isPeriodPaused } from '@farmcam/billing/pause-policy';
import { calculateProration } from '@farmcam/billing/proration';
import { renewalDescription } from './engine-billing-cycle.ts';
import { loadPrice, type EngineKernel, type EngineSettings } from './engine-kernel.ts';
import { isFencedOff, readRestoreFence } from './restore-fence.ts';
import {
  addPendingLines,
  chargeInvoice,
  insertCustomer,
  issueInvoice,
  lockSubscription,
  pendingLines,
} from './ledger.ts';

const nameOfInterval = (interval: string) => (interval === 'year' ? 'annual' : 'monthly');

export function createEngineSubscriptions(kernel: EngineKernel, { invoicing }: EngineSettings) {
  const { db, clock, onceForKey, metrics } = kernel;

  async function quotePlanChange(
    executor: Executor,
    subscription: SubscriptionRow,
    newPriceId: string,
  ) {
    if (subscription.status === 'canceled' || subscription.status === 'incomplete') {
      throw new BillingError('invalid', 'This subscription is not active');
    }
    if (subscription.priceId === newPriceId) {
      throw new BillingError('invalid', 'The camera is already on this plan');
    }
    const current = await loadPrice(executor, subscription.priceId);
    const next = await loadPrice(executor, newPriceId);
    if (!current || !next || !next.price.isActive || !next.product.isActive) {
      throw new BillingError('invalid', 'That plan is not available');
    }
    if (next.price.currency !== current.price.currency) {
      throw new BillingError('invalid', 'That plan is sold in another currency');
    }
    const proration = calculateProration({
      from: {
        name: current.product.name,
        unitAmount: current.price.unitAmount,
        interval: current.price.interval,
      },
      to: {
        name: next.product.name,
        unitAmount: next.price.unitAmount,
        interval: next.price.interval,
      },
      periodStart: subscription.currentPeriodStart,
      periodEnd: subscription.currentPeriodEnd,
      now: clock.now(),
    });
    const [customer] = await executor
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.id, subscription.billingCustomerId));
    // Lines already waiting (an earlier downgrade) and the balance go on the same invoice.
    const waiting = await pendingLines(executor, subscription.billingCustomerId);
    const withBalance =
      proration.total +
      waiting.reduce((sum, line) => sum + line.amount, 0) +
      (customer?.balance ?? 0);
    return { proration, next, current, withBalance };
  }

  async function requireSubscription(executor: Executor, subscriptionId: string, lock: boolean) {
    const row = lock
      ? await lockSubscription(executor, subscriptionId)
      : (
          await executor.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId))
        )[0];
    if (!row) throw new BillingError('invalid', 'No such subscription');
    return row;
  }

  const operations: Pick<
    BillingProvider,
    | 'createCustomer'
    | 'previewPlanChange'
    | 'previewUpcomingInvoice'
    | 'changePlan'
    | 'schedulePause'
    | 'cancelPause'
  > = {
    async createCustomer(input) {
      return onceForKey('create-customer', input.idempotencyKey, input, async (transaction) => {
        const row = await insertCustomer(transaction, {
          portalCustomerId: input.portalCustomerId,
          email: input.email,
          currency: input.currency,
        });
        return { ...row!, createdAt: row!.createdAt };
      });
    },

    async previewPlanChange(input): Promise<PlanChangeQuote> {
      await clock.refresh();
      const subscription = await requireSubscription(db, input.subscriptionId, false);
      const { proration, next, withBalance } = await quotePlanChange(
        db,
        subscription,
        input.newPriceId,
      );
      return {
        // A downgrade is not invoiced now (see changePlan).
        amountDue: proration.total > 0 ? Math.max(withBalance, 0) : 0,
        credit: Math.max(-withBalance, 0),
        currency: next.price.currency,
        lines: proration.lines.map(({ description, amount }) => ({ description, amount })),
      };
    },

    async previewUpcomingInvoice(input): Promise<UpcomingInvoice | null> {
      await clock.refresh();
      const subscription = await requireSubscription(db, input.subscriptionId, false);
      // What the billing cycle renews (engine-billing-cycle.ts): a live plan, not in a pause.
      if (!['active', 'paused', 'past_due'].includes(subscription.status)) return null;
      const raisedAt = subscription.currentPeriodEnd;
      if (isPeriodPaused(subscription, raisedAt)) return null;
      // Nor one before a restore's billing fence, which rolls on unbilled (decision 109).
      if (isFencedOff(await readRestoreFence(db), raisedAt)) return null;
      const plan = await loadPrice(db, subscription.priceId);
      if (!plan) return null;
      const [customer] = await db
        .select()
        .from(billingCustomers)
        .where(eq(billingCustomers.id, subscription.billingCustomerId));
      const waiting = await pendingLines(db, subscription.billingCustomerId);
      const lines = [
        ...waiting.map(({ description, amount }) => ({ description, amount })),
        {
          description: renewalDescription(
            plan.product.name,
            plan.price.unitAmount,
            plan.price.currency,
            plan.price.interval,
          ),
          amount: plan.price.unitAmount,
        },
      ];
      const total = lines.reduce((sum, line) => sum + line.amount, 0);
      return {
        subscriptionId: subscription.id,
        raisedAt,
        total,
        amountDue: Math.max(total + (customer?.balance ?? 0), 0),
        currency: plan.price.currency,
        lines,
      };
    },

    async changePlan(input): Promise<PlanChangeResult> {
      return onceForKey('change-plan', input.idempotencyKey, input, async (transaction) => {
        const now = clock.now();
        const subscription = await requireSubscription(transaction, input.subscriptionId, true);
        const { proration, next } = await quotePlanChange(
          transaction,
          subscription,
          input.newPriceId,
        );
        const [updated] = await transaction
          .update(subscriptions)
          .set({
            priceId: input.newPriceId,
            // Another interval restarts the period now, and with it the anchor (as Stripe does).
            ...(proration.newPeriod && {
              currentPeriodStart: proration.newPeriod.start,
              currentPeriodEnd: proration.newPeriod.end,
              billingCycleAnchor: proration.newPeriod.start,
            }),
            updatedAt: now,
          })
          .where(eq(subscriptions.id, subscription.id))
          .returning();
        if (proration.total <= 0) {
          // A downgrade charges nothing now: its lines wait for the next invoice (Stripe's
          // pending invoice items), where the unused time is a negative line (decision 026).
          await addPendingLines(transaction, {
            billingCustomerId: subscription.billingCustomerId,
            subscriptionId: subscription.id,
            lines: proration.lines,
            now,
          });
          return { subscription: updated!, invoice: null };
        }
        const invoice = await issueInvoice(transaction, {
          billingCustomerId: subscription.billingCustomerId,
          subscriptionId: subscription.id,
          description: `${next.product.name} (${nameOfInterval(next.price.interval)}), pro-rated from ${isoDay(now)}`,
          lines: proration.lines,
          currency: next.price.currency,
          periodStart: now,
          periodEnd: proration.newPeriod?.end ?? subscription.currentPeriodEnd,
          now,
          invoicing,
        });
        let status = invoice.status;
        if (invoice.status === 'open') {
          const outcome = await chargeInvoice(transaction, invoice, now, undefined, { metrics });
          // The whole change is rolled back: the plan stays as it was and nothing is owed.
          if (!outcome.isPaid) throw new BillingError('card_declined', outcome.reason);
          status = 'paid';
        }
        return {
          subscription: updated!,
          invoice: {
            id: invoice.id,
            amountDue: invoice.amountDue,
            currency: invoice.currency,
            status,
          },
        };
      }).then((result) => ({
        // Stored results come back as JSON: turn the dates back into dates.
        ...result,
        subscription: reviveSubscription(result.subscription),
      }));
    },

    async schedulePause(input) {
      const result = await onceForKey(
        'schedule-pause',
        input.idempotencyKey,
        input,
        async (transaction) => {
          const subscription = await requireSubscription(transaction, input.subscriptionId, true);
          if (!['active', 'paused'].includes(subscription.status)) {
            throw new BillingError('invalid', 'Only an active subscription can be paused');
          }
          const [updated] = await transaction
            .update(subscriptions)
            .set({
              pauseStartsOn: input.startsOn,
              pauseResumesOn: input.resumesOn,
              updatedAt: clock.now(),
            })
            .where(eq(subscriptions.id, subscription.id))
            .returning();
          return updated!;
        },
      );
      return reviveSubscription(result);
    },

    async cancelPause(input) {
      const result = await onceForKey(
        'cancel-pause',
        input.idempotencyKey,
        input,
        async (transaction) => {
          const subscription = await requireSubscription(transaction, input.subscriptionId, true);
          if (!subscription.pauseStartsOn)
            throw new BillingError('invalid', 'There is no pause to cancel');
          const [updated] = await transaction
            .update(subscriptions)
            .set({
              pauseStartsOn: null,
              pauseResumesOn: null,
              status: subscription.status === 'paused' ? 'active' : subscription.status,
              updatedAt: clock.now(),
            })
            .where(eq(subscriptions.id, subscription.id))
            .returning();
          return updated!;
        },
      );
      return reviveSubscription(result);
    },
  };
  return operations;
}

/** A subscription row read back from stored JSON: its timestamps as dates again. */
function reviveSubscription(row: SubscriptionRow): SubscriptionRow {
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    ...row,
    currentPeriodStart: date(row.currentPeriodStart)!,
    currentPeriodEnd: date(row.currentPeriodEnd)!,
    billingCycleAnchor: date(row.billingCycleAnchor)!,
    pastDueSince: date(row.pastDueSince),
    canceledAt: date(row.canceledAt),
    createdAt: date(row.createdAt)!,
    updatedAt: date(row.updatedAt)!,
  };
}
