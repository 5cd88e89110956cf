/**
 * Subscriptions, payment methods, pause and invoices (docs/requirements.md#data, #api). Field names follow the spec's
 * answers (snake_case where the spec's screens read them so). Money is integer minor units.
 * `customerId` / `customer_id` is always a billing customer id (the spec's stripeCustomerId).
 */
import { z } from 'zod';

/** A billing customer id: our local engine's `cus_…` or a Stripe customer id. */
export const billingCustomerId = z
  .string()
  .trim()
  .min(1, 'Enter a customer id')
  .max(255, 'That customer id is too long')
  .regex(/^[A-Za-z0-9_]+$/, 'Unknown customer id');

export const billingCustomerParams = z.object({ customerId: billingCustomerId });
export const billingCustomerQuery = z.object({ customerId: billingCustomerId });
export const billingCustomerBody = z.object({ customerId: billingCustomerId });

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date like 2026-04-01');

// ── The billing account a page is about ─────────────────────────────────────────────────────

/**
 * Which camera a billing account (the spec's stripeCustomerId) pays for, so Manage plan and
 * Invoices can name it (decision 111), and whether Manage plan has anything to offer for it.
 */
export const billingAccountResponse = z.object({
  customer_id: z.string(),
  camera: z
    .object({
      iccid: z.string(),
      nickname: z.string().nullable(),
    })
    .nullable()
    .describe('The camera this account pays for; null while the SIM is not attached yet'),
  can_manage_plan: z
    .boolean()
    .describe("Manage plan offers plans and a pause: false once the camera's SIM is switched off"),
  manage_plan_refusal: z
    .string()
    .nullable()
    .describe('Why Manage plan has nothing to offer, in words; null when it can'),
});
export type BillingAccountResponse = z.infer<typeof billingAccountResponse>;

// ── Plans ────────────────────────────────────────────────────────────────────────────────

/**
 * What a plan gives, as the sentences every screen shows (decision 110): the wizard's pricing
 * table, Manage plan and the renewal page take them from here, so they say the same.
 */
export const planFeatureList = z
  .array(z.string())
  .describe("The plan's features in words, from its data: allowance, livestream hours, SIM");

export const eligiblePlan = z.object({
  id: z.string().describe('Price id'),
  product_id: z.string(),
  product_name: z.string(),
  unit_amount: z.number().int().describe('Minor units'),
  currency: z.string(),
  recurring: z.object({ interval: z.enum(['month', 'year']) }),
  subscribed: z.boolean().describe('The camera is on this plan now'),
  upgrade_data: z.boolean().describe('More data than the current plan'),
  upgrade_value: z.boolean().describe('The same data for less per month'),
  /**
   * What switching to this plan would be (decision 054): more data is an upgrade, less a downgrade,
   * the same data (another interval, or the current plan, or no plan to compare) is 'same'.
   */
  change: z.enum(['upgrade', 'downgrade', 'same']),
  data_allowance_gb: z.number().describe('Data included each month, GB'),
  amountSaved: z
    .number()
    .int()
    .describe('Annual plans: saving against twelve monthly payments, minor units; else 0'),
  metadata: z.object({ Provider: z.string().optional(), Hours: z.string().optional() }),
  features: planFeatureList,
});
export type EligiblePlan = z.infer<typeof eligiblePlan>;

export const eligiblePlansResponse = z.object({
  eligible_plans: z.array(eligiblePlan),
  /** The subscription's status; plans can be switched only while it is active. */
  subscription_status: z.string().nullable(),
  can_switch: z
    .boolean()
    .describe('A switch would be accepted now (the same rule as the switch: decision 081)'),
  switch_refusal: z
    .string()
    .nullable()
    .describe('Why the plan cannot be switched now, to show instead; null when it can'),
  can_pause: z
    .boolean()
    .describe(
      'Pause subscription would be accepted (or a scheduled pause moved): the same rule as the pause (decision 170)',
    ),
  pause_refusal: z
    .string()
    .nullable()
    .describe(
      'Why the plan cannot be paused (annual, overdue, no plan), to show instead; null when it can',
    ),
});
export type EligiblePlansResponse = z.infer<typeof eligiblePlansResponse>;

