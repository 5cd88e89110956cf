/**
 * The farm's Billing page (issue 24 item 11, decisions 127–129): every camera's invoices in one
 * list, what is due now with one Pay all, the next bills, each camera's card, and the billing
 * address and VAT number invoices carry. Owner only. Money is integer minor units.
 */
import { z } from 'zod';
import { invoiceStatusLabel } from './billing.ts';

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date like 2026-04-01')
  .refine((day) => {
    const parsed = new Date(`${day}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(day);
  }, 'That date does not exist');

/** The status filter in the page's words (decision 113): Unpaid, Paid, Void. */
export const farmInvoiceStatuses = ['unpaid', 'paid', 'void'] as const;
export type FarmInvoiceStatus = (typeof farmInvoiceStatuses)[number];

export const farmInvoicesQuery = z
  .object({
    status: z.enum(farmInvoiceStatuses, 'Choose Unpaid, Paid or Void').optional(),
    camera: z
      .string()
      .regex(/^\d{19,20}$/, 'Choose a camera from the list')
      .optional(),
    from: isoDate.optional(),
    to: isoDate.optional(),
  })
  .refine((query) => !query.from || !query.to || query.from <= query.to, {
    message: 'The "from" date must be on or before the "to" date',
    path: ['to'],
  });
export type FarmInvoicesQuery = z.infer<typeof farmInvoicesQuery>;

const camera = z.object({ iccid: z.string(), nickname: z.string().nullable() });

export const farmInvoice = z.object({
  id: z.string(),
  number: z.string(),
  billing_customer_id: z.string(),
  camera: camera.nullable(),
  created_date: z.string().describe('ISO date-time'),
  due_date: isoDate,
  total: z.number().int().describe('VAT included'),
  tax: z.number().int(),
  amount_due: z.number().int(),
  amount_remaining: z.number().int().describe('Still to pay: 0 unless Unpaid'),
  currency: z.string(),
  status: z.string(),
  status_label: invoiceStatusLabel,
  status_detail: z.string().nullable(),
  invoice_pdf: z.string().nullable(),
  hosted_invoice_url: z.string().nullable(),
});
export type FarmInvoice = z.infer<typeof farmInvoice>;

export const farmCard = z.object({
  brand: z.string(),
  last4: z.string(),
  exp_month: z.number().int(),
  exp_year: z.number().int(),
  is_expired: z.boolean(),
  /** Expires this month or next: the next bill may find it expired. */
  expires_soon: z.boolean(),
});

export const billingDetails = z.object({
  name: z.string(),
  line1: z.string(),
  line2: z.string().nullable(),
  town: z.string(),
  postcode: z.string(),
  vat_number: z.string().nullable(),
});
export type BillingDetailsView = z.infer<typeof billingDetails>;

export const farmBillingResponse = z.object({
  currency: z.string(),
  due_now: z.object({ amount: z.number().int(), invoices: z.number().int() }),
  invoices: z.array(farmInvoice).describe('Newest first, with the filters applied'),
  cameras: z.array(
    camera.extend({
      billing_customer_id: z.string(),
      card: farmCard.nullable().describe('The card its next charge uses'),
      /** In words, when the card needs attention: none, expired, or expiring before the next bill. */
      card_warning: z.string().nullable(),
    }),
  ),
  upcoming: z
    .array(
      z.object({
        camera,
        billing_customer_id: z.string(),
        date: isoDate,
        amount_due: z.number().int(),
        currency: z.string(),
      }),
    )
    .describe('The next bill of each camera, soonest first'),
  details: billingDetails.nullable(),
});
export type FarmBillingResponse = z.infer<typeof farmBillingResponse>;

export const payAllBody = z.object({
  amount: z
    .number()
    .int()
    .min(1, 'Nothing is due')
    .describe('The total the farmer was shown; refused if what is due has changed since'),
});
export type PayAllBody = z.infer<typeof payAllBody>;

export const payAllResponse = z.object({
  paid: z.number().int().describe('Money taken now, minor units'),
  currency: z.string(),
  results: z.array(
    z.object({
      invoice_id: z.string(),
      number: z.string(),
      camera: camera.nullable(),
      amount: z.number().int(),
      outcome: z.enum(['paid', 'already_paid', 'declined', 'failed']),
      message: z.string(),
    }),
  ),
});
export type PayAllResponse = z.infer<typeof payAllResponse>;

const text = (label: string, max: number) =>
  z
    .string()
    .trim()
    .min(1, `Enter the ${label}`)
    .max(max, `The ${label} is too long (at most ${max} characters)`);

export const billingDetailsBody = z.object({
  name: text('name for invoices', 80),
  line1: text('first line of the address', 80),
  line2: z
    .string()
    .trim()
    .max(80, 'The second line is too long (at most 80 characters)')
    .optional(),
  town: text('town', 60),
  postcode: text('postcode', 10),
  vat_number: z.string().trim().max(20, 'That VAT number is too long').optional(),
});
export type BillingDetailsBody = z.infer<typeof billingDetailsBody>;

export const cardSetupResponse = z.object({
  steps: z.array(
    z.object({
      cameras: z.array(camera),
      url: z.string(),
    }),
  ),
});
export type CardSetupResponse = z.infer<typeof cardSetupResponse>;
