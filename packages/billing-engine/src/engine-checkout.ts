/**
 * The local billing engine's checkout: a hosted checkout session for a plan, paid with a card
 * (the subscription and its first invoice made, `checkout.completed` raised for the app to
 * fulfil), and the refund of a checkout the app could not fulfil.
 */
import { and, asc, eq, ne } from 'drizzle-orm';
import { billingSessions, invoices, subscriptions } from '@farmcam/db/schema';
import { BillingError, type CheckoutHooks, type CheckoutRequest } from '@farmcam/billing';
import { newProviderId } from '@farmcam/billing/ids';
import { periodEndOnAnchor } from '@farmcam/billing/billing-cycle-anchor';
import { renewalDescriptionOf } from './engine-billing-cycle.ts';
import type { CardInput, EngineCardsAndInvoices } from './engine-cards-and-invoices.ts';
import { loadPrice, type EngineKernel, type EngineSettings } from './engine-kernel.ts';
import {
  chargeInvoice,
  insertCustomer,
  issueInvoice,
  issueRefundCreditNote,
  lockSubscription,
} from './ledger.ts';

const checkoutSessionHours = 24;

export function createEngineCheckout(
  kernel: EngineKernel,
  { invoicing, publicUrl }: EngineSettings,
  { saveCard }: Pick<EngineCardsAndInvoices, 'saveCard'>,
  /** The app's checks and account making when a checkout is paid (activation). */
  checkoutHooks: CheckoutHooks | undefined,
) {
  const { db, clock, emit, onceForKey, metrics } = kernel;

  return {
    async createCheckoutSession(input: CheckoutRequest) {
      const id = await onceForKey('checkout', input.idempotencyKey, input, async (transaction) => {
        const price = await loadPrice(transaction, input.priceId);
        if (!price || !price.price.isActive)
          throw new BillingError('invalid', 'That plan is not available');
        const sessionId = newProviderId('cs', 32);
        await transaction.insert(billingSessions).values({
          id: sessionId,
          kind: 'checkout',
          billingCustomerId: input.billingCustomerId,
          customerEmail: input.email,
          priceId: input.priceId,
          clientReferenceId: input.clientReferenceId,
          returnUrl: input.successUrl,
          cancelUrl: input.cancelUrl,
          metadata: {
            ...input.metadata,
            ...(input.portalCustomerId !== null && { portalCustomerId: input.portalCustomerId }),
          },
          expiresAt: new Date(clock.now().getTime() + checkoutSessionHours * 3_600_000),
          createdAt: clock.now(),
        });
        return sessionId;
      });
      return { id, url: `${publicUrl}/billing-engine/checkout/${id}` };
    },

    /** Pays a checkout with a card: creates the subscription and raises `checkout.completed`. */
    async completeCheckout(sessionId: string, card: CardInput): Promise<{ redirectUrl: string }> {
      await clock.refresh();
      const now = clock.now();
      return onceForKey('complete-checkout', sessionId, { sessionId }, async (transaction) => {
        const [session] = await transaction
          .select()
          .from(billingSessions)
          .where(and(eq(billingSessions.id, sessionId), eq(billingSessions.kind, 'checkout')))
          .for('update');
        if (!session || session.status !== 'open' || session.expiresAt <= now) {
          throw new BillingError(
            'invalid',
            'This checkout has expired. Start again from the portal.',
          );
        }
        const price = await loadPrice(transaction, session.priceId!);
        if (!price) throw new BillingError('invalid', 'That plan is not available');
        const simIccid = session.clientReferenceId;
        if (!simIccid) throw new BillingError('invalid', 'This checkout is not for a SIM');
        await checkoutHooks?.beforeCharge(transaction, {
          clientReferenceId: simIccid,
          metadata: session.metadata,
        });
        const live = await transaction
          .select({ id: subscriptions.id })
          .from(subscriptions)
          .where(and(eq(subscriptions.simIccid, simIccid), ne(subscriptions.status, 'canceled')));
        if (live.length > 0)
          throw new BillingError('invalid', 'This SIM already has a subscription');

        let billingCustomerId = session.billingCustomerId;
        if (!billingCustomerId) {
          const portalCustomerId =
            session.metadata.portalCustomerId ??
            (session.customerEmail
              ? await checkoutHooks?.portalCustomerFor(transaction, session.customerEmail)
              : undefined);
          if (!portalCustomerId) throw new BillingError('invalid', 'This checkout has no customer');
          const created = await insertCustomer(transaction, {
            portalCustomerId,
            email: session.customerEmail ?? '',
            currency: price.price.currency,
          });
          billingCustomerId = created!.id;
        }
        const savedCard = await saveCard(transaction, billingCustomerId, card, true);
        const subscriptionId = newProviderId('sub');
        // The subscription starts now, which anchors every renewal (docs/decisions/108).
        const periodEnd = periodEndOnAnchor(now, now, price.price.interval);
        await transaction.insert(subscriptions).values({
          id: subscriptionId,
          billingCustomerId,
          simIccid,
          priceId: price.price.id,
          status: 'active',
          currentPeriodStart: now,
          currentPeriodEnd: periodEnd,
          billingCycleAnchor: now,
          createdAt: now,
          updatedAt: now,
        });
        const invoice = await issueInvoice(transaction, {
          billingCustomerId,
          subscriptionId,
          description: renewalDescriptionOf(price),
          total: price.price.unitAmount,
          currency: price.price.currency,
          periodStart: now,
          periodEnd,
          now,
          invoicing,
        });
        if (invoice.status === 'open') {
          const outcome = await chargeInvoice(transaction, invoice, now, savedCard, { metrics });
          if (!outcome.isPaid) throw new BillingError('card_declined', outcome.reason);
        }
        await transaction
          .update(billingSessions)
          .set({ status: 'complete', completedAt: now, subscriptionId, billingCustomerId })
          .where(eq(billingSessions.id, session.id));
        emit(transaction, {
          type: 'checkout.completed',
          sessionId: session.id,
          billingCustomerId,
          subscriptionId,
          clientReferenceId: simIccid,
          metadata: session.metadata,
        });
        const separator = session.returnUrl?.includes('?') ? '&' : '?';
        return {
          redirectUrl: `${session.returnUrl ?? publicUrl}${separator}session_id=${session.id}`,
        };
      });
    },

    async refundCheckout(input: { subscriptionId: string; reason: string }) {
      await clock.refresh();
      const now = clock.now();
      await db.transaction(async (transaction) => {
        const subscription = await lockSubscription(transaction, input.subscriptionId);
        if (!subscription) throw new BillingError('invalid', 'No such subscription');
        if (subscription.status === 'canceled') return;
        await transaction
          .update(subscriptions)
          .set({
            status: 'canceled',
            canceledAt: now,
            cancellationReason: 'cancellation_requested',
            updatedAt: now,
          })
          .where(eq(subscriptions.id, subscription.id));
        const charged = await transaction
          .select({ id: invoices.id })
          .from(invoices)
          .where(eq(invoices.subscriptionId, subscription.id))
          .orderBy(asc(invoices.createdAt));
        // The invoices stay paid, as Stripe's do; what they were paid is given back to the card
        // with a credit note each, the bookkeeper's record of it (docs/decisions/026).
        for (const invoice of charged) {
          await issueRefundCreditNote(transaction, {
            invoiceId: invoice.id,
            reason: input.reason,
            now,
            invoicing,
          });
        }
      });
    },
  };
}
