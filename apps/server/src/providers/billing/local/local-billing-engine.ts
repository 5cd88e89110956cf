/**
 * The local billing engine: the default billing provider. Products, prices, customers,
 * subscriptions, invoices, cards and payments live in our own tables (so the read model is the
 * ledger itself), a billing cycle renews subscriptions at each period end and charges the default
 * card, and it serves its own hosted pages (billing portal, hosted invoice, invoice PDF, checkout;
 * see hosted-pages.routes.ts). Its clock is a test clock that can be advanced to try renewals.
 *
 * Dunning (docs/decisions/025, numbers in dunning-policy.ts): a declined renewal makes the
 * subscription past_due and is retried on the policy's days, each failure raising
 * `invoice.payment_failed` (the app e-mails the customer); it is overdue from day 7 and canceled
 * at day 30, which raises `subscription.canceled` (the app terminates the SIM later). No renewal
 * is raised while it is unpaid; paying brings it back to active at once.
 */
import { and, asc, desc, eq, inArray, isNull, lte, ne } from 'drizzle-orm';
import type { Database, Executor } from '../../../db/client.ts';
import {
  billingCustomers,
  billingSessions,
  idempotencyKeys,
  invoices,
  paymentMethods,
  prices,
  products,
  subscriptions,
} from '../../../db/schema.ts';
import { isUniqueViolation } from '../../../lib/database-errors.ts';
import { hashRequest } from '../../../lib/idempotency.ts';
import {
  BillingError,
  type BillingEvent,
  type BillingEventHandler,
  type BillingProvider,
  type CheckoutHooks,
  type CheckoutRequest,
  type PlanChangeQuote,
  type PlanChangeResult,
  type SubscriptionRow,
} from '../billing.ts';
import { dayMs } from '../../../lib/business-calendar.ts';
import { cancelAt, dunningPolicy, nextRetryAt, overdueAt } from '../dunning-policy.ts';
import { newProviderId } from '../ids.ts';
import { formatMoney, isoDay } from '../money.ts';
import { addInterval, calculateProration } from '../proration.ts';
import {
  addPendingLines,
  cardFingerprint,
  chargeInvoice,
  defaultCard,
  defaultInvoicing,
  hasOpenInvoices,
  insertCard,
  insertCustomer,
  isCardExpired,
  issueInvoice,
  issueRefundCreditNote,
  lockSubscription,
  pendingLines,
  type InvoiceRow,
  type InvoicingSettings,
} from './ledger.ts';
import {
  cardAlreadySavedMessage,
  declinedMessage,
  findTestCard,
  testCardMessage,
} from './test-cards.ts';
import type { TestClock } from './test-clock.ts';
import { demoSupplier } from './invoice-snapshot.ts';
import { createBillingEventStore, type BillingEventDeliveryFailure } from './engine-events.ts';
import {
  plainRenewal,
  readRenewalChunk,
  writeRenewals,
  type PlainRenewal,
} from './batch-renewal.ts';

/** A lapsed subscription has a dunning step due once it is this far past its first failure. */
const overdueAfterMs = dunningPolicy.overdueAfterDays * dayMs;
/**
 * Renewals per transaction in the billing cycle (docs/decisions/075): large enough that the
 * round trips of a chunk cost little per renewal, small enough that a chunk's locks (its
 * subscriptions and customers, then the invoice number sequence for the chunk's last inserts)
 * are held for a fraction of a second.
 */
const defaultRenewalChunkSize = 200;
const portalSessionMinutes = 60;
const checkoutSessionHours = 24;
const customerSecretMinutes = 30;
export const amountDueChangedMessage =
  'The amount due has changed since the page was opened. Check it and try again.';

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

