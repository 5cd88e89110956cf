/**
 * The billing port. Customers pay per camera: one billing customer (the spec's
 * STRIPE_CUSTOMER_ID) holds one camera's subscription, cards and invoices.
 *
 * Two implementations: the local billing engine (default; its ledger lives in our tables and it
 * serves its own hosted pages) and the Stripe adapter. Either way our tables are the read model:
 * when a write method returns, `billing_customers`, `subscriptions`, `invoices`,
 * `payment_methods` and `payments` already show its effect, and pages read only those tables.
 *
 * Every write either happens completely or not at all: a declined card, a provider error or a
 * time-out leaves the subscription as it was (it throws a BillingError and changes nothing).
 * Writes take an idempotency key; the same key applied twice has the effect of one call.
 */
import type { Executor } from '@farmcam/db';
import type { BillingDetails, billingCustomers, subscriptions } from '@farmcam/db/schema';

export type { BillingDetails };

export type BillingCustomerRow = typeof billingCustomers.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;

/** Why a billing call failed, in words safe to show a customer. */
export class BillingError extends Error {
  constructor(
    /**
     * `card_declined`: the payment was refused (nothing changed). `invalid`: the request makes no
     * sense for this account (e.g. already on that plan). `unavailable`: the provider failed or
     * did not answer in time; nothing was changed.
     */
    readonly kind: 'card_declined' | 'invalid' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'BillingError';
  }
}

export interface InvoiceLine {
  description: string;
  amount: number;
}

/** What a plan change charges now (docs/requirements.md#states: immediately, pro-rata). */
export interface PlanChangeQuote {
  /** Charged now; 0 when the change leaves a credit. */
  amountDue: number;
  /** Credit carried to the next invoice (a downgrade), minor units. */
  credit: number;
  currency: string;
  lines: InvoiceLine[];
}

/**
 * The next invoice a subscription will raise, as the provider previews it now (Stripe's "create
 * preview invoice" for a subscription): nothing is created. Minor units.
 */
export interface UpcomingInvoice {
  subscriptionId: string;
  /** When it will be raised: the end of the current period (the renewal). */
  raisedAt: Date;
  /** The invoice's total, lines waiting for it included. */
  total: number;
  /** What will be charged: the total less the customer's credit balance, never below 0. */
  amountDue: number;
  currency: string;
  lines: InvoiceLine[];
}

/**
 * One open invoice paid now with its own account's card (the billing page's Pay all, decision
 * 128). `already_paid`: it was paid before (another tab, a retry): nothing was charged.
 */
export type InvoicePaymentOutcome =
  { outcome: 'paid' | 'already_paid' } | { outcome: 'declined'; reason: string };

/**
 * Where a card is typed for several billing accounts (decision 129): the local engine takes it
 * once for them all; Stripe cannot attach one card to two customers, so it is one setup page per
 * account, in order.
 */
export interface CardSetupStep {
  billingCustomerIds: string[];
  url: string;
}

export interface PlanChangeResult {
  subscription: SubscriptionRow;
  invoice: { id: string; amountDue: number; currency: string; status: string } | null;
}

/**
 * Things that happen inside the provider on its own schedule (dunning, a payment that settles a
 * lapsed subscription, a checkout paid on a hosted page). The app reacts to them (the SIM, the
 * order) through a handler it registers; the Stripe adapter raises the same events from webhooks.
 * Handlers run after the change is committed; what they do must also be reconciled by a job,
 * since a handler can fail after the payment is already taken.
 */
export type BillingEvent =
  /** `at`: when it happened in billing time (a replayed day of the test clock); default now. */
  | { type: 'subscription.canceled'; subscriptionId: string; simIccid: string; at?: Date }
  | { type: 'subscription.recovered'; subscriptionId: string; simIccid: string; at?: Date }
  | {
      /**
       * A renewal's payment attempt failed (local engine only: Stripe e-mails its customers
       * itself). The app tells the customer, with the hosted invoice page to pay it.
       */
      type: 'invoice.payment_failed';
      invoiceId: string;
      billingCustomerId: string;
      subscriptionId: string;
      simIccid: string;
      at: Date;
      amountDue: number;
      currency: string;
      reason: string;
      attemptCount: number;
      nextPaymentAttempt: Date | null;
      /** When the subscription is canceled if the invoice is still unpaid. */
      cancelAt: Date;
      /** Relative to the portal's address, like the invoice row's. */
      hostedInvoiceUrl: string | null;
    }
  | {
      type: 'checkout.completed';
      sessionId: string;
      billingCustomerId: string;
      subscriptionId: string;
      /** What the checkout was for, e.g. the ICCID being renewed or activated. */
      clientReferenceId: string | null;
      metadata: Record<string, string>;
    };

export type BillingEventHandler = (event: BillingEvent) => Promise<void>;

