/**
 * What an invoice or credit note says, read from the ledger and laid out for the PDF and the
 * hosted invoice page alike (docs/decisions/026): lines, VAT and totals the way Stripe prints
 * VAT-inclusive prices, the supplier from configuration, the customer and the camera.
 */
import { asc, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import {
  billingCustomers,
  creditNotes,
  customers,
  paymentMethods,
  payments,
  sims,
  subscriptions,
} from '../../../db/schema.ts';
import { formatDay, formatMoney } from '../money.ts';
import type { BillingDocument, PdfTotal } from './invoice-pdf.ts';
import { linesOfInvoices, type CreditNoteRow, type InvoiceRow } from './ledger.ts';

/** The business that issues the invoices (SUPPLIER_* configuration). */
export interface Supplier {
  name: string;
  addressLines: string[];
  vatNumber: string;
}

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

/** The totals block, Stripe's order: subtotal, VAT, total, balance, amount due, paid, remaining. */
export function invoiceTotals(invoice: InvoiceRow): PdfTotal[] {
  const money = (value: number) => formatMoney(value, invoice.currency);
  const applied = invoice.startingBalance - invoice.endingBalance;
  return [
    { label: 'Subtotal', amount: money(invoice.subtotal) },
    { label: 'Total excluding VAT', amount: money(invoice.total - invoice.tax) },
    {
      label: `VAT (${vatPercent(invoice.taxRateBasisPoints)} included)`,
      amount: money(invoice.tax),
    },
    { label: 'Total', amount: money(invoice.total), isBold: true },
    ...(applied < 0
      ? [{ label: 'Credit applied from your balance', amount: money(applied) }]
      : applied > 0
        ? [{ label: 'Credit carried to your balance', amount: money(applied) }]
        : []),
    { label: 'Amount due', amount: money(invoice.amountDue), isBold: true },
    { label: 'Amount paid', amount: money(invoice.amountPaid) },
    { label: 'Amount remaining', amount: money(invoice.amountDue - invoice.amountPaid) },
  ];
}

/** Everything an invoice's documents show, in one read. */
export async function loadInvoiceDetails(executor: Executor, invoice: InvoiceRow) {
  const lines = await linesOfInvoices(executor, [invoice.id]);
  const [customer] = await executor
    .select({ email: billingCustomers.email, name: customers.name })
    .from(billingCustomers)
    .innerJoin(customers, eq(customers.id, billingCustomers.customerId))
    .where(eq(billingCustomers.id, invoice.billingCustomerId));
  const [camera] = invoice.subscriptionId
    ? await executor
        .select({ nickname: sims.nickname, iccid: sims.iccid })
        .from(subscriptions)
        .innerJoin(sims, eq(sims.iccid, subscriptions.simIccid))
        .where(eq(subscriptions.id, invoice.subscriptionId))
    : await executor
        .select({ nickname: sims.nickname, iccid: sims.iccid })
        .from(sims)
        .where(eq(sims.billingCustomerId, invoice.billingCustomerId))
        .limit(1);
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
  return { lines, customer, camera, paidWith, creditNotes: notes };
}

export type InvoiceDetails = Awaited<ReturnType<typeof loadInvoiceDetails>>;

const cardName = (brand: string) => (brand === 'mastercard' ? 'Mastercard' : 'Visa');

function cameraLabel(camera: InvoiceDetails['camera']): string | null {
  if (!camera) return null;
  return `${camera.nickname ?? 'Camera'} (ICCID ${camera.iccid})`;
}

function billedTo(customer: InvoiceDetails['customer']): string[] {
  return [customer?.name, customer?.email].filter((line): line is string => Boolean(line));
}

export function invoiceDocument(
  invoice: InvoiceRow,
  details: InvoiceDetails,
  supplier: Supplier,
  isTestMode: boolean,
): BillingDocument {
  const money = (value: number) => formatMoney(value, invoice.currency);
  const period = formatPeriod(invoice.periodStart, invoice.periodEnd);
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
  if (invoice.endingBalance < 0) {
    notes.push(
      `A credit of ${money(-invoice.endingBalance)} remains on your account and will be taken off your next invoice.`,
    );
  }
  for (const note of details.creditNotes) {
    notes.push(
      `Credit note ${note.number} of ${money(note.total)} issued on ${formatDay(note.createdAt)}: ${money(note.refundAmount)} refunded to your card.`,
    );
  }
  notes.push(`Prices include VAT at ${vatPercent(invoice.taxRateBasisPoints)}.`);
  return {
    title: 'Invoice',
    facts,
    supplier,
    billedTo: billedTo(details.customer),
    camera: cameraLabel(details.camera),
    lines: details.lines.map((line) => {
      const linePeriod = formatPeriod(line.periodStart, line.periodEnd);
      return {
        description: line.description,
        // Proration lines already name their period ("… from 15 Jan to 1 Feb 2027").
        detail: linePeriod && !line.description.includes(' from ') ? linePeriod : undefined,
        amount: money(line.amount),
      };
    }),
    totals: invoiceTotals(invoice),
    notes,
    footer: `${supplier.name} · VAT number ${supplier.vatNumber} · Invoice ${invoice.number}${isTestMode ? ' · issued in test mode by the local billing engine' : ''}`,
  };
}

export function creditNoteDocument(
  note: CreditNoteRow,
  invoice: InvoiceRow,
  details: InvoiceDetails,
  supplier: Supplier,
  isTestMode: boolean,
): BillingDocument {
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
    billedTo: billedTo(details.customer),
    camera: cameraLabel(details.camera),
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
      { label: 'Refunded to your card', amount: money(note.refundAmount) },
    ],
    notes: [
      `This credit note reduces invoice ${invoice.number} by ${money(note.total)}; ${money(note.refundAmount)} was refunded to the card it was paid with.`,
    ],
    footer: `${supplier.name} · VAT number ${supplier.vatNumber} · Credit note ${note.number}${isTestMode ? ' · issued in test mode by the local billing engine' : ''}`,
  };
}