export interface LocalBillingEngine extends BillingProvider {
  readonly kind: 'local';
  readonly clock: TestClock;
  /**
   * Does what is due by `at` (default now): retries of unpaid renewals, dunning steps, renewals;
   * each stamped with the time it was due (docs/decisions/025). One call handles at most a day:
   * a longer gap is replayed day by day (BillingModule.runCycle), so each step has its turn.
   */
  runBillingCycle(at?: Date): Promise<{ renewed: number; events: BillingEvent[] }>;
  /**
   * Hands over the events whose delivery is due: retries of failed handlers, and events whose
   * process died before delivering them (the delivery job, docs/decisions/077).
   */
  deliverDueEvents(): Promise<{ delivered: number; failed: number }>;
  /**
   * Validates and saves a card (test cards only), optionally as the default. A card already saved
   * is refused. Open invoices are paid with it only with the customer's consent to the amount
   * they were shown (`payAmountDue`, docs/decisions/027).
   */
  addCard(
    billingCustomerId: string,
    card: CardInput,
    makeDefault: boolean,
    consent?: { payAmountDue: number },
  ): Promise<AddCardResult>;
  setDefaultCard(billingCustomerId: string, paymentMethodId: string): Promise<void>;
  removeCard(billingCustomerId: string, paymentMethodId: string): Promise<void>;
  /** Pays an open invoice with the default card (or a new one), restoring a lapsed subscription. */
  payInvoice(invoiceId: string, newCard?: CardInput): Promise<void>;
  /** Pays a checkout with a card: creates the subscription and raises `checkout.completed`. */
  completeCheckout(sessionId: string, card: CardInput): Promise<{ redirectUrl: string }>;
}

export interface AddCardResult {
  /** Open invoices paid with the new card (only with consent). */
  paidInvoices: number;
  /** Why a consented payment did not go through (the card is saved all the same). */
  paymentFailure: string | null;
}

export interface LocalBillingEngineDeps {
  db: Database;
  clock: TestClock;
  /** The portal's public address, for the hosted pages' absolute URLs. */
  publicUrl: string;
  /** A handler threw: the event is tried again later, or, after three days, given up on. */
  onDeliveryFailure?: (failure: BillingEventDeliveryFailure) => void;
  /**
   * False: events are only written, and left to the delivery job (a test's stand-in for a
   * process that dies between the commit and the delivery). True by default.
   */
  deliversAfterCommit?: boolean;
  /** The app's checks and account making when a checkout is paid (activation). */
  checkoutHooks?: CheckoutHooks;
  /** The supplier's invoice number prefix and VAT rate (docs/decisions/026). */
  invoicing?: InvoicingSettings;
  /**
   * Renewals per transaction in the billing cycle (default 200, docs/decisions/075); 0 renews
   * each subscription alone in its own transaction, as before batching (the batch test compares
   * the two ledgers).
   */
  renewalChunkSize?: number;
}

const nameOfInterval = (interval: string) => (interval === 'year' ? 'annual' : 'monthly');

