/**
 * What an invoice or credit note says, laid out for the PDF and the hosted invoice page alike
 * (docs/decisions/026): lines, VAT and totals the way Stripe prints VAT-inclusive prices, the
 * supplier, the customer and the camera, all from the snapshot fixed when it was issued
 * (invoice-snapshot.ts); only its status, payments and credit notes are read as they are now.
 */
import { asc, desc, eq } from 'drizzle-orm';
import type { Executor } from '@farmcam/db';
import { creditNotes, paymentMethods, payments } from '@farmcam/db/schema';
import { formatDay, formatMoney } from '@farmcam/billing/money';
import type { BillingDocument, PdfTotal } from './invoice-pdf.ts';
import {
  snapshotOfInvoice,
  type DocumentParties,
  type InvoiceSnapshot,
  type Supplier,
} from './invoice-snapshot.ts';
import { givenBack } from '@farmcam/billing/bill-words';
import type { CreditNoteRow, InvoiceRow } from './ledger.ts';
import { cameraNameOf } from '@farmcam/contract/rules';

export type { Supplier };

const shortDay = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** "1 Feb 2027 – 1 Mar 2027" */
export function formatPeriod(start: Date | null, end: Date | null): string | null {
  return start && end ? `${shortDay.format(start)} – ${shortDay.format(end)}` : null;
}

const vatPercent = (basisPoints: number) =>
  `${(basisPoints / 100).toLocaleString('en-GB', { maximumFractionDigits: 2 })}%`;

/**
 * The totals block, Stripe's order: subtotal, VAT, total, balance, amount due (all as issued, from
 * the snapshot), then paid and remaining (as of now).
 */
export function invoiceTotals(invoice: InvoiceRow, issued: InvoiceSnapshot): PdfTotal[] {
  const money = (value: number) => formatMoney(value, issued.currency);
  const applied = issued.startingBalance - issued.endingBalance;
  return [
    { label: 'Subtotal', amount: money(issued.subtotal) },
    { label: 'Total excluding VAT', amount: money(issued.total - issued.tax) },
    {
      label: `VAT (${vatPercent(issued.taxRateBasisPoints)} included)`,
      amount: money(issued.tax),
    },
    { label: 'Total', amount: money(issued.total), isBold: true },
    ...(applied < 0
      ? [{ label: 'Credit applied from your balance', amount: money(applied) }]
      : applied > 0
        ? [{ label: 'Credit carried to your balance', amount: money(applied) }]
        : []),
    { label: 'Amount due', amount: money(issued.amountDue), isBold: true },
    { label: 'Amount paid', amount: money(invoice.amountPaid) },
    { label: 'Amount remaining', amount: money(issued.amountDue - invoice.amountPaid) },
  ];
}

/**
 * Everything an invoice's documents show, in one read: the snapshot fixed when it was issued
 * (docs/decisions/026), and what has happened since (how it was paid, its credit notes).
 * `supplier` is used only for an invoice issued before snapshots existed.
 */
export async function loadInvoiceDetails(
  executor: Executor,
  invoice: InvoiceRow,
  supplier: Supplier,
) {
  const snapshot = await snapshotOfInvoice(executor, invoice, supplier);
  const [paidWith] = await executor
    .select({ brand: paymentMethods.brand, last4: paymentMethods.last4 })
    .from(payments)
    .innerJoin(paymentMethods, eq(paymentMethods.id, payments.paymentMethodId))
    .where(eq(payments.invoiceId, invoice.id))
    .orderBy(desc(payments.createdAt))
    .limit(1);
  const notes = await executor
    .select()
    .from(creditNotes)
    .where(eq(creditNotes.invoiceId, invoice.id))
    .orderBy(asc(creditNotes.createdAt));
  return { snapshot, paidWith, creditNotes: notes };
}

export type InvoiceDetails = Awaited<ReturnType<typeof loadInvoiceDetails>>;

const cardName = (brand: string) => (brand === 'mastercard' ? 'Mastercard' : 'Visa');

/** "North gate (ICCID 8944…)", as the camera was named when the document was issued. */
export function cameraLabel(camera: DocumentParties['camera']): string | null {
  if (!camera) return null;
  return `${cameraNameOf(camera.nickname, camera.iccid)} (ICCID ${camera.iccid})`;
}

/**
 * The customer's name, billing address, e-mail and VAT number, as they were when the document
 * was issued (the address and VAT number once the farm gave them, decision 127).
 */
export function billedTo(customer: DocumentParties['customer']): string[] {
  return [
    customer.name,
    ...(customer.addressLines ?? []),
    customer.email,
    customer.vatNumber ? `VAT number ${customer.vatNumber}` : null,
  ].filter((line): line is string => Boolean(line));
}

