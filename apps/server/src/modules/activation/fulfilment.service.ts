/**
 * Fulfilment of a paid activation (docs/requirements.md#activation-wizard, step 5 → thank-you page): the SIM goes to the buyer's
 * account and billing account, the SIM platform activates it, the audit log records it, and a
 * welcome e-mail with a sign-in link goes out. It runs when the billing provider reports
 * `checkout.completed` (local engine: the hosted checkout; Stripe: the checkout.session.completed
 * webhook) and again from the reconciliation job for orders a failure left half done.
 *
 * Exactly once: attaching the SIM happens under its row lock, and a SIM already attached to this
 * order's billing account is a replay (nothing to do but finish what is left). A second order for
 * a SIM someone else already has is refused and refunded.
 */
import { cameraNameOf } from '@farmcam/contract/rules';
import type { Database } from '../../db/client.ts';
import { systemActor, writeAudit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import type { BillingEvent, BillingProvider } from '@farmcam/billing';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import type { Mailer } from '../../providers/mail/mail.ts';
import { activationRepository as repository } from './activation.repository.ts';
import { isActivationCheckout } from './checkout-hooks.ts';
import type { LoginLinks } from '../auth/login-links.service.ts';
import { refusedOrderEmail, welcomeEmail } from './welcome-email.ts';

export interface FulfilmentDeps {
  db: Database;
  clock: Clock;
  billing: BillingProvider;
  connectivity: ConnectivityPlatform;
  mailer: Mailer;
  loginLinks: LoginLinks;
  publicUrl: string;
  supportEmail: string;
  log: {
    warn(details: object, message: string): void;
    error(details: object, message: string): void;
  };
}

export interface PaidOrder {
  subscriptionId: string;
  billingCustomerId: string;
  iccid: string;
  /** Our order reference (the thank-you page's `order`), when the checkout carried one. */
  order: string | null;
}

export type FulfilmentOutcome = 'activated' | 'already-fulfilled' | 'awaiting-platform' | 'refused';

export function createActivationFulfilment(deps: FulfilmentDeps) {
  const { db, clock, billing, connectivity, mailer } = deps;

  /** Step 1, in one transaction: the SIM joins the buyer's account, or the order lost the SIM. */
  async function attach(order: PaidOrder) {
    return db.transaction(async (transaction) => {
      const sim = await repository.lockSim(transaction, order.iccid);
      const account = await repository.payingAccount(transaction, order.billingCustomerId);
      const subscription = await repository.orderSubscription(transaction, order.subscriptionId);
      if (!sim || !account || !subscription || subscription.simIccid !== order.iccid) {
        throw new Error(`Paid order ${order.subscriptionId} does not match SIM ${order.iccid}`);
      }
      if (sim.billingCustomerId === account.id && sim.customerId === account.customerId) {
        return { kind: 'attached' as const, account, sim, isReplay: true };
      }
      if (subscription.status === 'canceled') return { kind: 'canceled' as const, account };
      if (sim.state !== 'stock' || sim.customerId !== null || sim.billingCustomerId !== null) {
        return { kind: 'lost' as const, account };
      }
      const attached = await repository.attachSim(transaction, sim.iccid, {
        customerId: account.customerId,
        billingCustomerId: account.id,
        nickname: cameraNameOf(sim.nickname, sim.iccid),
        // The region the plan was bought for: renewals offer that region's plans.
        region: subscription.region,
        updatedAt: clock.now(),
      });
      await writeAudit(transaction, {
        ...systemActor(account.customerId),
        action: 'activation.sim_attached',
        subjectType: 'sim',
        subjectId: sim.iccid,
        details: {
          order: order.order,
          subscriptionId: order.subscriptionId,
          billingCustomerId: account.id,
        },
      });
      return { kind: 'attached' as const, account, sim: attached, isReplay: false };
    });
  }

  /** Step 2: the platform first, then our row (DESIGN §3). Safe to repeat. */
  async function activateOnPlatform(order: PaidOrder, customerId: string) {
    const platformSim = await connectivity.activateSim(order.iccid, {
      idempotencyKey: `activation-${order.subscriptionId}`,
    });
    const now = clock.now();
    await db.transaction(async (transaction) => {
      await repository.recordSimActivation(transaction, order.iccid, {
        state: platformSim.state,
        isBarred: platformSim.isBarred,
        activatedAt: platformSim.activatedAt ?? now,
        updatedAt: now,
      });
      await writeAudit(transaction, {
        ...systemActor(customerId),
        action: 'activation.sim_activated',
        subjectType: 'sim',
        subjectId: order.iccid,
        details: { order: order.order, subscriptionId: order.subscriptionId },
      });
    });
  }

  /**
   * Runs `send` once per key: a marker is claimed first and given back if sending fails, so the
   * reconciliation job tries again.
   */
  async function onceForMessage(key: string, send: () => Promise<void>) {
    if (!(await repository.claimMessage(db, key, clock.now()))) return;
    try {
      await send();
    } catch (error) {
      await repository.releaseMessage(db, key);
      throw error;
    }
  }

  async function planName(subscriptionId: string): Promise<string> {
    return (await repository.productNameOfSubscription(db, subscriptionId)) ?? 'Streaming';
  }

  async function refuse(order: PaidOrder, account: { customerId: string; payerEmail: string }) {
    const reason = `SIM ${order.iccid} went to another buyer first`;
    await billing.refundCheckout({ subscriptionId: order.subscriptionId, reason });
    await writeAudit(db, {
      ...systemActor(account.customerId),
      action: 'activation.refused',
      subjectType: 'sim',
      subjectId: order.iccid,
      details: { order: order.order, subscriptionId: order.subscriptionId, refunded: true },
    });
    await onceForMessage(`refused:${order.subscriptionId}`, () =>
      mailer.send(
        refusedOrderEmail({
          to: account.payerEmail,
          iccid: order.iccid,
          order: order.order,
          supportEmail: deps.supportEmail,
        }),
      ),
    );
  }

  /** Fulfils one paid order; repeating it (replays, retries, the job) does nothing more. */
  async function fulfil(order: PaidOrder): Promise<FulfilmentOutcome> {
    const attached = await attach(order);
    if (attached.kind === 'canceled') return 'refused';
    if (attached.kind === 'lost') {
      await refuse(order, attached.account);
      return 'refused';
    }
    const { account, sim } = attached;
    if (sim.state === 'stock') {
      try {
        await activateOnPlatform(order, account.customerId);
      } catch (error) {
        deps.log.warn(
          { err: error, iccid: order.iccid },
          'The SIM platform did not activate a paid SIM; the activation job will retry',
        );
        return 'awaiting-platform';
      }
    }
    await onceForMessage(`welcome:${order.subscriptionId}`, async () =>
      mailer.send(
        welcomeEmail({
          to: account.email,
          nickname: cameraNameOf(sim.nickname, sim.iccid),
          iccid: sim.iccid,
          planName: await planName(order.subscriptionId),
          order: order.order,
          signInUrl: await deps.loginLinks.create(account.customerId),
          publicUrl: deps.publicUrl,
          supportEmail: deps.supportEmail,
        }),
      ),
    );
    return attached.isReplay && sim.state !== 'stock' ? 'already-fulfilled' : 'activated';
  }

  return {
    fulfil,

    /** The reaction to a paid checkout; renewals are the billing module's. */
    async handleEvent(event: BillingEvent): Promise<void> {
      if (event.type !== 'checkout.completed' || !event.clientReferenceId) return;
      if (!isActivationCheckout(event.metadata)) return;
      await fulfil({
        subscriptionId: event.subscriptionId,
        billingCustomerId: event.billingCustomerId,
        iccid: event.clientReferenceId,
        order: event.metadata.order ?? null,
      });
    },

    /**
     * Finishes what a failed handler or platform call left: every live subscription whose SIM is
     * still in stock, and every attached SIM the platform has not activated yet.
     */
    async reconcile(): Promise<{ fulfilled: number; failed: number }> {
      const unfinished = await repository.unfinishedOrders(db);
      let fulfilled = 0;
      let failed = 0;
      for (const row of unfinished) {
        const metadata = await repository.completedCheckoutMetadata(db, row.subscriptionId);
        try {
          const outcome = await fulfil({ ...row, order: metadata?.order ?? null });
          if (outcome === 'activated' || outcome === 'refused') fulfilled += 1;
        } catch (error) {
          failed += 1;
          deps.log.error({ err: error, iccid: row.iccid }, 'Could not finish a paid activation');
        }
      }
      return { fulfilled, failed };
    },
  };
}

export type ActivationFulfilment = ReturnType<typeof createActivationFulfilment>;
