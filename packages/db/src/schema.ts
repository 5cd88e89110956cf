/**
 * The whole domain model. Provider state (subscriptions, invoices, payment methods, SIM status,
 * usage) is mirrored here: these tables are the read model every page reads from (DESIGN §3).
 * Money is integer minor units with an ISO currency. Timestamps are timestamptz.
 */
import { planTiers, type PlanTier } from '@farmcam/contract/rules';
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

// ── People ────────────────────────────────────────────────────────────────────────────────

/** A portal customer: the person who signs in by e-mail and owns cameras. */
export const customers = pgTable('customers', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull().unique(),
  name: text('name'),
  /**
   * The farm's billing address and VAT number (decision 127): what every camera's billing
   * account is given, and so what invoices issued from then on carry. Null until set.
   */
  billingDetails: jsonb('billing_details').$type<BillingDetails>(),
  createdAt: createdAt(),
});

/** A billing address and VAT number as an invoice carries them (decision 127). */
export interface BillingDetails {
  /** The name on the invoice: the farm or business. */
  name: string;
  line1: string;
  line2: string | null;
  town: string;
  postcode: string;
  /** A UK VAT number as `GB123456789`; null when the farm is not VAT registered. */
  vatNumber: string | null;
}

export const staffRoles = ['team', 'admin'] as const;
export type StaffRole = (typeof staffRoles)[number];

/**
 * Staff accounts, made by `npm run staff -- add` (docs/decisions/062). The password is null until
 * the person sets one through their one-time link. Failed sign-ins are throttled per e-mail and
 * IP in `rate_limits`, never by locking the account.
 */
export const staff = pgTable('staff', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull().unique(),
  role: text('role', { enum: staffRoles }).notNull(),
  passwordHash: text('password_hash'),
  createdAt: createdAt(),
});

