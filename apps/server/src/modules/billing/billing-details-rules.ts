/**
 * A farm's billing address and VAT number checked and put in one form (decision 127): a UK
 * postcode in capitals with its space, a UK VAT number as `GB` and 9 digits (12 for a branch),
 * the form Stripe's `gb_vat` tax id takes.
 */
import type { BillingDetailsBody } from '@farmcam/contract';
import type { BillingDetails } from '../../db/schema.ts';

const postcodePattern = /^[A-Z]{1,2}\d[A-Z\d]?\d[A-Z]{2}$/;
const vatPattern = /^GB(\d{9}|\d{12})$/;

const compact = (value: string) => value.replace(/\s+/g, '').toUpperCase();

/** "ex12mp" → "EX1 2MP". */
export function normalisePostcode(value: string): string {
  const plain = compact(value);
  return `${plain.slice(0, -3)} ${plain.slice(-3)}`;
}

/** "123 4567 89" → "GB123456789"; empty → null. */
export function normaliseVatNumber(value: string | undefined): string | null {
  const plain = compact(value ?? '');
  if (plain === '') return null;
  return /^\d+$/.test(plain) ? `GB${plain}` : plain;
}

/** What is wrong with the details, in a sentence; null when they are fine. */
export function billingDetailsError(body: BillingDetailsBody): string | null {
  if (!postcodePattern.test(compact(body.postcode))) {
    return 'Enter a UK postcode, like EX1 2MP.';
  }
  const vat = normaliseVatNumber(body.vat_number);
  if (vat !== null && !vatPattern.test(vat)) {
    return 'Enter a UK VAT number: GB and 9 digits, like GB123456789, or leave it empty.';
  }
  return null;
}

export function normaliseBillingDetails(body: BillingDetailsBody): BillingDetails {
  const line2 = body.line2?.trim() ?? '';
  return {
    name: body.name.trim(),
    line1: body.line1.trim(),
    line2: line2 === '' ? null : line2,
    town: body.town.trim(),
    postcode: normalisePostcode(body.postcode),
    vatNumber: normaliseVatNumber(body.vat_number),
  };
}
