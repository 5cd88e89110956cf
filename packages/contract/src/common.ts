import { z } from 'zod';
import { emailPattern, maxEmailLength } from './rules.ts';

/** Every error the API answers has this body; `message` is safe to show to the user. */
export const errorBody = z.object({
  code: z.string().describe('Stable machine-readable code, e.g. VALIDATION_FAILED'),
  message: z.string().describe('A plain sentence, safe to show as it is'),
  field: z
    .string()
    .optional()
    .describe('On VALIDATION_FAILED: the field the message is about, e.g. email'),
});
export type ErrorBody = z.infer<typeof errorBody>;

export const messageBody = z.object({ message: z.string() });
export type MessageBody = z.infer<typeof messageBody>;

export const successBody = z.object({ success: z.boolean(), message: z.string().optional() });
export type SuccessBody = z.infer<typeof successBody>;

/** ICCID: 19 or 20 digits (docs/requirements.md#input-rules). The Luhn digit is checked where a rule needs it. */
export const iccid = z
  .string()
  .trim()
  .regex(/^\d{19,20}$/, 'Enter the SIM number: 19 or 20 digits.');

/** A deliberately loose e-mail rule: the login form applies none (docs/requirements.md#input-rules), the server a sane one. */
export const emailAddress = z
  .string({ error: 'Please enter a valid e-mail address.' })
  .trim()
  .min(3, 'Please enter your e-mail address.')
  .max(maxEmailLength, 'That e-mail address is too long.')
  .regex(emailPattern, 'Please enter a valid e-mail address.')
  .transform((value) => value.toLowerCase());