/** One-time set-password links for staff (24 h). Only the SHA-256 of the token is stored. */
export const staffPasswordTokens = pgTable(
  'staff_password_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    staffId: uuid('staff_id')
      .notNull()
      .references(() => staff.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    voidedAt: timestamp('voided_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [index('staff_password_tokens_staff_idx').on(table.staffId)],
);

/** One-time login links. Only the SHA-256 of the token is stored. */
export const loginTokens = pgTable(
  'login_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    customerId: uuid('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    /** A team member's link: it signs them in to `customerId`'s account as that member. */
    memberId: uuid('member_id').references(() => accountMembers.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    voidedAt: timestamp('voided_at', { withTimezone: true }),
    requestedIp: text('requested_ip'),
    createdAt: createdAt(),
  },
  (table) => [index('login_tokens_customer_idx').on(table.customerId)],
);

// ── Farm teams (docs/decisions/091) ───────────────────────────────────────────────────────

/**
 * What a member may do on the account they were invited to. The account's own customer is the
 * Owner (not a row here). The rules per role live in the server's modules/auth/access.ts.
 */
export const memberRoles = ['manager', 'viewer'] as const;
export type MemberRole = (typeof memberRoles)[number];

/**
 * A person the account owner invited. They sign in with their own e-mail and reach the owner's
 * account (`customerId`) as far as their role and cameras allow, until `accessUntil` (if set).
 * Removing sets `removedAt` and revokes their sessions; the row stays for the activity log.
 */
export const accountMembers = pgTable(
  'account_members',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    customerId: uuid('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: memberRoles }).notNull(),
    /** True: every camera of the account, now and later. False: only account_member_cameras. */
    allCameras: boolean('all_cameras').notNull().default(true),
    accessUntil: timestamp('access_until', { withTimezone: true }),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    removedAt: timestamp('removed_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('account_members_current_email_idx')
      .on(table.customerId, table.email)
      .where(sql`removed_at is null`),
    index('account_members_email_idx').on(table.email),
  ],
);

/** The cameras (SIMs) a member without `allCameras` may reach. */
export const accountMemberCameras = pgTable(
  'account_member_cameras',
  {
    memberId: uuid('member_id')
      .notNull()
      .references(() => accountMembers.id, { onDelete: 'cascade' }),
    iccid: text('iccid')
      .notNull()
      .references(() => sims.iccid, { onDelete: 'cascade' }),
  },
  (table) => [primaryKey({ columns: [table.memberId, table.iccid] })],
);

/** E-mailed invitations (7 days). Only the SHA-256 of the token is stored. */
export const memberInvitations = pgTable(
  'member_invitations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    memberId: uuid('member_id')
      .notNull()
      .references(() => accountMembers.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    voidedAt: timestamp('voided_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [index('member_invitations_member_idx').on(table.memberId)],
);

export const sessionRoles = ['customer', 'team', 'admin'] as const;
export type SessionRole = (typeof sessionRoles)[number];

/**
 * Bearer sessions (hashed). A staff session has `staffId`; when staff open a customer's portal a
 * separate, shorter session is created with both `staffId` and `customerId` (the scope) and
 * `parentSessionId` pointing at the staff session.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull().unique(),
    role: text('role', { enum: sessionRoles }).notNull(),
    customerId: uuid('customer_id').references(() => customers.id, { onDelete: 'cascade' }),
    /** Set when a team member signed in: `customerId` is then the account they were invited to. */
    memberId: uuid('member_id').references(() => accountMembers.id, { onDelete: 'cascade' }),
    staffId: uuid('staff_id').references(() => staff.id, { onDelete: 'cascade' }),
    parentSessionId: uuid('parent_session_id'),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    idleTimeoutSeconds: integer('idle_timeout_seconds').notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (table) => [
    index('sessions_customer_idx').on(table.customerId),
    index('sessions_member_idx').on(table.memberId),
    index('sessions_parent_idx').on(table.parentSessionId),
  ],
);

// ── Catalogue ─────────────────────────────────────────────────────────────────────────────

// The tiers are the shared rules' list (decision 170).
export { planTiers, type PlanTier };

/** A billing product (Light/Standard/Heavy Streaming). Ids are the provider's ids. */
export const products = pgTable('products', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  tier: text('tier', { enum: planTiers }).notNull(),
  /** Monthly data allowance in GB (used for usage share, forecasts and alerts). */
  dataAllowanceGb: integer('data_allowance_gb').notNull(),
  /** Provider metadata shown on plan cards, e.g. { Hours: '100', Provider: 'multi-network' }. */
  metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
  isActive: boolean('is_active').notNull().default(true),
  createdAt: createdAt(),
});

export const billingIntervals = ['month', 'year'] as const;
export type BillingInterval = (typeof billingIntervals)[number];
export const regions = ['uk', 'ie'] as const;
export type Region = (typeof regions)[number];

export const prices = pgTable(
  'prices',
  {
    id: text('id').primaryKey(),
    productId: text('product_id')
      .notNull()
      .references(() => products.id),
    unitAmount: integer('unit_amount').notNull(),
    currency: text('currency').notNull(),
    interval: text('interval', { enum: billingIntervals }).notNull(),
    region: text('region', { enum: regions }).notNull(),
    /** Solar SIMs are sold from their own pricing table. */
    isSolar: boolean('is_solar').notNull().default(false),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
  },
  (table) => [index('prices_product_idx').on(table.productId)],
);

// ── Billing accounts (one per camera, DESIGN §3) ─────────────────────────────────────────────

export const billingProviders = ['local', 'stripe'] as const;

/** The provider-side customer (the spec's STRIPE_CUSTOMER_ID). A portal customer owns many. */
export const billingCustomers = pgTable(
  'billing_customers',
  {
    id: text('id').primaryKey(),
    customerId: uuid('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: billingProviders }).notNull(),
    email: text('email').notNull(),
    currency: text('currency').notNull().default('gbp'),
    /** Credit (negative) or debt (positive) in minor units, applied to the next invoice (as Stripe's). */
    balance: integer('balance').notNull().default(0),
    /** The address and VAT number the provider holds for this account (decision 127). */
    details: jsonb('details').$type<BillingDetails>(),
    createdAt: createdAt(),
  },
  (table) => [index('billing_customers_customer_idx').on(table.customerId)],
);

// ── SIMs and cameras ──────────────────────────────────────────────────────────────────────

export const simStates = ['stock', 'active', 'paused', 'terminated'] as const;
export type SimState = (typeof simStates)[number];
export const simKinds = ['standard', 'solar'] as const;

/**
 * A SIM, and the camera it sits in (one SIM each; the camera id is the ICCID). Stock SIMs have
 * no customer. `isBarred` mirrors the platform's "disabled by the provider" flag.
 */
export const sims = pgTable(
  'sims',
  {
    iccid: text('iccid').primaryKey(),
    activationCode: text('activation_code').unique(),
    kind: text('kind', { enum: simKinds }).notNull().default('standard'),
    region: text('region', { enum: regions }).notNull().default('uk'),
    state: text('state', { enum: simStates }).notNull().default('stock'),
    isBarred: boolean('is_barred').notNull().default(false),
    customerId: uuid('customer_id').references(() => customers.id),
    billingCustomerId: text('billing_customer_id').references(() => billingCustomers.id),
    nickname: text('nickname'),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    terminatedAt: timestamp('terminated_at', { withTimezone: true }),
    /**
     * Local SIM platform only: the camera has sent no data and its router no report since then
     * (power or signal lost), so silence alerts can be tried without a real camera. Null: live.
     */
    localSilentSince: timestamp('local_silent_since', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('sims_customer_idx').on(table.customerId),
    index('sims_billing_customer_idx').on(table.billingCustomerId),
  ],
);

export const subscriptionStatuses = [
  'incomplete',
  'active',
  'past_due',
  'overdue',
  'paused',
  'canceled',
] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

/** Why a subscription was canceled: Stripe's `cancellation_details.reason`. */
export const cancellationReasons = [
  'cancellation_requested',
  'payment_failed',
  'payment_disputed',
] as const;
export type CancellationReason = (typeof cancellationReasons)[number];

/**
 * A subscription of one billing customer for one SIM. Pause state: a scheduled pause has
 * `pauseStartsOn` in the future; while paused `status` is 'paused' until `pauseResumesOn`.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    billingCustomerId: text('billing_customer_id')
      .notNull()
      .references(() => billingCustomers.id),
    simIccid: text('sim_iccid')
      .notNull()
      .references(() => sims.iccid),
    priceId: text('price_id')
      .notNull()
      .references(() => prices.id),
    status: text('status', { enum: subscriptionStatuses }).notNull(),
    currentPeriodStart: timestamp('current_period_start', { withTimezone: true }).notNull(),
    currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }).notNull(),
    /**
     * Stripe's `billing_cycle_anchor`: the day of the month (and for annual plans the month) and
     * time of day every period ends on, counted from here rather than from the last renewal
     * (docs/decisions/108). Set at the start, moved only by a change to another interval.
     */
    billingCycleAnchor: timestamp('billing_cycle_anchor', { withTimezone: true }).notNull(),
    pauseStartsOn: date('pause_starts_on'),
    pauseResumesOn: date('pause_resumes_on'),
    /** When the first unpaid renewal failed; drives past_due → overdue → canceled. */
    pastDueSince: timestamp('past_due_since', { withTimezone: true }),
    canceledAt: timestamp('canceled_at', { withTimezone: true }),
    /**
     * Why it was canceled (Stripe's `cancellation_details.reason`): `payment_failed` at the end of
     * dunning, which e-mails the customer (docs/decisions/108); null while live.
     */
    cancellationReason: text('cancellation_reason', { enum: cancellationReasons }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('subscriptions_billing_customer_idx').on(table.billingCustomerId),
    index('subscriptions_sim_idx').on(table.simIccid),
  ],
);

export const paymentMethods = pgTable(
  'payment_methods',
  {
    id: text('id').primaryKey(),
    billingCustomerId: text('billing_customer_id')
      .notNull()
      .references(() => billingCustomers.id),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expMonth: smallint('exp_month').notNull(),
    expYear: smallint('exp_year').notNull(),
    /**
     * Which card this is (number and expiry), as a keyed hash, never the number itself: the same
     * card cannot be saved twice by one customer (docs/decisions/027). Null on older rows.
     */
    fingerprint: text('fingerprint'),
    isDefault: boolean('is_default').notNull().default(false),
    detachedAt: timestamp('detached_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    index('payment_methods_billing_customer_idx').on(table.billingCustomerId),
    uniqueIndex('payment_methods_fingerprint_idx')
      .on(table.billingCustomerId, table.fingerprint)
      .where(sql`${table.detachedAt} is null`),
  ],
);

export const invoiceStatuses = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;

/** Who an invoice or credit note is from, to, and for, as it was issued (docs/decisions/026). */
export interface DocumentParties {
  supplier: { name: string; addressLines: string[]; vatNumber: string };
  customer: {
    name: string | null;
    email: string | null;
    /** The billing address and VAT number when the farm had given them (decision 127). */
    addressLines?: string[];
    vatNumber?: string | null;
  };
  camera: { nickname: string | null; iccid: string } | null;
}

/**
 * An issued invoice's document: its parties, period, lines and totals (minor units, dates as ISO
 * strings). Status and payments are not in it: they change as the invoice is paid.
 */
export interface InvoiceSnapshot extends DocumentParties {
  currency: string;
  periodStart: string | null;
  periodEnd: string | null;
  lines: {
    description: string;
    amount: number;
    periodStart: string | null;
    periodEnd: string | null;
  }[];
  subtotal: number;
  tax: number;
  total: number;
  taxRateBasisPoints: number;
  startingBalance: number;
  endingBalance: number;
  amountDue: number;
}

export const invoices = pgTable(
  'invoices',
  {
    id: text('id').primaryKey(),
    billingCustomerId: text('billing_customer_id')
      .notNull()
      .references(() => billingCustomers.id),
    subscriptionId: text('subscription_id').references(() => subscriptions.id),
    number: text('number').notNull(),
    status: text('status', { enum: invoiceStatuses }).notNull(),
    amountDue: integer('amount_due').notNull(),
    amountPaid: integer('amount_paid').notNull().default(0),
    currency: text('currency').notNull(),
    description: text('description').notNull(),
    periodStart: timestamp('period_start', { withTimezone: true }),
    periodEnd: timestamp('period_end', { withTimezone: true }),
    hostedInvoiceUrl: text('hosted_invoice_url'),
    invoicePdfUrl: text('invoice_pdf_url'),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    /**
     * Stripe's dunning fields: payment attempts by the retry schedule (a customer's own attempt
     * counts only as the first), and when the next automatic retry is due (null: none).
     */
    attemptCount: integer('attempt_count').notNull().default(0),
    nextPaymentAttempt: timestamp('next_payment_attempt', { withTimezone: true }),
    /**
     * Totals as Stripe keeps them (docs/decisions/026): `subtotal` is the sum of the lines and
     * `total` what the supply costs, VAT included (prices are VAT-inclusive); `tax` is the VAT
     * within it. `amountDue` = `total` + `startingBalance` − `endingBalance`, never below 0.
     */
    subtotal: integer('subtotal').notNull().default(0),
    tax: integer('tax').notNull().default(0),
    total: integer('total').notNull().default(0),
    /** VAT rate applied, in basis points (2000 = 20%). */
    taxRateBasisPoints: integer('tax_rate_basis_points').notNull().default(0),
    /** The customer's balance before and after this invoice (negative: credit). */
    startingBalance: integer('starting_balance').notNull().default(0),
    endingBalance: integer('ending_balance').notNull().default(0),
    /**
     * What the issued document shows, fixed when the invoice is finalised (docs/decisions/026):
     * the PDF and hosted page render from it, so renaming the camera or changing SUPPLIER_*
     * later leaves the invoice as issued. Null only for invoices made before it existed (filled
     * on first read) and for the Stripe adapter's mirror (Stripe keeps its own documents).
     */
    snapshot: jsonb('snapshot').$type<InvoiceSnapshot>(),
    createdAt: createdAt(),
  },
  (table) => [
    index('invoices_billing_customer_idx').on(table.billingCustomerId, table.createdAt),
    uniqueIndex('invoices_number_idx').on(table.number),
    // The billing cycle's retries: open invoices whose next attempt is due.
    index('invoices_next_attempt_idx')
      .on(table.nextPaymentAttempt)
      .where(sql`${table.status} = 'open'`),
    // An overdue camera's unpaid invoices on the dashboard (decision 113): a probe finds only
    // the open ones, not a year of paid ones to filter out.
    index('invoices_open_customer_idx')
      .on(table.billingCustomerId)
      .where(sql`${table.status} = 'open'`),
  ],
);

/**
 * An invoice's lines, and a customer's pending lines (`invoiceId` null) that the next invoice
 * takes up, as Stripe's invoice items: a downgrade's unused time waits here (docs/decisions/026).
 * Amounts are VAT-inclusive minor units; credits are negative.
 */
export const invoiceLines = pgTable(
  'invoice_lines',
  {
    id: text('id').primaryKey(),
    billingCustomerId: text('billing_customer_id')
      .notNull()
      .references(() => billingCustomers.id),
    subscriptionId: text('subscription_id').references(() => subscriptions.id),
    invoiceId: text('invoice_id').references(() => invoices.id),
    description: text('description').notNull(),
    amount: integer('amount').notNull(),
    periodStart: timestamp('period_start', { withTimezone: true }),
    periodEnd: timestamp('period_end', { withTimezone: true }),
    /** Order on the invoice. */
    position: integer('position').notNull().default(0),
    createdAt: createdAt(),
  },
  (table) => [
    index('invoice_lines_invoice_idx').on(table.invoiceId, table.position),
    index('invoice_lines_pending_idx').on(table.billingCustomerId, table.invoiceId),
  ],
);

/**
 * One gapless number sequence per prefix (per supplier): a row updated under lock in the
 * transaction that finalises the invoice, so a rolled-back invoice gives its number back
 * (a PostgreSQL sequence would leave a gap).
 */
export const invoiceNumberSequences = pgTable('invoice_number_sequences', {
  prefix: text('prefix').primaryKey(),
  lastNumber: integer('last_number').notNull(),
});

/**
 * A credit note: money given back against a finalised invoice (a refund), its own document,
 * numbered from the invoice as Stripe numbers them (FC-000012-CN-01).
 */
export const creditNotes = pgTable(
  'credit_notes',
  {
    id: text('id').primaryKey(),
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id),
    number: text('number').notNull().unique(),
    /** VAT-inclusive total given back, minor units (positive). */
    total: integer('total').notNull(),
    tax: integer('tax').notNull(),
    currency: text('currency').notNull(),
    reason: text('reason').notNull(),
    lines: jsonb('lines').$type<{ description: string; amount: number }[]>().notNull(),
    /** Given back to the card the invoice was paid with. */
    refundAmount: integer('refund_amount').notNull(),
    /**
     * Given back to the customer's credit balance: the part of the invoice the balance paid
     * (Stripe's `credit_amount`), taken off the next invoice (docs/decisions/108).
     */
    creditAmount: integer('credit_amount').notNull().default(0),
    /** Supplier, customer and camera as the credit note was issued (see `invoices.snapshot`). */
    snapshot: jsonb('snapshot').$type<DocumentParties>(),
    createdAt: createdAt(),
  },
  (table) => [index('credit_notes_invoice_idx').on(table.invoiceId)],
);

export const payments = pgTable('payments', {
  id: text('id').primaryKey(),
  invoiceId: text('invoice_id')
    .notNull()
    .references(() => invoices.id),
  paymentMethodId: text('payment_method_id').references(() => paymentMethods.id),
  amount: integer('amount').notNull(),
  currency: text('currency').notNull(),
  status: text('status', { enum: ['succeeded', 'failed', 'refunded'] }).notNull(),
  failureReason: text('failure_reason'),
  createdAt: createdAt(),
});

export const billingSessionKinds = [
  'portal',
  'checkout',
  'customer_session',
  'card_setup',
] as const;
export type BillingSessionKind = (typeof billingSessionKinds)[number];

/**
 * The local billing engine's hosted sessions: billing portal, checkout and customer sessions
 * (Stripe keeps these itself). The id is the unguessable capability in the hosted page's URL.
 */
export const billingSessions = pgTable(
  'billing_sessions',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: billingSessionKinds }).notNull(),
    billingCustomerId: text('billing_customer_id').references(() => billingCustomers.id),
    customerEmail: text('customer_email'),
    priceId: text('price_id').references(() => prices.id),
    /** What the order is for, e.g. the ICCID being activated or renewed. */
    clientReferenceId: text('client_reference_id'),
    status: text('status', { enum: ['open', 'complete', 'expired'] })
      .notNull()
      .default('open'),
    returnUrl: text('return_url'),
    cancelUrl: text('cancel_url'),
    subscriptionId: text('subscription_id'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [index('billing_sessions_customer_idx').on(table.billingCustomerId)],
);

// ── Usage and router status (mirrored from the connectivity platform) ─────────────────────────

export const dailyUsage = pgTable(
  'daily_usage',
  {
    simIccid: text('sim_iccid')
      .notNull()
      .references(() => sims.iccid),
    day: date('day').notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.simIccid, table.day] })],
);

