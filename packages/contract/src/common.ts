import { z } from 'zod';

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

/** ICCID: 19 or 20 digits (spec §5). The Luhn digit is checked where a rule needs it. */
export const iccid = z
  .string()
  .trim()
  .regex(/^\d{19,20}$/, 'Enter the SIM number: 19 or 20 digits.');

/** A deliberately loose e-mail rule: the login form applies none (spec §5), the server a sane one. */
export const emailAddress = z
  .string({ error: 'Please enter a valid e-mail address.' })
  .trim()
  .min(3, 'Please enter your e-mail address.')
  .max(254, 'That e-mail address is too long.')
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'Please enter a valid e-mail address.')
  .transform((value) => value.toLowerCase());

/** Luhn check over a digit string: true when the last digit is a valid check digit. */
export function hasValidLuhnDigit(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Appends the Luhn check digit to a digit string. */
export function withLuhnDigit(body: string): string {
  for (let digit = 0; digit <= 9; digit += 1) {
    if (hasValidLuhnDigit(`${body}${digit}`)) return `${body}${digit}`;
  }
  throw new Error(`Not a digit string: ${body}`);
}
