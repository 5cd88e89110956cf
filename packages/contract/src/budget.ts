/** Budget protection (decision 095): a camera's paused data resumed, and the account's spend alert. */
import { z } from 'zod';

export const dataCapResumeResponse = z.object({
  resumedAt: z
    .string()
    .nullable()
    .describe(
      "When the camera's data was let through again until the end of the month (ISO instant); " +
        'null when it was not paused',
    ),
});
export type DataCapResumeResponse = z.infer<typeof dataCapResumeResponse>;

/** The most a spend alert may be set to: £100,000 a month, in pence. */
export const maxSpendAlertMinor = 10_000_000;

export const spendAlertBody = z.object({
  amountMinor: z
    .number()
    .int()
    .min(100)
    .max(maxSpendAlertMinor)
    .nullable()
    .describe('E-mail the owner once a month when the bill reaches this (pence); null: no alert'),
});
export type SpendAlertBody = z.infer<typeof spendAlertBody>;

export const spendAlertResponse = z.object({
  amountMinor: z.number().int().nullable().describe('The alert amount (minor units); null: none'),
  currency: z.string().describe('ISO currency of the amounts, e.g. GBP'),
  month: z.string().describe('The UK month the figures are for (YYYY-MM)'),
  raisedMinor: z.number().int().describe('Invoices already raised this month'),
  upcomingMinor: z
    .number()
    .int()
    .describe("Renewals still to come this month, as the billing provider's preview says"),
  expectedMinor: z.number().int().describe('This month in all: raised plus upcoming'),
  alertSentAt: z
    .string()
    .nullable()
    .describe('When this month’s alert e-mail was sent (ISO instant); null: not sent'),
});
export type SpendAlertResponse = z.infer<typeof spendAlertResponse>;