/**
 * This month's (and every past month's) use per SIM, kept equal to the sum of daily_usage by a
 * trigger on daily_usage (migration 0004), so the dashboard reads one row per camera.
 */
export const monthlyUsage = pgTable(
  'monthly_usage',
  {
    simIccid: text('sim_iccid')
      .notNull()
      .references(() => sims.iccid),
    /** The first day of the month. */
    month: date('month').notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.simIccid, table.month] })],
);

export const routerStatus = pgTable('router_status', {
  simIccid: text('sim_iccid')
    .primaryKey()
    .references(() => sims.iccid),
  networkName: text('network_name').notNull(),
  networkProvider: text('network_provider').notNull(),
  signalStrength: text('signal_strength').notNull(),
  signalDbm: integer('signal_dbm').notNull(),
  updatedAt: updatedAt(),
});

/** Usage alerts sent, so each threshold is e-mailed once per SIM per month. */
export const usageAlerts = pgTable(
  'usage_alerts',
  {
    simIccid: text('sim_iccid')
      .notNull()
      .references(() => sims.iccid),
    month: text('month').notNull(),
    thresholdPercent: integer('threshold_percent').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.simIccid, table.month, table.thresholdPercent] })],
);

// ── Livestreaming ─────────────────────────────────────────────────────────────────────────