export function createLocalBillingEngine(deps: LocalBillingEngineDeps): LocalBillingEngine {
  const { db, clock } = deps;
  const invoicing = deps.invoicing ?? defaultInvoicing;
  const handlers: BillingEventHandler[] = [];
  const eventStore = createBillingEventStore({
    db,
    // Real time: the test clock runs ahead by its offset.
    now: () => new Date(clock.now().getTime() - clock.offsetMs()),
    handlers,
    onFailure: deps.onDeliveryFailure,
  });

  /**
   * Events raised inside a transaction wait here until its work is done, then are written in it
   * (docs/decisions/077) and handed over after the commit: a handler calls other systems (the
   * SIM platform, the mail server), which must never see a change that is then rolled back.
   */
  const pendingEvents = new WeakMap<Executor, BillingEvent[]>();

  function emit(executor: Executor, event: BillingEvent) {
    const pending = pendingEvents.get(executor);
    if (pending) pending.push(event);
  }

  /**
   * Runs `work` in a transaction that also writes the events it raised, then hands them to the
   * handlers (each marked delivered, or retried later by the delivery job). `raised`, if given,
   * collects them too (the billing cycle's result).
   */
  async function transact<Result>(
    work: (transaction: Transaction) => Promise<Result>,
    raised?: BillingEvent[],
  ) {
    const events: BillingEvent[] = [];
    let stored: Awaited<ReturnType<typeof eventStore.record>> = [];
    const result = await db.transaction(async (transaction) => {
      pendingEvents.set(transaction, events);
      const result = await work(transaction);
      stored = await eventStore.record(transaction, events);
      return result;
    });
    raised?.push(...events);
    // No handler yet (a process that only reads, a script): the delivery job hands them over.
    if (deps.deliversAfterCommit !== false && handlers.length > 0) {
      await eventStore.deliverRaised(stored);
    }
    return result;
  }

  /** The engine's own idempotency: a write repeated with the same key returns the first result. */
  async function onceForKey<Result>(
    operation: string,
    key: string,
    request: unknown,
    work: (transaction: Transaction) => Promise<Result>,
  ): Promise<Result> {
    await clock.refresh();
    const scope = `local-billing:${operation}`;
    const requestHash = hashRequest(request);
    const run = () =>
      transact(async (transaction) => {
        const [existing] = await transaction
          .select()
          .from(idempotencyKeys)
          .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
        if (existing) {
          if (existing.requestHash !== requestHash) {
            throw new BillingError('invalid', 'This idempotency key was used for another request');
          }
          return existing.response as Result;
        }
        const result = await work(transaction);
        await transaction
          .insert(idempotencyKeys)
          .values({ scope, key, requestHash, statusCode: 200, response: result as object });
        return result;
      });
    try {
      return await run();
    } catch (error) {
      // Two identical calls at once: the loser's insert hits the key; the winner's result stands.
      if (isUniqueViolation(error)) return run();
      throw error;
    }
  }

  async function loadPrice(executor: Executor, priceId: string) {
    const [row] = await executor
      .select({ price: prices, product: products })
      .from(prices)
      .innerJoin(products, eq(products.id, prices.productId))
      .where(eq(prices.id, priceId));
    return row;
  }

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

  /**
   * After a payment at `at`: a lapsed subscription with nothing left unpaid is active again, and
   * the renewal held back while it was unpaid (a period that began meanwhile) is raised now.
   */
  async function restoreIfSettled(executor: Executor, subscriptionId: string | null, at: Date) {
    if (!subscriptionId) return;
    const subscription = await lockSubscription(executor, subscriptionId);
    if (!subscription || !['past_due', 'overdue'].includes(subscription.status)) return;
    if (await hasOpenInvoices(executor, subscriptionId)) return;
    await executor
      .update(subscriptions)
      .set({ status: 'active', pastDueSince: null, updatedAt: at })
      .where(eq(subscriptions.id, subscriptionId));
    emit(executor, {
      type: 'subscription.recovered',
      subscriptionId,
      simIccid: subscription.simIccid,
      at,
    });
    await renewSubscription(executor, subscriptionId, at, at);
  }

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
    const testCard = findTestCard(card.number);
    if (!testCard) {
      throw new BillingError('invalid', testCardMessage);
    }
    if (!/^\d{3,4}$/.test(card.cvc)) throw new BillingError('invalid', 'Enter the 3-digit CVC');
    if (!(card.expMonth >= 1 && card.expMonth <= 12) || !(card.expYear >= 2000)) {
      throw new BillingError('invalid', 'Enter the expiry date as MM / YY');
    }
    if (isCardExpired(card, clock.now())) {
      throw new BillingError('card_declined', 'Your card has expired. Use another card.');
    }
    if (testCard.behaviour === 'declined') throw new BillingError('card_declined', declinedMessage);
    const fingerprint = await cardFingerprint(executor, billingCustomerId, card);
    const [saved] = await executor
      .select()
      .from(paymentMethods)
      .where(
        and(
          eq(paymentMethods.billingCustomerId, billingCustomerId),
          eq(paymentMethods.fingerprint, fingerprint),
          isNull(paymentMethods.detachedAt),
        ),
      );
    if (saved) {
      if (ifSaved === 'refuse') throw new BillingError('invalid', cardAlreadySavedMessage);
      if (makeDefault && !saved.isDefault) await makeCardDefault(executor, saved);
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
    });
    // Two tabs adding the same card at once: the unique index let only one in.
    if (!inserted) throw new BillingError('invalid', cardAlreadySavedMessage);
    return inserted;
  }

  async function makeCardDefault(executor: Executor, card: typeof paymentMethods.$inferSelect) {
    await executor
      .update(paymentMethods)
      .set({ isDefault: false })
      .where(eq(paymentMethods.billingCustomerId, card.billingCustomerId));
    await executor
      .update(paymentMethods)
      .set({ isDefault: true })
      .where(eq(paymentMethods.id, card.id));
  }

  const engine: LocalBillingEngine = {
    kind: 'local',
    clock,
    now: () => clock.now(),

    onEvent(handler) {
      handlers.push(handler);
    },

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
            ...(proration.newPeriod && {
              currentPeriodStart: proration.newPeriod.start,
              currentPeriodEnd: proration.newPeriod.end,
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
          const outcome = await chargeInvoice(transaction, invoice, now);
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

    async createPortalSession(input) {
      await clock.refresh();
      const id = newProviderId('bps', 32);
      await db.insert(billingSessions).values({
        id,
        kind: 'portal',
        billingCustomerId: input.billingCustomerId,
        returnUrl: input.returnUrl,
        expiresAt: new Date(clock.now().getTime() + portalSessionMinutes * 60_000),
        createdAt: clock.now(),
      });
      return { url: `${deps.publicUrl}/billing-engine/portal/${id}` };
    },

    async createCustomerSecret(input) {
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
      return { id, url: `${deps.publicUrl}/billing-engine/checkout/${id}` };
    },

    async runBillingCycle(at?: Date) {
      if (!at) await clock.refresh();
      const now = at ?? clock.now();
      const events: BillingEvent[] = [];
      let renewed = 0;
      // Retries first: one due today may settle the invoice before the day's dunning step.
      const retries = await db
        .select({ id: invoices.id })
        .from(invoices)
        .innerJoin(billingCustomers, eq(billingCustomers.id, invoices.billingCustomerId))
        .where(
          and(
            eq(billingCustomers.provider, 'local'),
            eq(invoices.status, 'open'),
            lte(invoices.nextPaymentAttempt, now),
          ),
        )
        .orderBy(asc(invoices.nextPaymentAttempt));
      for (const { id } of retries) {
        await transact((transaction) => retryInvoice(transaction, id, now), events);
      }

      const lapsed = await db
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .innerJoin(billingCustomers, eq(billingCustomers.id, subscriptions.billingCustomerId))
        .where(
          and(
            eq(billingCustomers.provider, 'local'),
            inArray(subscriptions.status, ['past_due', 'overdue']),
            lte(subscriptions.pastDueSince, new Date(now.getTime() - overdueAfterMs)),
          ),
        );
      for (const { id } of lapsed) {
        await transact((transaction) => applyDunning(transaction, id, now), events);
      }

      // A subscription with an unpaid renewal gets no new one until it is paid (restoreIfSettled).
      const due = await db
        .select({ id: subscriptions.id })
        .from(subscriptions)
        .innerJoin(billingCustomers, eq(billingCustomers.id, subscriptions.billingCustomerId))
        .where(
          and(
            eq(billingCustomers.provider, 'local'),
            inArray(subscriptions.status, ['active', 'paused']),
            lte(subscriptions.currentPeriodEnd, now),
          ),
        )
        .orderBy(asc(subscriptions.currentPeriodEnd));
      const chunkSize = deps.renewalChunkSize ?? defaultRenewalChunkSize;
      if (chunkSize <= 0) {
        for (const { id } of due) {
          renewed += await transact(
            (transaction) => renewSubscription(transaction, id, now),
            events,
          );
        }
      }
      for (let index = 0; chunkSize > 0 && index < due.length; index += chunkSize) {
        const chunk = due.slice(index, index + chunkSize).map(({ id }) => id);
        renewed += await renewChunk(chunk, now, events);
      }
      return { renewed, events };
    },

    deliverDueEvents: () => eventStore.deliverDue(),

    async addCard(billingCustomerId, card, makeDefault, consent) {
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

    async setDefaultCard(billingCustomerId, paymentMethodId) {
      await clock.refresh();
      await transact(async (transaction) => {
        const [card] = await transaction
          .select()
          .from(paymentMethods)
          .where(
            and(
              eq(paymentMethods.id, paymentMethodId),
              eq(paymentMethods.billingCustomerId, billingCustomerId),
              isNull(paymentMethods.detachedAt),
            ),
          );
        if (!card) throw new BillingError('invalid', 'No such card');
        if (isCardExpired(card, clock.now())) {
          throw new BillingError('invalid', 'This card has expired, so it cannot be the default.');
        }
        // Making a card the default charges nothing: open invoices have their own Pay button.
        await makeCardDefault(transaction, card);
      });
    },

    async removeCard(billingCustomerId, paymentMethodId) {
      await clock.refresh();
      await db.transaction(async (transaction) => {
        const [removed] = await transaction
          .update(paymentMethods)
          .set({ detachedAt: clock.now(), isDefault: false })
          .where(
            and(
              eq(paymentMethods.id, paymentMethodId),
              eq(paymentMethods.billingCustomerId, billingCustomerId),
              isNull(paymentMethods.detachedAt),
            ),
          )
          .returning();
        if (!removed) throw new BillingError('invalid', 'No such card');
        if (
          removed.isDefault ||
          !(
            await transaction
              .select()
              .from(paymentMethods)
              .where(
                and(
                  eq(paymentMethods.billingCustomerId, billingCustomerId),
                  eq(paymentMethods.isDefault, true),
                  isNull(paymentMethods.detachedAt),
                ),
              )
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

    async payInvoice(invoiceId, newCard) {
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
        const outcome = await chargeInvoice(transaction, invoice, now, card);
        if (!outcome.isPaid) return outcome.reason;
        await restoreIfSettled(transaction, invoice.subscriptionId, now);
        return null;
      });
      if (failure) throw new BillingError('card_declined', failure);
    },

    async completeCheckout(sessionId, card) {
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
        await deps.checkoutHooks?.beforeCharge(transaction, {
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
              ? await deps.checkoutHooks?.portalCustomerFor(transaction, session.customerEmail)
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
        const periodEnd = addInterval(now, price.price.interval);
        await transaction.insert(subscriptions).values({
          id: subscriptionId,
          billingCustomerId,
          simIccid,
          priceId: price.price.id,
          status: 'active',
          currentPeriodStart: now,
          currentPeriodEnd: periodEnd,
          createdAt: now,
          updatedAt: now,
        });
        const invoice = await issueInvoice(transaction, {
          billingCustomerId,
          subscriptionId,
          description: renewalDescription(
            price.product.name,
            price.price.unitAmount,
            price.price.currency,
            price.price.interval,
          ),
          total: price.price.unitAmount,
          currency: price.price.currency,
          periodStart: now,
          periodEnd,
          now,
          invoicing,
        });
        if (invoice.status === 'open') {
          const outcome = await chargeInvoice(transaction, invoice, now, savedCard);
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
          redirectUrl: `${session.returnUrl ?? deps.publicUrl}${separator}session_id=${session.id}`,
        };
      });
    },

    async refundCheckout(input) {
      await clock.refresh();
      const now = clock.now();
      await db.transaction(async (transaction) => {
        const subscription = await lockSubscription(transaction, input.subscriptionId);
        if (!subscription) throw new BillingError('invalid', 'No such subscription');
        if (subscription.status === 'canceled') return;
        await transaction
          .update(subscriptions)
          .set({ status: 'canceled', canceledAt: now, updatedAt: now })
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
    card: typeof paymentMethods.$inferSelect,
  ): Promise<AddCardResult> {
    let paidInvoices = 0;
    for (const invoice of open) {
      const outcome = await chargeInvoice(executor, invoice, clock.now(), card);
      if (!outcome.isPaid) return { paidInvoices, paymentFailure: outcome.reason };
      paidInvoices += 1;
      await restoreIfSettled(executor, invoice.subscriptionId, clock.now());
    }
    return { paidInvoices, paymentFailure: null };
  }

  /**
   * Rolls a subscription in good standing through every period that has ended by `now`,
   * invoicing and charging those not paused, each at its period start (or at `notBefore`, for a
   * renewal held back while the subscription was unpaid). A declined charge makes it past_due,
   * which stops the rolling: no further period is raised until that invoice is paid.
   */
  async function renewSubscription(
    transaction: Executor,
    subscriptionId: string,
    now: Date,
    notBefore?: Date,
  ) {
    let subscription = await lockSubscription(transaction, subscriptionId);
    let renewals = 0;
    while (
      subscription &&
      ['active', 'paused'].includes(subscription.status) &&
      subscription.currentPeriodEnd <= now
    ) {
      const price = await loadPrice(transaction, subscription.priceId);
      if (!price) break;
      const start = subscription.currentPeriodEnd;
      const end = addInterval(start, price.price.interval);
      const raisedAt = notBefore && notBefore > start ? notBefore : start;
      const startDay = isoDay(start);
      const isPaused =
        subscription.pauseStartsOn !== null &&
        subscription.pauseResumesOn !== null &&
        subscription.pauseStartsOn <= startDay &&
        startDay < subscription.pauseResumesOn;
      let pastDueSince = subscription.pastDueSince;
      let status = subscription.status;
      if (!isPaused) {
        const invoice: InvoiceRow = await issueInvoice(transaction, {
          billingCustomerId: subscription.billingCustomerId,
          subscriptionId,
          description: renewalDescription(
            price.product.name,
            price.price.unitAmount,
            price.price.currency,
            price.price.interval,
          ),
          total: price.price.unitAmount,
          currency: price.price.currency,
          periodStart: start,
          periodEnd: end,
          now: raisedAt,
          invoicing,
        });
        if (invoice.status === 'open') {
          const outcome = await chargeInvoice(transaction, invoice, raisedAt, undefined, {
            isAutomatic: true,
          });
          if (!outcome.isPaid) {
            status = 'past_due';
            pastDueSince = raisedAt;
            await scheduleRetry(transaction, invoice, subscription, raisedAt, outcome.reason);
          }
        }
      }
      [subscription] = await transaction
        .update(subscriptions)
        .set({
          currentPeriodStart: start,
          currentPeriodEnd: end,
          status,
          pastDueSince,
          updatedAt: raisedAt,
        })
        .where(eq(subscriptions.id, subscriptionId))
        .returning();
      renewals += 1;
    }
    return renewals;
  }

  /**
   * Renews a chunk of due subscriptions in one transaction (docs/decisions/075), in the cycle's
   * order: plain renewals written together, the others one at a time, each where it falls, so
   * the invoice numbers follow the same order as one renewal per transaction. A renewal that
   * fails rolls its chunk back; the chunk is then renewed one subscription per transaction, so
   * the others are not held back by it and the failure is raised as before.
   */
  async function renewChunk(subscriptionIds: string[], now: Date, raised: BillingEvent[]) {
    try {
      return await transact(async (transaction) => {
        const chunk = await readRenewalChunk(transaction, subscriptionIds);
        const supplier = invoicing.supplier ?? demoSupplier;
        let plain: PlainRenewal[] = [];
        let renewals = 0;
        for (const id of subscriptionIds) {
          const renewal = plainRenewal(chunk, id, now, supplier);
          if (renewal) {
            plain.push(renewal);
            continue;
          }
          await writeRenewals(transaction, plain, renewalDescriptionOf, chunk.secret, invoicing);
          renewals += plain.length;
          plain = [];
          renewals += await renewSubscription(transaction, id, now);
        }
        await writeRenewals(transaction, plain, renewalDescriptionOf, chunk.secret, invoicing);
        return renewals + plain.length;
      }, raised);
    } catch {
      let renewals = 0;
      for (const id of subscriptionIds) {
        renewals += await transact(
          (transaction) => renewSubscription(transaction, id, now),
          raised,
        );
      }
      return renewals;
    }
  }

  /**
   * After a failed automatic attempt at `at`: books the next retry of the policy (or none) and
   * tells the customer, with the page to pay on.
   */
  async function scheduleRetry(
    executor: Executor,
    invoice: InvoiceRow,
    subscription: SubscriptionRow,
    at: Date,
    reason: string,
  ) {
    const firstFailureAt = subscription.pastDueSince ?? at;
    const nextPaymentAttempt = nextRetryAt(firstFailureAt, at);
    const [updated] = await executor
      .update(invoices)
      .set({ nextPaymentAttempt })
      .where(eq(invoices.id, invoice.id))
      .returning();
    emit(executor, {
      type: 'invoice.payment_failed',
      invoiceId: invoice.id,
      billingCustomerId: invoice.billingCustomerId,
      subscriptionId: subscription.id,
      simIccid: subscription.simIccid,
      at,
      amountDue: invoice.amountDue - invoice.amountPaid,
      currency: invoice.currency,
      reason,
      attemptCount: updated?.attemptCount ?? invoice.attemptCount,
      nextPaymentAttempt,
      cancelAt: cancelAt(firstFailureAt),
      hostedInvoiceUrl: invoice.hostedInvoiceUrl,
    });
  }

  /** The scheduled retry of an unpaid renewal, made (and stamped) at the time it was due. */
  async function retryInvoice(transaction: Transaction, invoiceId: string, now: Date) {
    const [invoice] = await transaction
      .select()
      .from(invoices)
      .where(eq(invoices.id, invoiceId))
      .for('update');
    const dueAt = invoice?.nextPaymentAttempt;
    if (!invoice || invoice.status !== 'open' || !dueAt || dueAt > now) return;
    const subscription = invoice.subscriptionId
      ? await lockSubscription(transaction, invoice.subscriptionId)
      : undefined;
    const outcome = await chargeInvoice(transaction, invoice, dueAt, undefined, {
      isAutomatic: true,
    });
    if (outcome.isPaid) {
      await restoreIfSettled(transaction, invoice.subscriptionId, dueAt);
    } else if (subscription) {
      await scheduleRetry(transaction, invoice, subscription, dueAt, outcome.reason);
    } else {
      await transaction
        .update(invoices)
        .set({ nextPaymentAttempt: null })
        .where(eq(invoices.id, invoice.id));
    }
  }

  /**
   * Moves an unpaid subscription on at the times the policy names: overdue, then canceled, its
   * open invoices marked uncollectible (Stripe's "mark the invoice as uncollectible" setting), so
   * they can no longer be paid for a camera whose plan has ended.
   */
  async function applyDunning(transaction: Transaction, subscriptionId: string, now: Date) {
    const subscription = await lockSubscription(transaction, subscriptionId);
    if (!subscription?.pastDueSince || !['past_due', 'overdue'].includes(subscription.status))
      return;
    const canceledAt = cancelAt(subscription.pastDueSince);
    const becameOverdueAt = overdueAt(subscription.pastDueSince);
    if (canceledAt <= now) {
      await transaction
        .update(subscriptions)
        .set({ status: 'canceled', canceledAt, updatedAt: canceledAt })
        .where(eq(subscriptions.id, subscriptionId));
      await transaction
        .update(invoices)
        .set({ status: 'uncollectible', nextPaymentAttempt: null })
        .where(and(eq(invoices.subscriptionId, subscriptionId), eq(invoices.status, 'open')));
      emit(transaction, {
        type: 'subscription.canceled',
        subscriptionId,
        simIccid: subscription.simIccid,
        at: canceledAt,
      });
    } else if (subscription.status === 'past_due' && becameOverdueAt <= now) {
      await transaction
        .update(subscriptions)
        .set({ status: 'overdue', updatedAt: becameOverdueAt })
        .where(eq(subscriptions.id, subscriptionId));
    }
  }

  return engine;
}

function renewalDescriptionOf({
  price,
  product,
}: {
  price: { unitAmount: number; currency: string; interval: string };
  product: { name: string };
}) {
  return renewalDescription(product.name, price.unitAmount, price.currency, price.interval);
}

export function renewalDescription(
  productName: string,
  unitAmount: number,
  currency: string,
  interval: string,
): string {
  return `1 × ${productName} (at ${formatMoney(unitAmount, currency)} / ${interval})`;
}

/** A subscription row read back from stored JSON: its timestamps as dates again. */
function reviveSubscription(row: SubscriptionRow): SubscriptionRow {
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    ...row,
    currentPeriodStart: date(row.currentPeriodStart)!,
    currentPeriodEnd: date(row.currentPeriodEnd)!,
    pastDueSince: date(row.pastDueSince),
    canceledAt: date(row.canceledAt),
    createdAt: date(row.createdAt)!,
    updatedAt: date(row.updatedAt)!,
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
