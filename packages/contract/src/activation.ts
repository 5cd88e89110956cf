/**
 * The activation wizard's calls (docs/requirements.md#activation-wizard, #data Solar check, #api activation rows).
 * Validation failures answer 4xx `{ code, message }`: the wizard shows `message` (the spec's
 * `data.message`) in its red box. Field names follow the spec where it names them.
 */
import { z } from 'zod';
import { planFeatureList } from './billing.ts';
import { emailAddress, iccid } from './common.ts';
import { activationCodeRule, planTiers } from './rules.ts';

export const activationCodeTypes = ['4-digits', '20-digits'] as const;
export type ActivationCodeType = (typeof activationCodeTypes)[number];

export const activationRegions = ['uk', 'ie'] as const;
export type ActivationRegion = (typeof activationRegions)[number];
export const activationRegion = z.enum(activationRegions, 'Region must be uk or ie');

/** docs/requirements.md#input-rules: letters only, exactly four, stored upper-case. */
export const activationCode = z
  .string()
  .trim()
  .regex(activationCodeRule.pattern, activationCodeRule.message)
  .transform((value) => value.toUpperCase());

export const validateActivationCodeBody = z.object({ activationCode });
export type ValidateActivationCodeBody = z.input<typeof validateActivationCodeBody>;

export const validateIccidBody = z.object({ iccid });
export type ValidateIccidBody = z.input<typeof validateIccidBody>;

/** A SIM that can be activated: in stock, not barred. */
export const simValidationResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  iccid: z.string().describe('The SIM number (ICCID) the code or number belongs to'),
});
export type SimValidationResponse = z.infer<typeof simValidationResponse>;

export const checkSolarSimBody = z.object({ iccid, location: activationRegion.default('uk') });
export type CheckSolarSimBody = z.input<typeof checkSolarSimBody>;

/** docs/requirements.md#data Solar check response: which pricing table to show for this SIM and region. */
export const solarCheckResponse = z.object({
  is_solar_sim: z.boolean(),
  pricing_table_id: z.string(),
});
export type SolarCheckResponse = z.infer<typeof solarCheckResponse>;

/** The spec names this call's fields with hyphens, as the pricing table's attributes are named. */
export const logPriceTableBody = z.object({
  'client-reference-id': iccid,
  'customer-email': emailAddress,
  'customer-session-client-secret': z.string().max(500).nullish(),
  pricing_table_id: z.string().max(200).optional(),
});
export type LogPriceTableBody = z.input<typeof logPriceTableBody>;

export const billingProviderKinds = ['local', 'stripe'] as const;

/**
 * What the wizard and the thank-you page need from the server's configuration: which pricing table
 * to draw, Stripe's publishable key, the fallback tables (docs/requirements.md#screens: per region, uk or other) for when
 * the solar check fails, and where the thank-you page sends people for help.
 */
export const activationConfigResponse = z.object({
  provider: z.enum(billingProviderKinds),
  /** Set when the provider's own pricing table element is used (Stripe). */
  publishable_key: z.string().nullable(),
  fallback_pricing_tables: z.object({ uk: z.string(), other: z.string() }),
  support_email: z.string(),
  setup_guide_url: z.string(),
});
export type ActivationConfigResponse = z.infer<typeof activationConfigResponse>;

/** The thank-you page's order: our order reference from the checkout's return address. */
export const orderParams = z.object({
  orderId: z
    .string()
    .regex(/^ord_[A-Za-z0-9]{8,40}$/, 'That is not an order reference')
    .describe('The `order` of the thank-you page address'),
});
export const orderStatusResponse = z.object({
  order: z.string(),
  product: z.string(),
  /**
   * `pending`: not paid yet; `paid`: paid, the SIM is being set up; `activated`: the SIM is
   * live; `refused`: the SIM went to another buyer first and the payment was given back.
   */
  status: z.enum(['pending', 'paid', 'activated', 'refused']),
});
export type OrderStatusResponse = z.infer<typeof orderStatusResponse>;

export const pricingTableParams = z.object({
  pricingTableId: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_]{1,100}$/, 'Unknown pricing table'),
});

export const pricingTablePlan = z.object({
  price_id: z.string(),
  product_id: z.string(),
  product_name: z.string(),
  tier: z.enum(planTiers),
  unit_amount: z.number().int().describe('Minor units'),
  currency: z.string(),
  interval: z.enum(['month', 'year']),
  data_allowance_gb: z.number().int(),
  metadata: z.object({ Provider: z.string().optional(), Hours: z.string().optional() }),
  features: planFeatureList,
});
export type PricingTablePlan = z.infer<typeof pricingTablePlan>;

/** Our own pricing table (local billing engine): the plans sold in one region, solar or not. */
export const pricingTableResponse = z.object({
  id: z.string(),
  region: activationRegion,
  is_solar: z.boolean(),
  currency: z.string(),
  plans: z.array(pricingTablePlan),
});
export type PricingTableResponse = z.infer<typeof pricingTableResponse>;

/** What a pricing table sends when a plan is chosen; the answer is the hosted checkout's address. */
export const activationCheckoutBody = z.object({
  pricing_table_id: pricingTableParams.shape.pricingTableId,
  price_id: z.string().trim().min(1, 'Choose a plan').max(200),
  client_reference_id: iccid,
  customer_email: emailAddress,
  customer_session_client_secret: z.string().max(500).nullish(),
});
export type ActivationCheckoutBody = z.input<typeof activationCheckoutBody>;

export const activationCheckoutResponse = z.object({ url: z.string() });
export type ActivationCheckoutResponse = z.infer<typeof activationCheckoutResponse>;

/** Signed-in customers: the billing account the new camera will be billed to (one per camera). */
export const activationBillingCustomerBody = z.object({
  iccid,
  location: activationRegion.default('uk'),
});
export type ActivationBillingCustomerBody = z.input<typeof activationBillingCustomerBody>;
export const activationBillingCustomerResponse = z.object({ customer_id: z.string() });
export type ActivationBillingCustomerResponse = z.infer<typeof activationBillingCustomerResponse>;