export const livestreams = pgTable('livestreams', {
  id: uuid('id').primaryKey().defaultRandom(),
  simIccid: text('sim_iccid')
    .notNull()
    .unique()
    .references(() => sims.iccid),
  /** Unguessable id used by the embed code, never the ICCID. */
  publicId: text('public_id').notNull().unique(),
  quality: text('quality', { enum: ['SD', 'HD'] })
    .notNull()
    .default('SD'),
  durationSeconds: integer('duration_seconds').notNull().default(15),
  includeAudio: boolean('include_audio').notNull().default(false),
  scheduleHours: integer('schedule_hours')
    .array()
    .notNull()
    .default(sql`'{}'::integer[]`),
  scheduleDays: text('schedule_days')
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  rtspPort: integer('rtsp_port').notNull().default(554),
  rtspPath: text('rtsp_path').notNull().default('/12'),
  isActive: boolean('is_active').notNull().default(false),
  cameraHost: text('camera_host'),
  cameraPort: integer('camera_port'),
  lastSeenOnSiteAt: timestamp('last_seen_on_site_at', { withTimezone: true }),
  disabledReason: text('disabled_reason'),
  /** When the schedule was first saved (configure-rtsp); null while only the camera is set up. */
  configuredAt: timestamp('configured_at', { withTimezone: true }),
  /** When the schedule was last switched on: the 10-day "seen on a website" grace starts here. */
  activatedAt: timestamp('activated_at', { withTimezone: true }),
  /** When the owner was warned (day 7) that the unused livestream will be switched off. */
  switchOffWarnedAt: timestamp('switch_off_warned_at', { withTimezone: true }),
  /** When the owner was e-mailed that scheduled clips stopped arriving; cleared by the next clip. */
  noClipAlertedAt: timestamp('no_clip_alerted_at', { withTimezone: true }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const clips = pgTable(
  'clips',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    livestreamId: uuid('livestream_id')
      .notNull()
      .references(() => livestreams.id, { onDelete: 'cascade' }),
    storageKey: text('storage_key'),
    /**
     * `uploading`: recorded, its file waiting on the recording machine for storage to answer
     * (DATA_DIR/uploads, docs/decisions/105); customers see it as still `recording`.
     */
    status: text('status', { enum: ['recording', 'uploading', 'ready', 'failed'] }).notNull(),
    durationSeconds: integer('duration_seconds').notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }),
    error: text('error'),
    slot: text('slot'),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * The process (instances.id) recording it while 'recording', or storing its file while
     * 'uploading'; null while an on-request clip waits for a worker or a file waits for storage.
     * A claim held by a dead process is recovered (docs/decisions/073, 105).
     */
    claimedBy: uuid('claimed_by'),
    /** Times the clip was handed over after its worker died: it is re-recorded once. */
    recoveries: integer('recoveries').notNull().default(0),
  },
  (table) => [
    index('clips_livestream_idx').on(table.livestreamId, table.recordedAt),
    // One recording per scheduled slot, however many workers race for it (NULL slots repeat).
    uniqueIndex('clips_livestream_slot_idx').on(table.livestreamId, table.slot),
    // The recovery job looks at clips being recorded only: few rows, every few seconds.
    index('clips_recording_claim_idx')
      .on(table.claimedBy)
      .where(sql`${table.status} = 'recording'`),
    // Clips whose file waits for storage: few, looked at by the recovery (given up after days).
    index('clips_uploading_idx')
      .on(table.recordedAt)
      .where(sql`${table.status} = 'uploading'`),
  ],
);

