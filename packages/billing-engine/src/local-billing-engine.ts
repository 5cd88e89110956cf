/**
 * The local billing engine: the default billing provider. Products, prices, customers,
 * subscriptions, invoices, cards and payments live in our own tables (so the read model is the
 * ledger itself), a billing cycle renews subscriptions at each period end and charges the default
 * card, and it serves its own hosted pages (billing portal, hosted invoice, invoice PDF, checkout;
 * see hosted-pages.routes.ts). Its clock is a test clock that can be advanced to try renewals.
 *
 * Dunning (docs/decisions/025): a declined renewal makes the subscription past_due and is retried,
 * each failure raising `invoice.payment_failed` (the app e-mails the customer); it becomes overdue
 * and then canceled, which raises `subscription.canceled` (the app terminates the SIM later), on
 * the days of @farmcam/billing/dunning-policy. No renewal is raised while it is unpaid; paying
 * brings it back to active at once.
 *
 * This file puts the engine together from its parts (decision 086), each over the kernel's
 * transactions, events, idempotency and clock (engine-kernel.ts): customers and subscriptions
 * (engine-subscriptions.ts), the billing cycle with its dunning (engine-billing-cycle.ts), cards
 * and invoices (engine-cards-and-invoices.ts) and checkout (engine-checkout.ts).
 *
 * The package's entry (index.ts) is all the portal may import of it (decision 171).
 */
import type { Database } from '@farmcam/db';
import type { BillingEvent, BillingProvider, CheckoutHooks } from '@farmcam/billing';
import { createEngineBillingCycle } from './engine-billing-cycle.ts';
import {
  createEngineCardsAndInvoices,
  type AddCardResult,
  type CardInput,
} from './engine-cards-and-invoices.ts';
import { createEngineCheckout } from './engine-checkout.ts';
import type { BillingEventDeliveryFailure } from './engine-events.ts';
import { createEngineKernel, type EngineSettings } from './engine-kernel.ts';
import type { EngineMetrics } from './engine-metrics.ts';
import { createEngineSubscriptions } from './engine-subscriptions.ts';
import { defaultInvoicing, type InvoicingSettings } from './ledger.ts';
import type { TestClock } from './test-clock.ts';

export {
  amountDueChangedMessage,
  listInvoicesForPortal,
  type AddCardResult,
  type CardInput,
} from './engine-cards-and-invoices.ts';
export { renewalDescription } from './engine-billing-cycle.ts';

export interface LocalBillingEngine extends BillingProvider {
  readonly kind: 'local';
  readonly clock: TestClock;
  /** The supplier's invoice number prefix and VAT rate: the checkout says prices include VAT. */
  readonly invoicing: InvoicingSettings;
  /**
   * Does what is due by `at` (default now): retries of unpaid renewals, dunning steps, renewals;
   * each stamped with the time it was due (docs/decisions/025). One call handles at most a day:
   * a longer gap is replayed day by day (the portal's BillingCycle.runCycle), so each step has its turn.
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
  /** The card-setup page's card made the default of each of its accounts (decision 129). */
  completeCardSetup(sessionId: string, card: CardInput): Promise<{ redirectUrl: string }>;
  /** Pays a checkout with a card: creates the subscription and raises `checkout.completed`. */
  completeCheckout(sessionId: string, card: CardInput): Promise<{ redirectUrl: string }>;
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
  /** What it counts for the app's metrics (payments, event deliveries); nothing when not given. */
  metrics?: EngineMetrics;
  /**
   * Renewals per transaction in the billing cycle (default 200, docs/decisions/075); 0 renews
   * each subscription alone in its own transaction, as before batching (the batch test compares
   * the two ledgers).
   */
  renewalChunkSize?: number;
}

export function createLocalBillingEngine(deps: LocalBillingEngineDeps): LocalBillingEngine {
  const kernel = createEngineKernel(deps);
  const settings: EngineSettings = {
    invoicing: deps.invoicing ?? defaultInvoicing,
    publicUrl: deps.publicUrl,
  };
  const cycle = createEngineBillingCycle(kernel, settings, {
    renewalChunkSize: deps.renewalChunkSize,
  });
  const cardsAndInvoices = createEngineCardsAndInvoices(kernel, settings, cycle);
  const checkout = createEngineCheckout(kernel, settings, cardsAndInvoices, deps.checkoutHooks);
  const subscriptionOperations = createEngineSubscriptions(kernel, settings);
  return {
    kind: 'local',
    clock: deps.clock,
    invoicing: settings.invoicing,
    now: () => deps.clock.now(),
    onEvent: kernel.onEvent,
    deliverDueEvents: kernel.deliverDueEvents,
    ...subscriptionOperations,
    runBillingCycle: cycle.runBillingCycle,
    createPortalSession: cardsAndInvoices.createPortalSession,
    createCustomerSecret: cardsAndInvoices.createCustomerSecret,
    addCard: cardsAndInvoices.addCard,
    setDefaultCard: cardsAndInvoices.setDefaultCard,
    removeCard: cardsAndInvoices.removeCard,
    payInvoice: cardsAndInvoices.payInvoice,
    payInvoiceNow: cardsAndInvoices.payInvoiceNow,
    updateCustomerDetails: cardsAndInvoices.updateCustomerDetails,
    startCardSetup: cardsAndInvoices.startCardSetup,
    completeCardSetup: cardsAndInvoices.completeCardSetup,
    ...checkout,
  };
}