export const changePlanBody = z.object({
  customerId: billingCustomerId,
  newPlanId: z.string().trim().min(1, 'Choose a plan').max(255),
});
export type ChangePlanBody = z.infer<typeof changePlanBody>;

export const planChangePreviewQuery = z.object({
  newPlanId: z.string().trim().min(1, 'Choose a plan').max(255),
});

/** What switching now would charge (docs/requirements.md#states: charged immediately, pro-rata). */
export const planChangePreview = z.object({
  plan: eligiblePlan,
  /** Charged now; 0 when the change leaves a credit. */
  amount_due: z.number().int(),
  /** Credit kept for the next invoice (a downgrade), minor units. */
  credit: z.number().int(),
  currency: z.string(),
  /** The invoice lines, e.g. unused time on the old plan and remaining time on the new. */
  lines: z.array(z.object({ description: z.string(), amount: z.number().int() })),
});
export type PlanChangePreview = z.infer<typeof planChangePreview>;

export const changePlanResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  subscription: z.object({ id: z.string(), price_id: z.string(), status: z.string() }),
  invoice: z
    .object({
      id: z.string(),
      amount_due: z.number().int(),
      currency: z.string(),
      status: z.string(),
    })
    .nullable(),
});
export type ChangePlanResponse = z.infer<typeof changePlanResponse>;

// ── Payment methods and hosted pages ─────────────────────────────────────────────────────────

export const paymentMethod = z.object({
  id: z.string(),
  card_brand: z.string(),
  last4: z.string(),
  exp_month: z.number().int(),
  exp_year: z.number().int(),
  is_expired: z.boolean(),
  is_default: z.boolean(),
});
export type PaymentMethod = z.infer<typeof paymentMethod>;

export const paymentMethodsResponse = z.object({ payment_methods: z.array(paymentMethod) });
export type PaymentMethodsResponse = z.infer<typeof paymentMethodsResponse>;

/**
 * Why the billing page is opened (decision 113): `pay` from an overdue camera's "Pay now", where a
 * new card pays what is due unless the farmer unticks it; `manage` (the default) to look after
 * cards, where nothing is paid unless ticked.
 */
export const portalPurposes = ['manage', 'pay'] as const;
export type PortalPurpose = (typeof portalPurposes)[number];

export const portalSessionQuery = z.object({
  customerId: billingCustomerId,
  purpose: z.enum(portalPurposes, 'The purpose is manage or pay').optional().default('manage'),
});

export const portalSessionResponse = z.object({ url: z.string() });
export type PortalSessionResponse = z.infer<typeof portalSessionResponse>;

export const customerSecretResponse = z.object({ secret: z.string() });
export type CustomerSecretResponse = z.infer<typeof customerSecretResponse>;

// ── Pause ────────────────────────────────────────────────────────────────────────────────

export const pauseOptionsResponse = z.object({
  pause_options: z.object({
    message: z.string(),
    /** First day of the pause (YYYY-MM-DD); null when the plan cannot be paused now. */
    pause_from: isoDate.nullable(),
    /** Dates the plan can restart on: first days of the months after pause_from. */
    resume_dates: z.array(isoDate),
    customer_id: z.string(),
    /** The pause already scheduled (not started yet) or running (paused), if any. */
    current_pause: z
      .object({
        start_date: isoDate,
        end_date: isoDate,
        state: z.enum(['scheduled', 'paused']),
      })
      .nullable(),
  }),
});
export type PauseOptionsResponse = z.infer<typeof pauseOptionsResponse>;

export const pauseSubscriptionBody = z.object({
  customer_id: billingCustomerId,
  resume_date: isoDate,
});
export type PauseSubscriptionBody = z.infer<typeof pauseSubscriptionBody>;

export const cancelPauseBody = z.object({ customer_id: billingCustomerId });
export type CancelPauseBody = z.infer<typeof cancelPauseBody>;

export const pauseResultResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  pause: z.object({ start_date: isoDate, end_date: isoDate }).nullable(),
});
export type PauseResultResponse = z.infer<typeof pauseResultResponse>;

export const activePauseResponse = z.object({
  has_active_pause: z.boolean(),
  /** 'scheduled' before the start date, 'paused' while it runs. */
  state: z.enum(['scheduled', 'paused']).nullable(),
  pause: z.object({ start_date: isoDate, end_date: isoDate }).nullable(),
});
export type ActivePauseResponse = z.infer<typeof activePauseResponse>;