export const livestreamViews = pgTable(
  'livestream_views',
  {
    livestreamId: uuid('livestream_id')
      .notNull()
      .references(() => livestreams.id, { onDelete: 'cascade' }),
    day: date('day').notNull(),
    referrerHost: text('referrer_host').notNull(),
    views: integer('views').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.livestreamId, table.day, table.referrerHost] })],
);

// ── Coverage cache ───────────────────────────────────────────────────────────────────────

export const coverageCache = pgTable('coverage_cache', {
  postcode: text('postcode').primaryKey(),
  payload: jsonb('payload').notNull(),
  fetchedAt: timestamp('fetched_at', { withTimezone: true }).notNull().defaultNow(),
});

// ── Cross-cutting ────────────────────────────────────────────────────────────────────────

/**
 * Who did what, when and from where. Entries with `accountId` are the account's activity log,
 * which its owner reads on the Activity screen (docs/decisions/092); they are kept 13 months.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    actorType: text('actor_type', { enum: ['customer', 'member', 'staff', 'system'] }).notNull(),
    actorId: text('actor_id'),
    /** The person's e-mail as it was then (owner, member or staff), for the activity log. */
    actorEmail: text('actor_email'),
    /** A member's role when they acted (the Activity screen names it, not today's role). */
    actorRole: text('actor_role', { enum: ['manager', 'viewer'] }),
    /** For staff acting inside a customer's portal: the customer they act for. */
    onBehalfOfCustomerId: uuid('on_behalf_of_customer_id'),
    /** The customer account the entry belongs to (shown on its Activity screen); null: none. */
    accountId: uuid('account_id'),
    action: text('action').notNull(),
    subjectType: text('subject_type'),
    subjectId: text('subject_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (table) => [
    index('audit_log_subject_idx').on(table.subjectType, table.subjectId),
    index('audit_log_account_at_idx').on(table.accountId, table.at),
  ],
);

/** The local mail outbox (MAIL=outbox): what would have been sent. */
export const outbox = pgTable(
  'outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html').notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('outbox_created_idx').on(table.createdAt)],
);

export const mailQueueStatuses = [
  'queued',
  'sending',
  'sent',
  'expired',
  'failed',
  'skipped',
] as const;
export type MailQueueStatus = (typeof mailQueueStatuses)[number];

/**
 * Every e-mail on its way to the mail server (MAIL=smtp, docs/decisions/104): written by whoever
 * sends it, delivered by the workers, tried again for three days while the server refuses or
 * cannot be reached. `queued` waits for its next attempt; `sending` is held by the process
 * `claimed_by` (taken back once that process is dead); the others are settled, and the body of
 * one sent, expired or skipped is erased then (a sign-in or invitation link does not outlive its
 * delivery here); a `failed` one keeps it, to be queued again by an operator.
 */
export const mailQueue = pgTable(
  'mail_queue',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** What it is (login, invitation, dunning…): a fixed list, for metrics and operators. */
    kind: text('kind').notNull(),
    toAddress: text('to_address').notNull(),
    /** Known once composed; kept after delivery for operators. */
    subject: text('subject'),
    /** The rendered message (`MailMessage` without `to`); null when composed, and once sent. */
    body: jsonb('body').$type<{ replyTo?: string; subject: string; text: string; html: string }>(),
    /** Made when it goes out by this composer from `composer_data` (a login e-mail's links). */
    composer: text('composer'),
    composerData: jsonb('composer_data'),
    /** A second send with the same key is dropped: a caller that repeats itself mails once. */
    dedupeKey: text('dedupe_key').unique(),
    status: text('status', { enum: mailQueueStatuses }).notNull().default('queued'),
    /** Attempts the mail server saw (one that could not be reached does not count). */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    /** Not sent after this (dropped as `expired`): a login e-mail is worth nothing late. */
    sendBefore: timestamp('send_before', { withTimezone: true }),
    /** The process (instances.id) delivering it while `sending`. */
    claimedBy: uuid('claimed_by'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    // The workers' question: queued mails whose attempt is due, oldest first.
    index('mail_queue_due_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'queued'`),
    // Mails held by processes: taken back when their process is dead.
    index('mail_queue_sending_idx')
      .on(table.claimedBy)
      .where(sql`${table.status} = 'sending'`),
    index('mail_queue_settled_idx')
      .on(table.settledAt)
      .where(sql`${table.settledAt} is not null`),
  ],
);

/** Fixed-window counters for rate limits, shared by every process on the database. */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  hits: integer('hits').notNull(),
  resetAt: timestamp('reset_at', { withTimezone: true }).notNull(),
});

/** Responses of idempotent writes, so a retried request is applied once. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    key: text('key').notNull(),
    scope: text('scope').notNull(),
    requestHash: text('request_hash').notNull(),
    /**
     * For a client's request (lib/idempotency.ts): its method and route, so a key reused on
     * another endpoint is refused with that said. Null for the other uses of this table.
     */
    endpoint: text('endpoint'),
    statusCode: integer('status_code'),
    response: jsonb('response'),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.scope, table.key] })],
);

/** Provider webhook events already processed (deduplication by event id). */
export const webhookEvents = pgTable('webhook_events', {
  id: text('id').primaryKey(),
  provider: text('provider').notNull(),
  type: text('type').notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The local billing engine's events, as Stripe keeps its webhook events (docs/decisions/077):
 * written in the transaction of the change that raised them, handed to the app's handlers after
 * the commit, and tried again until delivered (at least once, for up to three days). The id
 * gives the order they were raised in. Undelivered with no next attempt: given up on.
 */
export const billingEngineEvents = pgTable(
  'billing_engine_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: createdAt(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    /** Deliveries started (each claims the event for a while: the claim's lease). */
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** When a process may take the event up: a retry's time, or the end of a claim's lease. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
  },
  (table) => [
    // The delivery job's question: undelivered events whose next attempt is due.
    index('billing_engine_events_due_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.deliveredAt} is null`),
  ],
);

/**
 * The dunning e-mails sent, one per failed attempt of an invoice: an event delivered twice (its
 * process died before marking it delivered) does not e-mail the customer twice (decision 077).
 */
/**
 * The e-mails of the end of dunning sent (docs/decisions/108): one when the subscription is
 * canceled for an unpaid renewal, one when its SIM is switched off. Recorded after the mail server
 * took them, so each is sent once (a process killed in between sends it twice, never not at all).
 */
export const dunningEndMails = pgTable(
  'dunning_end_mails',
  {
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    kind: text('kind', { enum: ['canceled', 'sim_switched_off'] }).notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.subscriptionId, table.kind] })],
);