/** An issued line's period, as Dates again (the snapshot keeps ISO strings). */
export function linePeriod(line: InvoiceSnapshot['lines'][number]): string | null {
  // Proration lines already name their period ("… from 15 Jan to 1 Feb 2027").
  if (line.description.includes(' from ')) return null;
  return formatPeriod(
    line.periodStart ? new Date(line.periodStart) : null,
    line.periodEnd ? new Date(line.periodEnd) : null,
  );
}

export function invoiceDocument(
  invoice: InvoiceRow,
  details: InvoiceDetails,
  isTestMode: boolean,
): BillingDocument {
  const issued = details.snapshot;
  const { supplier } = issued;
  const money = (value: number) => formatMoney(value, issued.currency);
  const period = formatPeriod(
    issued.periodStart ? new Date(issued.periodStart) : null,
    issued.periodEnd ? new Date(issued.periodEnd) : null,
  );
  const facts = [
    { label: 'Invoice number', value: invoice.number },
    { label: 'Date of issue', value: formatDay(invoice.createdAt) },
    invoice.status === 'paid'
      ? { label: 'Date paid', value: formatDay(invoice.paidAt ?? invoice.createdAt) }
      : { label: 'Status', value: invoice.status === 'open' ? 'Due on receipt' : invoice.status },
    ...(period ? [{ label: 'Billing period', value: period }] : []),
  ];
  const notes: string[] = [];
  if (invoice.status === 'paid' && invoice.amountPaid > 0 && details.paidWith) {
    notes.push(
      `Paid ${money(invoice.amountPaid)} with ${cardName(details.paidWith.brand)} ending ${details.paidWith.last4}.`,
    );
  }
  if (issued.endingBalance < 0) {
    notes.push(
      `A credit of ${money(-issued.endingBalance)} remains on your account and will be taken off your next invoice.`,
    );
  }
  for (const note of details.creditNotes) {
    notes.push(
      `Credit note ${note.number} of ${money(note.total)} issued on ${formatDay(note.createdAt)}: ${givenBack(note, money)}.`,
    );
  }
  notes.push(`Prices include VAT at ${vatPercent(issued.taxRateBasisPoints)}.`);
  return {
    title: 'Invoice',
    facts,
    supplier,
    billedTo: billedTo(issued.customer),
    camera: cameraLabel(issued.camera),
    lines: issued.lines.map((line) => ({
      description: line.description,
      detail: linePeriod(line) ?? undefined,
      amount: money(line.amount),
    })),
    totals: invoiceTotals(invoice, issued),
    notes,
    footer: `${supplier.name} · VAT number ${supplier.vatNumber} · Invoice ${invoice.number}${isTestMode ? ' · issued in test mode by the local billing engine' : ''}`,
  };
}

/** A credit note: its own row never changes; `issued` fixes its supplier, customer and camera. */
export function creditNoteDocument(
  note: CreditNoteRow,
  issued: DocumentParties,
  invoice: InvoiceRow,
  isTestMode: boolean,
): BillingDocument {
  const { supplier } = issued;
  const money = (value: number) => formatMoney(value, note.currency);
  return {
    title: 'Credit note',
    facts: [
      { label: 'Credit note number', value: note.number },
      { label: 'Date of issue', value: formatDay(note.createdAt) },
      { label: 'Invoice', value: `${invoice.number} of ${formatDay(invoice.createdAt)}` },
      { label: 'Reason', value: note.reason },
    ],
    supplier,
    billedTo: billedTo(issued.customer),
    camera: cameraLabel(issued.camera),
    lines: note.lines.map((line) => ({
      description: line.description,
      amount: money(line.amount),
    })),
    totals: [
      { label: 'Total excluding VAT', amount: money(note.total - note.tax) },
      {
        label: `VAT (${vatPercent(invoice.taxRateBasisPoints)} included)`,
        amount: money(note.tax),
      },
      { label: 'Total credited', amount: money(note.total), isBold: true },
      ...(note.refundAmount > 0
        ? [{ label: 'Refunded to your card', amount: money(note.refundAmount) }]
        : []),
      ...(note.creditAmount > 0
        ? [{ label: 'Credited to your balance', amount: money(note.creditAmount) }]
        : []),
    ],
    notes: [
      `This credit note reduces invoice ${invoice.number} by ${money(note.total)}: ${givenBack(note, money)}.`,
      ...(note.creditAmount > 0
        ? [
            `The ${money(note.creditAmount)} credited to your balance is taken off your next invoice.`,
          ]
        : []),
    ],
    footer: `${supplier.name} · VAT number ${supplier.vatNumber} · Credit note ${note.number}${isTestMode ? ' · issued in test mode by the local billing engine' : ''}`,
  };
}