// ── Invoices ─────────────────────────────────────────────────────────────────────────────

/** One word per invoice status on every screen and hosted page (decision 113). */
export const invoiceStatusLabels = ['Paid', 'Unpaid', 'Void', 'Draft'] as const;
export const invoiceStatusLabel = z.enum(invoiceStatusLabels);
export type InvoiceStatusLabel = z.infer<typeof invoiceStatusLabel>;

export const invoice = z.object({
  id: z.string(),
  number: z.string(),
  amount_due: z.number().int(),
  amount_paid: z.number().int(),
  currency: z.string(),
  lines: z.array(
    z.object({
      description: z.string(),
      amount: z
        .number()
        .int()
        .describe('Minor units, VAT included; a credit (unused time) is negative'),
    }),
  ),
  /** What the supply costs, VAT included, before the customer's balance is applied. */
  total: z.number().int(),
  /** The VAT within `total`. */
  tax: z.number().int(),
  /** Money given back against this invoice (refunds), each its own document. */
  credit_notes: z.array(
    z.object({
      id: z.string(),
      number: z.string(),
      total: z.number().int(),
      /** Refunded to the card the invoice was paid with (minor units). */
      refund_amount: z.number().int(),
      /** Given back to the credit balance: the part the balance paid (minor units). */
      credit_amount: z.number().int(),
      /** Where the money went, e.g. "£7.00 refunded to your card and £5.00 credited to your balance". */
      given_back: z.string(),
      created_date: z.string(),
      pdf: z.string().nullable(),
    }),
  ),
  created_date: z.string().describe('ISO date-time'),
  due_date: z
    .string()
    .describe(
      'YYYY-MM-DD: the day payment was due; charged automatically, that is the day it was raised',
    ),
  status: z.string(),
  status_label: invoiceStatusLabel.describe(
    "The status in a farmer's word, the same on every screen: open is Unpaid, void and uncollectible are Void (decision 113)",
  ),
  status_detail: z
    .string()
    .nullable()
    .describe(
      'A sentence under the status: why an unpaid invoice is unpaid and what to do, when it was paid, or why it is void',
    ),
  invoice_pdf: z.string().nullable(),
  hosted_invoice_url: z.string().nullable(),
  /** Whether money can still be paid on it (open); void and uncollectible invoices cannot. */
  is_payable: z.boolean(),
  attempt_count: z
    .number()
    .int()
    .describe(
      "Stripe's: payment attempts by the retry schedule (a customer's own attempt counts only as the first)",
    ),
  next_payment_attempt: z
    .number()
    .int()
    .nullable()
    .describe('Epoch seconds of the next automatic retry; null when none is planned'),
});
export type Invoice = z.infer<typeof invoice>;

export const invoicesResponse = z.object({
  invoices: z.array(invoice),
  /** Credit the camera's next invoice will take off (a downgrade's unused time), minor units. */
  credit_balance: z.number().int(),
  currency: z.string(),
});
export type InvoicesResponse = z.infer<typeof invoicesResponse>;

// ── Renewal (no-active-subscription screen) ───────────────────────────────────────────────────

export const renewalPlansQuery = z.object({
  location: z.enum(['uk', 'ie'], 'Region must be uk or ie').optional().default('uk'),
});

export const renewalPlansResponse = z.object({
  iccid: z.string(),
  customer_id: z.string(),
  nickname: z.string().nullable(),
  /** False when the SIM is terminated or already has a live subscription. */
  can_renew: z.boolean(),
  reason: z.string().nullable(),
  plans: z.array(eligiblePlan),
});
export type RenewalPlansResponse = z.infer<typeof renewalPlansResponse>;

export const renewSubscriptionBody = z.object({
  customerId: billingCustomerId,
  iccid: z
    .string()
    .trim()
    .regex(/^\d{19,20}$/, 'An ICCID is 19 or 20 digits'),
  priceId: z.string().trim().min(1, 'Choose a plan').max(255),
});
export type RenewSubscriptionBody = z.infer<typeof renewSubscriptionBody>;

/** Where to pay: the provider's hosted checkout. */
export const checkoutResponse = z.object({ url: z.string() });
export type CheckoutResponse = z.infer<typeof checkoutResponse>;