export const dunningMails = pgTable(
  'dunning_mails',
  {
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id),
    attemptCount: integer('attempt_count').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.invoiceId, table.attemptCount] })],
);

/** Key/value settings the app keeps for itself, e.g. the local billing engine's test clock. */
export const appSettings = pgTable(
  'app_settings',
  {
    key: text('key').primaryKey(),
    value: jsonb('value').notNull(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('app_settings_key_idx').on(table.key)],
);

/**
 * One row per running process (any role): who it is and when it last said it was alive. A
 * heartbeat older than the dead threshold means the process died (kill -9, power loss), and its
 * recordings are taken over (docs/decisions/073). A clean exit deletes its row.
 */
export const instances = pgTable(
  'instances',
  {
    id: uuid('id').primaryKey(),
    role: text('role').notNull(),
    host: text('host').notNull(),
    pid: integer('pid').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull(),
    /** When another process found it dead and took over its work. */
    goneAt: timestamp('gone_at', { withTimezone: true }),
  },
  (table) => [index('instances_heartbeat_idx').on(table.heartbeatAt)],
);

/**
 * One row (id 1): when any process last wrote a heartbeat, and when heartbeats resumed after the
 * whole deployment fell silent for longer than a heartbeat and a half (the database unreachable
 * for everyone, decision 102). A process is judged dead only for a silence of its own: its last
 * heartbeat counts from that resumption when it is later.
 */
export const heartbeatStream = pgTable('heartbeat_stream', {
  id: integer('id').primaryKey(),
  lastBeatAt: timestamp('last_beat_at', { withTimezone: true }).notNull(),
  resumedAt: timestamp('resumed_at', { withTimezone: true }).notNull(),
});

// ── Cameras that watch themselves (docs/decisions/094) ────────────────────────────────────

/** What the customer chose for one camera's alerts and protection; no row: the defaults. */
export const cameraWatchSettings = pgTable('camera_watch_settings', {
  simIccid: text('sim_iccid')
    .primaryKey()
    .references(() => sims.iccid, { onDelete: 'cascade' }),
  /** Hours without data and without a router report before a silence alert; null: off. */
  silenceHours: integer('silence_hours').default(6),
  /** Share of the plan's data (1-99) e-mailed before the 100 % alert; null: only at 100 %. */
  dataAlertPercent: integer('data_alert_percent').default(80),
  /** Bar the SIM's data (through the SIM platform) once the plan's allowance is used. */
  pauseDataAtAllowance: boolean('pause_data_at_allowance').notNull().default(false),
  /** Hours a scheduled livestream may deliver no clip before the owner is e-mailed; null: off. */
  noClipHours: integer('no_clip_hours'),
  updatedAt: updatedAt(),
});

/** When a camera was last heard: its SIM used data, its router reported (the sync job). */
export const cameraHeartbeats = pgTable('camera_heartbeats', {
  simIccid: text('sim_iccid')
    .primaryKey()
    .references(() => sims.iccid, { onDelete: 'cascade' }),
  lastDataAt: timestamp('last_data_at', { withTimezone: true }),
  lastReportAt: timestamp('last_report_at', { withTimezone: true }),
  updatedAt: updatedAt(),
});

/**
 * A camera's silence, from when it was last heard until it was heard again. At most one open
 * (ended_at null) per SIM, so an alert goes out once however many processes look.
 */
export const cameraSilences = pgTable(
  'camera_silences',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    simIccid: text('sim_iccid')
      .notNull()
      .references(() => sims.iccid, { onDelete: 'cascade' }),
    /** When the camera was last heard before it went silent. */
    silentSince: timestamp('silent_since', { withTimezone: true }).notNull(),
    detectedAt: timestamp('detected_at', { withTimezone: true }).notNull().defaultNow(),
    alertedAt: timestamp('alerted_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    recoveryAlertedAt: timestamp('recovery_alerted_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('camera_silences_open_idx')
      .on(table.simIccid)
      .where(sql`ended_at is null`),
    index('camera_silences_sim_idx').on(table.simIccid, table.silentSince),
  ],
);

/** Budget protection: a SIM's data barred for a month once its allowance was used, or resumed. */
export const dataCaps = pgTable(
  'data_caps',
  {
    simIccid: text('sim_iccid')
      .notNull()
      .references(() => sims.iccid, { onDelete: 'cascade' }),
    /** YYYY-MM: the usage month, which the allowance resets on (decision 095). */
    month: text('month').notNull(),
    cappedAt: timestamp('capped_at', { withTimezone: true }),
    /** The customer chose "resume until the end of the month": not barred again this month. */
    resumedAt: timestamp('resumed_at', { withTimezone: true }),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.simIccid, table.month] })],
);

/** Account-wide alerts: a monthly spend the owner wants to hear about (minor units). */
export const accountAlertSettings = pgTable('account_alert_settings', {
  customerId: uuid('customer_id')
    .primaryKey()
    .references(() => customers.id, { onDelete: 'cascade' }),
  monthlySpendAlertMinor: integer('monthly_spend_alert_minor'),
  currency: text('currency').notNull().default('GBP'),
  updatedAt: updatedAt(),
});

/** Spend alerts sent: once per account per month. */
export const spendAlerts = pgTable(
  'spend_alerts',
  {
    customerId: uuid('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    /** YYYY-MM (UK). */
    month: text('month').notNull(),
    amountMinor: integer('amount_minor').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.customerId, table.month] })],
);

export const livestreamLinkKinds = ['link', 'embed'] as const;

/**
 * A public way in to a livestream: a link to share (with an expiry) or an embed code for listed
 * websites. The livestream's own publicId keeps working for codes already on websites.
 */
export const livestreamLinks = pgTable(
  'livestream_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    livestreamId: uuid('livestream_id')
      .notNull()
      .references(() => livestreams.id, { onDelete: 'cascade' }),
    /** Unguessable id in the link or embed code. */
    token: text('token').notNull().unique(),
    kind: text('kind', { enum: livestreamLinkKinds }).notNull(),
    label: text('label').notNull(),
    /** Website hosts an embed code may play on (Origin/Referer); empty: any site. */
    allowedDomains: text('allowed_domains')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** The link this one re-issued (revoked when this one was made). */
    replacesId: uuid('replaces_id'),
    createdAt: createdAt(),
  },
  (table) => [index('livestream_links_livestream_idx').on(table.livestreamId)],
);