export interface CheckoutRequest {
  /** The camera's billing customer when it has one (renewal); activation creates one. */
  billingCustomerId: string | null;
  /**
   * Portal customer the new billing customer belongs to (when one must be created). Null for a
   * first activation by a new e-mail: the account is made when the checkout is paid, through
   * `CheckoutHooks.portalCustomerFor`.
   */
  portalCustomerId: string | null;
  email: string;
  priceId: string;
  clientReferenceId: string;
  successUrl: string;
  cancelUrl: string;
  metadata: Record<string, string>;
  idempotencyKey: string;
}

/**
 * The app's part in a checkout that becomes a subscription (activation of a stock SIM), given to
 * the provider when it is created. The provider calls them inside the transaction that records the
 * payment, so what they write commits or rolls back with it.
 */
export interface CheckoutHooks {
  /**
   * Before anything is charged (local engine): throws a BillingError('invalid', …) to refuse a
   * checkout that can no longer be fulfilled, e.g. a SIM another buyer has just taken.
   */
  beforeCharge(
    executor: Executor,
    checkout: { clientReferenceId: string | null; metadata: Record<string, string> },
  ): Promise<void>;
  /** The portal customer a paid checkout's new billing customer belongs to, made if the e-mail is new. */
  portalCustomerFor(executor: Executor, email: string): Promise<string>;
}

export interface BillingProvider {
  readonly kind: 'local' | 'stripe';

  /** The provider's clock: the local engine's can be advanced (a test clock), Stripe's is now. */
  now(): Date;

  /** Creates (and mirrors) a billing customer for one camera of a portal customer. */
  createCustomer(input: {
    portalCustomerId: string;
    email: string;
    currency: string;
    idempotencyKey: string;
  }): Promise<BillingCustomerRow>;

  /** What switching the subscription to `newPriceId` now would charge. Reads nothing back. */
  previewPlanChange(input: {
    subscriptionId: string;
    newPriceId: string;
  }): Promise<PlanChangeQuote>;

  /**
   * The subscription's next invoice (its renewal with any lines waiting for it), previewed now;
   * null when it will raise none: ended, or its next period falls in a pause. Reads nothing back.
   */
  previewUpcomingInvoice(input: { subscriptionId: string }): Promise<UpcomingInvoice | null>;

  /**
   * Switches the plan now, invoicing the pro-rata difference at once and charging the default
   * card. A declined card rejects the whole change.
   */
  changePlan(input: {
    subscriptionId: string;
    newPriceId: string;
    idempotencyKey: string;
  }): Promise<PlanChangeResult>;

  /** Schedules (or moves) a pause: no invoices from `startsOn` until `resumesOn` (YYYY-MM-DD). */
  schedulePause(input: {
    subscriptionId: string;
    startsOn: string;
    resumesOn: string;
    idempotencyKey: string;
  }): Promise<SubscriptionRow>;

  /** Removes a scheduled or running pause; billing carries on (or restarts) as normal. */
  cancelPause(input: { subscriptionId: string; idempotencyKey: string }): Promise<SubscriptionRow>;

  /**
   * The hosted billing portal (cards, open invoices) for one billing customer. `pay` (an overdue
   * camera's Pay now) opens it to pay what is due: the local engine's portal ticks "pay now with
   * this card"; Stripe's portal cannot, so its one unpaid invoice's hosted page is opened instead
   * (decision 113).
   */
  createPortalSession(input: {
    billingCustomerId: string;
    returnUrl: string;
    purpose?: 'manage' | 'pay';
  }): Promise<{
    url: string;
  }>;

  /** A short-lived secret that lets a hosted pricing table act for this customer. */
  createCustomerSecret(input: { billingCustomerId: string }): Promise<{ secret: string }>;

  /** A hosted checkout for a new subscription; completion raises `checkout.completed`. */
  createCheckoutSession(input: CheckoutRequest): Promise<{ id: string; url: string }>;

  /**
   * Gives the account the farm's billing address and VAT number (Stripe: the customer's name and
   * address and one `gb_vat` tax id); invoices issued from then on carry them (decision 127).
   */
  updateCustomerDetails(input: {
    billingCustomerId: string;
    details: BillingDetails;
    idempotencyKey: string;
  }): Promise<void>;

  /**
   * Pays one open invoice now with the account's card (decision 128). A declined card is an
   * outcome, not an error: the other invoices of a Pay all go on. The same key twice charges once.
   */
  payInvoiceNow(input: {
    invoiceId: string;
    idempotencyKey: string;
  }): Promise<InvoicePaymentOutcome>;

  /**
   * The pages where one card becomes the default card of each of these accounts (decision 129).
   * Each step returns to `returnUrl`.
   */
  startCardSetup(input: {
    billingCustomerIds: string[];
    returnUrl: string;
    idempotencyKey: string;
  }): Promise<{ steps: CardSetupStep[] }>;

  /** Registers the app's reaction to provider-side events. */
  onEvent(handler: BillingEventHandler): void;

  /**
   * Undoes a paid checkout that cannot be fulfilled (its SIM went to another buyer first): cancels
   * the subscription at once and refunds what it was charged. Repeating it changes nothing.
   */
  refundCheckout(input: { subscriptionId: string; reason: string }): Promise<void>;
}
