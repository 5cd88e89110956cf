/**
 * The local billing engine's cards and invoices: test cards checked and saved, the default
 * card, open invoices paid (restoring a lapsed subscription through the billing cycle), and the
 * sessions of the hosted billing portal where the customer does all of it.
 */
import { and, asc, desc, eq, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '@farmcam/db';
import {
  billingCustomers,
  billingSessions,
  invoices,
  paymentMethods,
  type BillingDetails,
} from '@farmcam/db/schema';
import { recordCardChange } from '@farmcam/billing/billing-activity';
import { BillingError, type InvoicePaymentOutcome } from '@farmcam/billing';
import { newProviderId } from '@farmcam/billing/ids';
import { firstCardFieldError, type CardInput } from './card-fields.ts';
import type { EngineBillingCycle } from './engine-billing-cycle.ts';
import type { EngineKernel, EngineSettings } from './engine-kernel.ts';
import {
  cardFingerprint,
  chargeInvoice,
  defaultCard,
  insertCard,
  isCardExpired,
  type InvoiceRow,
} from './ledger.ts';
import {
  cardAlreadySavedMessage,
  declinedMessage,
  findTestCard,
  testCardMessage,
} from './test-cards.ts';

const portalSessionMinutes = 60;
const cardSetupMinutes = 60;
const customerSecretMinutes = 30;
export const amountDueChangedMessage =
  'The amount due has changed since the page was opened. Check it and try again.';

export type { CardInput };

export interface AddCardResult {
  /** Open invoices paid with the new card (only with consent). */
  paidInvoices: number;
  /** Why a consented payment did not go through (the card is saved all the same). */
  paymentFailure: string | null;
}

type PaymentMethodRow = typeof paymentMethods.$inferSelect;

/** The customer's saved cards (not removed) that meet `condition`, as a where clause. */
const savedCardOf = (billingCustomerId: string, condition: SQL) =>
  and(
    eq(paymentMethods.billingCustomerId, billingCustomerId),
    condition,
    isNull(paymentMethods.detachedAt),
  );

export type EngineCardsAndInvoices = ReturnType<typeof createEngineCardsAndInvoices>;

export function createEngineCardsAndInvoices(
  kernel: EngineKernel,
  { publicUrl }: EngineSettings,
  { restoreIfSettled }: Pick<EngineBillingCycle, 'restoreIfSettled'>,
) {
  const { db, clock, transact, onceForKey, metrics } = kernel;

  /**
   * Checks a card typed into a hosted page and saves it. A card the customer already saved (same
   * fingerprint) is refused when adding one (`ifSaved: 'refuse'`); paying with it (checkout,
   * invoice page) uses the saved card instead of a second copy.
   */
  async function saveCard(
    executor: Executor,
    billingCustomerId: string,
    card: CardInput,
    makeDefault: boolean,
    ifSaved: 'refuse' | 'reuse' = 'reuse',
  ) {
    // The engine is called with what a page posted: a number typed as anything else is refused.
    if (
      typeof card.number !== 'string' ||
      typeof card.cvc !== 'string' ||
      !Number.isInteger(card.expMonth) ||
      !Number.isInteger(card.expYear)
    ) {
      throw new BillingError('invalid', 'Enter the card number, expiry date and CVC.');
    }
    // Field by field as Stripe Elements checks them (card-fields.ts, decision 114): a past
    // expiry is a mistyped card, never charged.
    const fieldError = firstCardFieldError(card, clock.now());
    if (fieldError) throw new BillingError('invalid', fieldError);
    const testCard = findTestCard(card.number);
    if (!testCard) {
      throw new BillingError('invalid', testCardMessage);
    }
    if (testCard.behaviour === 'declined') throw new BillingError('card_declined', declinedMessage);
    const fingerprint = await cardFingerprint(executor, billingCustomerId, card);
    const [saved] = await executor
      .select()
      .from(paymentMethods)
      .where(savedCardOf(billingCustomerId, eq(paymentMethods.fingerprint, fingerprint)));
    if (saved) {
      if (ifSaved === 'refuse') throw new BillingError('invalid', cardAlreadySavedMessage);
      if (makeDefault && !saved.isDefault) {
        await makeCardDefault(executor, saved);
        await recordCardChange(executor, 'cardDefault', saved);
      }
      return { ...saved, isDefault: saved.isDefault || makeDefault };
    }
    const inserted = await insertCard(executor, {
      billingCustomerId,
      brand: testCard.brand,
      last4: testCard.number.slice(-4),
      expMonth: card.expMonth,
      expYear: card.expYear,
      fingerprint,
      makeDefault,
      // Billing time (the test clock's), like the invoices it is compared with (bill-words.ts).
      createdAt: clock.now(),
    });
    // Two tabs adding the same card at once: the unique index let only one in.
    if (!inserted) throw new BillingError('invalid', cardAlreadySavedMessage);
    await recordCardChange(executor, 'cardAdded', inserted);
    return inserted;
  }

  async function makeCardDefault(executor: Executor, card: PaymentMethodRow) {
    await executor
      .update(paymentMethods)
      .set({ isDefault: false })
      .where(eq(paymentMethods.billingCustomerId, card.billingCustomerId));
    await executor
      .update(paymentMethods)
      .set({ isDefault: true })
      .where(eq(paymentMethods.id, card.id));
  }

  /** A customer's open invoices, oldest first, locked while they are paid. */
  async function openInvoicesOf(executor: Executor, billingCustomerId: string) {
    return executor
      .select()
      .from(invoices)
      .where(and(eq(invoices.billingCustomerId, billingCustomerId), eq(invoices.status, 'open')))
      .orderBy(asc(invoices.createdAt))
      .for('update');
  }

  /** Pays open invoices with a new card the customer agreed to pay them with, oldest first. */
  async function payOpenInvoices(
    executor: Executor,
    open: InvoiceRow[],
    card: PaymentMethodRow,
  ): Promise<AddCardResult> {
    let paidInvoices = 0;
    for (const invoice of open) {
      const outcome = await chargeInvoice(executor, invoice, clock.now(), card, { metrics });
      if (!outcome.isPaid) return { paidInvoices, paymentFailure: outcome.reason };
      paidInvoices += 1;
      await restoreIfSettled(executor, invoice.subscriptionId, clock.now());
    }
    return { paidInvoices, paymentFailure: null };
  }

  return {
    saveCard,

    /** `pay`: the portal's new card pays what is due unless unticked (decision 113). */
    async createPortalSession(input: {
      billingCustomerId: string;
      returnUrl: string;
      purpose?: 'manage' | 'pay';
    }) {
      await clock.refresh();
      const id = newProviderId('bps', 32);
      await db.insert(billingSessions).values({
        id,
        kind: 'portal',
        billingCustomerId: input.billingCustomerId,
        returnUrl: input.returnUrl,
        metadata: { purpose: input.purpose ?? 'manage' },
        expiresAt: new Date(clock.now().getTime() + portalSessionMinutes * 60_000),
        createdAt: clock.now(),
      });
      return { url: `${publicUrl}/billing-engine/portal/${id}` };
    },

    async createCustomerSecret(input: { billingCustomerId: string }) {
      await clock.refresh();
      const id = newProviderId('cuss_secret', 32);
      await db.insert(billingSessions).values({
        id,
        kind: 'customer_session',
        billingCustomerId: input.billingCustomerId,
        expiresAt: new Date(clock.now().getTime() + customerSecretMinutes * 60_000),
        createdAt: clock.now(),
      });
      return { secret: id };
    },

    /**
     * Validates and saves a card (test cards only), optionally as the default. A card already
     * saved is refused. Open invoices are paid with it only with the customer's consent to the
     * amount they were shown (`payAmountDue`, docs/decisions/027).
     */
    async addCard(
      billingCustomerId: string,
      card: CardInput,
      makeDefault: boolean,
      consent?: { payAmountDue: number },
    ): Promise<AddCardResult> {
      await clock.refresh();
      return transact(async (transaction) => {
        // The amount the customer agreed to is checked before the card is saved, so a refusal
        // leaves nothing behind.
        const open = consent ? await openInvoicesOf(transaction, billingCustomerId) : [];
        if (consent) {
          const due = open.reduce(
            (sum, invoice) => sum + invoice.amountDue - invoice.amountPaid,
            0,
          );
          if (open.length === 0 || due !== consent.payAmountDue) {
            throw new BillingError('invalid', amountDueChangedMessage);
          }
        }
        const saved = await saveCard(transaction, billingCustomerId, card, makeDefault, 'refuse');
        // Without consent nothing is charged: Stripe does not pay open invoices when a card is
        // attached either (docs/decisions/027).
        if (!consent) return { paidInvoices: 0, paymentFailure: null };
        return payOpenInvoices(transaction, open, saved);
      });
    },

    async setDefaultCard(billingCustomerId: string, paymentMethodId: string) {
      await clock.refresh();
      await transact(async (transaction) => {
        const [card] = await transaction
          .select()
          .from(paymentMethods)
          .where(savedCardOf(billingCustomerId, eq(paymentMethods.id, paymentMethodId)));
        if (!card) throw new BillingError('invalid', 'No such card');
        if (isCardExpired(card, clock.now())) {
          throw new BillingError('invalid', 'This card has expired, so it cannot be the default.');
        }
        // Making a card the default charges nothing: open invoices have their own Pay button.
        if (!card.isDefault) {
          await makeCardDefault(transaction, card);
          await recordCardChange(transaction, 'cardDefault', card);
        }
      });
    },

    async removeCard(billingCustomerId: string, paymentMethodId: string) {
      await clock.refresh();
      await db.transaction(async (transaction) => {
        const [removed] = await transaction
          .update(paymentMethods)
          .set({ detachedAt: clock.now(), isDefault: false })
          .where(savedCardOf(billingCustomerId, eq(paymentMethods.id, paymentMethodId)))
          .returning();
        if (!removed) throw new BillingError('invalid', 'No such card');
        await recordCardChange(transaction, 'cardRemoved', removed);
        if (
          removed.isDefault ||
          !(
            await transaction
              .select()
              .from(paymentMethods)
              .where(savedCardOf(billingCustomerId, eq(paymentMethods.isDefault, true)))
          ).length
        ) {
          // The default falls to the newest unexpired card (none: no default).
          const next = await defaultCard(transaction, billingCustomerId, clock.now());
          if (next && !isCardExpired(next, clock.now())) {
            await transaction
              .update(paymentMethods)
              .set({ isDefault: true })
              .where(eq(paymentMethods.id, next.id));
          }
        }
      });
    },

    /** The account's billing address and VAT number, carried by invoices from now on. */
    async updateCustomerDetails(input: {
      billingCustomerId: string;
      details: BillingDetails;
      idempotencyKey: string;
    }): Promise<void> {
      await onceForKey('customer-details', input.idempotencyKey, input, async (transaction) => {
        const updated = await transaction
          .update(billingCustomers)
          .set({ details: input.details })
          .where(eq(billingCustomers.id, input.billingCustomerId))
          .returning({ id: billingCustomers.id });
        if (updated.length === 0) throw new BillingError('invalid', 'No such billing account');
        return { updated: true };
      });
    },

    /**
     * Pays one open invoice with the account's card under an idempotency key (decision 128): a
     * decline is recorded as a failed payment and returned, so a Pay all goes on with the others.
     */
    async payInvoiceNow(input: {
      invoiceId: string;
      idempotencyKey: string;
    }): Promise<InvoicePaymentOutcome> {
      return onceForKey('pay-invoice', input.idempotencyKey, input, async (transaction) => {
        const [invoice] = await transaction
          .select()
          .from(invoices)
          .where(eq(invoices.id, input.invoiceId))
          .for('update');
        if (!invoice) throw new BillingError('invalid', 'No such invoice');
        if (invoice.status === 'paid') return { outcome: 'already_paid' } as const;
        if (invoice.status !== 'open') {
          throw new BillingError('invalid', 'This invoice was closed: nothing is to pay on it.');
        }
        const now = clock.now();
        const charged = await chargeInvoice(transaction, invoice, now, undefined, { metrics });
        if (!charged.isPaid) return { outcome: 'declined', reason: charged.reason } as const;
        await restoreIfSettled(transaction, invoice.subscriptionId, now);
        return { outcome: 'paid' } as const;
      });
    },

    /** One hosted page where a card typed once becomes every listed account's default card. */
    async startCardSetup(input: {
      billingCustomerIds: string[];
      returnUrl: string;
      idempotencyKey: string;
    }) {
      if (input.billingCustomerIds.length === 0) {
        throw new BillingError('invalid', 'There is no camera to add a card to.');
      }
      return onceForKey('card-setup', input.idempotencyKey, input, async (transaction) => {
        const id = newProviderId('cs_setup', 32);
        await transaction.insert(billingSessions).values({
          id,
          kind: 'card_setup',
          billingCustomerId: input.billingCustomerIds[0]!,
          returnUrl: input.returnUrl,
          metadata: { accounts: input.billingCustomerIds.join(',') },
          expiresAt: new Date(clock.now().getTime() + cardSetupMinutes * 60_000),
          createdAt: clock.now(),
        });
        return {
          steps: [
            {
              billingCustomerIds: input.billingCustomerIds,
              url: `${publicUrl}/billing-engine/card-setup/${id}`,
            },
          ],
        };
      });
    },

    /**
     * The card-setup page's card saved on each of its accounts as the default, all or none
     * (one transaction); the session is then complete.
     */
    async completeCardSetup(sessionId: string, card: CardInput): Promise<{ redirectUrl: string }> {
      await clock.refresh();
      return transact(async (transaction) => {
        const [session] = await transaction
          .select()
          .from(billingSessions)
          .where(and(eq(billingSessions.id, sessionId), eq(billingSessions.kind, 'card_setup')))
          .for('update');
        if (!session || session.status !== 'open' || session.expiresAt <= clock.now()) {
          throw new BillingError('invalid', 'This page has expired. Start again from the portal.');
        }
        const accounts = (session.metadata.accounts ?? '').split(',').filter(Boolean);
        for (const account of accounts) await saveCard(transaction, account, card, true);
        await transaction
          .update(billingSessions)
          .set({ status: 'complete' })
          .where(eq(billingSessions.id, sessionId));
        const back = new URL(session.returnUrl ?? publicUrl, publicUrl);
        back.searchParams.set('card', 'saved');
        back.searchParams.set('cameras', String(accounts.length));
        return { redirectUrl: back.toString() };
      });
    },

    /** Pays an open invoice with the default card (or a new one), restoring a lapsed subscription. */
    async payInvoice(invoiceId: string, newCard?: CardInput) {
      await clock.refresh();
      const now = clock.now();
      // A declined attempt is still recorded (as a failed payment) before the error is shown.
      const failure = await transact(async (transaction) => {
        const [invoice] = await transaction
          .select()
          .from(invoices)
          .where(eq(invoices.id, invoiceId))
          .for('update');
        if (!invoice) throw new BillingError('invalid', 'No such invoice');
        if (invoice.status === 'uncollectible' || invoice.status === 'void') {
          throw new BillingError(
            'invalid',
            'This invoice was closed when the subscription ended. Renew the camera from the portal.',
          );
        }
        if (invoice.status !== 'open')
          throw new BillingError('invalid', 'This invoice is already paid');
        const card = newCard
          ? await saveCard(transaction, invoice.billingCustomerId, newCard, true)
          : undefined;
        const outcome = await chargeInvoice(transaction, invoice, now, card, { metrics });
        if (!outcome.isPaid) return outcome.reason;
        await restoreIfSettled(transaction, invoice.subscriptionId, now);
        return null;
      });
      if (failure) throw new BillingError('card_declined', failure);
    },
  };
}

/** Every invoice of a billing customer, newest first (for the hosted portal). */
export async function listInvoicesForPortal(executor: Executor, billingCustomerId: string) {
  return executor
    .select()
    .from(invoices)
    .where(eq(invoices.billingCustomerId, billingCustomerId))
    .orderBy(desc(invoices.createdAt));
}