/** Views per link (or the livestream's own code: link_id null → subject), day and site. */
export const livestreamLinkViews = pgTable(
  'livestream_link_views',
  {
    /** A livestream_links.id, or `stream:<livestream id>` for the livestream's own code. */
    subject: text('subject').notNull(),
    livestreamId: uuid('livestream_id')
      .notNull()
      .references(() => livestreams.id, { onDelete: 'cascade' }),
    day: date('day').notNull(),
    siteHost: text('site_host').notNull(),
    views: integer('views').notNull().default(0),
    /** Plays refused on this site (not on the list, expired, revoked). */
    refused: integer('refused').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.subject, table.day, table.siteHost] })],
);

/** Viewers counted once per subject and day: a keyed hash of address and browser, no raw IP. */
export const livestreamViewerDays = pgTable(
  'livestream_viewer_days',
  {
    subject: text('subject').notNull(),
    day: date('day').notNull(),
    viewerHash: text('viewer_hash').notNull(),
  },
  (table) => [primaryKey({ columns: [table.subject, table.day, table.viewerHash] })],
);

/** `uploading`: built, its file waiting for storage to answer (decision 105); shown as building. */
export const timelapseStatuses = ['building', 'uploading', 'ready', 'failed', 'empty'] as const;

/** One camera-day's timelapse, built from that day's scheduled clips (worker job). */
export const timelapses = pgTable(
  'timelapses',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    livestreamId: uuid('livestream_id')
      .notNull()
      .references(() => livestreams.id, { onDelete: 'cascade' }),
    simIccid: text('sim_iccid')
      .notNull()
      .references(() => sims.iccid, { onDelete: 'cascade' }),
    /** The UK day it covers (YYYY-MM-DD). */
    day: date('day').notNull(),
    status: text('status', { enum: timelapseStatuses }).notNull(),
    storageKey: text('storage_key'),
    clipCount: integer('clip_count').notNull().default(0),
    frameCount: integer('frame_count').notNull().default(0),
    durationMs: integer('duration_ms'),
    sizeBytes: bigint('size_bytes', { mode: 'number' }),
    /** CPU time ffmpeg used to build it (user + system), for the bench and operators. */
    cpuMs: integer('cpu_ms'),
    error: text('error'),
    /** The process building it while 'building', or storing its file while 'uploading'. */
    claimedBy: uuid('claimed_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('timelapses_livestream_day_idx').on(table.livestreamId, table.day),
    index('timelapses_sim_day_idx').on(table.simIccid, table.day),
    // Timelapses whose file waits for storage (decision 105): given up after days.
    index('timelapses_uploading_idx')
      .on(table.updatedAt)
      .where(sql`${table.status} = 'uploading'`),
  ],
);

// ── Notifications: who is told of which alert, how (decisions 122-124) ─────────────────────────

/**
 * One person's notification settings inside one account: the owner (member_id null) or one
 * member row. Quiet hours are UK minutes of the day (start inclusive, end exclusive; start after
 * end spans midnight); the phone is verified before any SMS, and a STOP reply holds SMS until
 * START.
 */
export const notificationPeople = pgTable(
  'notification_people',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    customerId: uuid('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    memberId: uuid('member_id').references(() => accountMembers.id, { onDelete: 'cascade' }),
    quietStartMinute: integer('quiet_start_minute'),
    quietEndMinute: integer('quiet_end_minute'),
    /** E.164 (+44…), set once verified; a number being verified waits in phone_verifications. */
    phone: text('phone'),
    phoneVerifiedAt: timestamp('phone_verified_at', { withTimezone: true }),
    /** The person replied STOP: no SMS until they reply START. */
    smsStoppedAt: timestamp('sms_stopped_at', { withTimezone: true }),
    /** The last e-mail that summarised SMS over the daily limit. */
    smsSummarySentAt: timestamp('sms_summary_sent_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('notification_people_owner_idx')
      .on(table.customerId)
      .where(sql`member_id is null`),
    uniqueIndex('notification_people_member_idx')
      .on(table.memberId)
      .where(sql`member_id is not null`),
    index('notification_people_phone_idx').on(table.phone),
  ],
);

/** A person's channels for one kind of alert; a missing row means the kind's defaults. */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    personId: uuid('person_id')
      .notNull()
      .references(() => notificationPeople.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    email: boolean('email').notNull(),
    push: boolean('push').notNull(),
    sms: boolean('sms').notNull(),
    /** Push and SMS of this kind go out during quiet hours too. */
    overridesQuietHours: boolean('overrides_quiet_hours').notNull(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.personId, table.kind] })],
);

/** A phone number being verified: the code's hash, its expiry and the wrong tries. */
export const phoneVerifications = pgTable('phone_verifications', {
  personId: uuid('person_id')
    .primaryKey()
    .references(() => notificationPeople.id, { onDelete: 'cascade' }),
  phone: text('phone').notNull(),
  codeHash: text('code_hash').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  attempts: integer('attempts').notNull().default(0),
  createdAt: createdAt(),
});

/** One browser or installed app that takes Web Push for a person (one row per endpoint). */
export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    personId: uuid('person_id')
      .notNull()
      .references(() => notificationPeople.id, { onDelete: 'cascade' }),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    /** "Chrome on Android", from the subscribing browser: how the person tells devices apart. */
    label: text('label').notNull(),
    createdAt: createdAt(),
    lastSuccessAt: timestamp('last_success_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('push_subscriptions_endpoint_idx').on(table.endpoint),
    index('push_subscriptions_person_idx').on(table.personId),
  ],
);

export const notificationChannels = ['push', 'sms'] as const;
export const notificationDeliveryStatuses = [
  /** Waiting for its due time (now, or the end of quiet hours) or a retry. */
  'queued',
  /** Handed to the push service or the SMS provider. */
  'sent',
  /** The SMS provider reported it delivered to the phone. */
  'delivered',
  /** Refused for good, or the retries ran out; `error` says why in a sentence. */
  'failed',
  /** Past the person's SMS for the day: told in the summary e-mail instead. */
  'over-limit',
  /** Nothing to send to any more (device removed, phone removed or replied STOP). */
  'skipped',
] as const;

/**
 * The durable queue of push and SMS alerts (e-mail has mail_queue): one row per device or phone,
 * claimed by a worker, retried, sent once.
 */
export const notificationDeliveries = pgTable(
  'notification_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    personId: uuid('person_id')
      .notNull()
      .references(() => notificationPeople.id, { onDelete: 'cascade' }),
    channel: text('channel', { enum: notificationChannels }).notNull(),
    kind: text('kind').notNull(),
    pushSubscriptionId: uuid('push_subscription_id').references(() => pushSubscriptions.id, {
      onDelete: 'set null',
    }),
    /** The SMS's number, as it was when queued. */
    phone: text('phone'),
    title: text('title').notNull(),
    body: text('body').notNull(),
    /** The page a tap opens (a path: /camera/…). */
    path: text('path').notNull(),
    status: text('status', { enum: notificationDeliveryStatuses }).notNull().default('queued'),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    /** The SMS provider's message id (Twilio's SID), for its status callbacks. */
    providerMessageId: text('provider_message_id'),
    error: text('error'),
    summarisedAt: timestamp('summarised_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    index('notification_deliveries_due_idx')
      .on(table.dueAt)
      .where(sql`${table.status} = 'queued'`),
    index('notification_deliveries_person_idx').on(table.personId, table.createdAt),
    uniqueIndex('notification_deliveries_provider_idx')
      .on(table.providerMessageId)
      .where(sql`provider_message_id is not null`),
  ],
);

/** The local messaging provider (SMS=local): the text messages it would have sent. */
export const localSmsMessages = pgTable(
  'local_sms_messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sid: text('sid').notNull(),
    direction: text('direction', { enum: ['outbound', 'inbound'] }).notNull(),
    to: text('to').notNull(),
    from: text('from').notNull(),
    body: text('body').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('local_sms_messages_sid_idx').on(table.sid),
    index('local_sms_messages_created_idx').on(table.createdAt),
  ],
);

// ── Live view (issue 27, decisions 151-159) ─────────────────────────────────────────────────────

/** `starting`: asked for, no picture yet; `live`: segments flowing; then `ended` or `failed`. */
export const liveViewSessionStatuses = ['starting', 'live', 'ended', 'failed'] as const;
export type LiveViewSessionStatus = (typeof liveViewSessionStatuses)[number];

/**
 * One pull of one camera's RTSP stream into low-latency HLS, shared by everyone watching it
 * (decision 151). At most one open (starting or live) per camera. A worker holds it by renewing
 * `aliveAt`; another takes it over once that is stale (decision 153).
 */
export const liveViewSessions = pgTable(
  'live_view_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    simIccid: text('sim_iccid')
      .notNull()
      .references(() => sims.iccid, { onDelete: 'cascade' }),
    customerId: uuid('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    status: text('status', { enum: liveViewSessionStatuses }).notNull().default('starting'),
    /** The process (instances.id) pulling it; null until a worker claims it. */
    claimedBy: uuid('claimed_by'),
    /** The puller's last sign of life (wall clock). */
    aliveAt: timestamp('alive_at', { withTimezone: true }),
    /** Pulls so far: 1 for the first worker, +1 for each take-over (names the segment folder). */
    generation: integer('generation').notNull().default(0),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull(),
    /** When a worker started ffmpeg (business time: counts against the plan's Hours). */
    pullStartedAt: timestamp('pull_started_at', { withTimezone: true }),
    firstSegmentAt: timestamp('first_segment_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    /** Media bytes received from the camera so far (every generation). */
    bytesPulled: bigint('bytes_pulled', { mode: 'number' }).notNull().default(0),
    /** The newest playlist with segment names relative to `live/<id>/<generation>/`. */
    playlist: text('playlist'),
    /** Storage keys written for this session and not deleted yet (cleanup, decision 155). */
    storedKeys: jsonb('stored_keys').$type<string[]>().notNull().default([]),
    /** Why it ended or failed, in a sentence for the viewer. */
    endReason: text('end_reason'),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('live_view_sessions_open_camera_idx')
      .on(table.simIccid)
      .where(sql`status in ('starting', 'live')`),
    index('live_view_sessions_sim_requested_idx').on(table.simIccid, table.requestedAt),
    index('live_view_sessions_cleanup_idx')
      .on(table.endedAt)
      .where(sql`status in ('ended', 'failed')`),
  ],
);

/**
 * One person watching one session (decision 152): kept by a heartbeat; asked "Still watching?"
 * after ten minutes without saying yes. `playToken` is the secret in the playlist's address.
 */
export const liveViewViewers = pgTable(
  'live_view_viewers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => liveViewSessions.id, { onDelete: 'cascade' }),
    customerId: uuid('customer_id').notNull(),
    simIccid: text('sim_iccid').notNull(),
    /** Who, as the audit log records them (actor columns of audit_log). */
    actor: jsonb('actor').$type<Record<string, unknown>>().notNull(),
    playToken: text('play_token').notNull(),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
    /** When they last said they are watching (joining counts). */
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }).notNull(),
    leftAt: timestamp('left_at', { withTimezone: true }),
    /** The session's bytes when they joined and left: their view's data. */
    bytesAtJoin: bigint('bytes_at_join', { mode: 'number' }).notNull().default(0),
    bytesAtLeave: bigint('bytes_at_leave', { mode: 'number' }),
  },
  (table) => [
    uniqueIndex('live_view_viewers_token_idx').on(table.playToken),
    index('live_view_viewers_session_idx').on(table.sessionId),
  ],
);

/** The owner's choice per camera: live view on (no row) or off (decision 154). */
export const liveViewSettings = pgTable('live_view_settings', {
  simIccid: text('sim_iccid')
    .primaryKey()
    .references(() => sims.iccid, { onDelete: 'cascade' }),
  isEnabled: boolean('is_enabled').notNull().default(true),
  updatedAt: updatedAt(),
});

/**
 * A camera's latest still (decision 157): one JPEG taken from what was already recorded (a
 * clip, a live view, a timelapse), so showing it costs the camera no data.
 */
export const cameraStills = pgTable('camera_stills', {
  simIccid: text('sim_iccid')
    .primaryKey()
    .references(() => sims.iccid, { onDelete: 'cascade' }),
  storageKey: text('storage_key').notNull(),
  /** When the picture was taken (when the recording it came from was made). */
  takenAt: timestamp('taken_at', { withTimezone: true }).notNull(),
  source: text('source', { enum: ['clip', 'live', 'timelapse'] }).notNull(),
  updatedAt: updatedAt(),
});
