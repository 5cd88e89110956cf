/**
 * What an issued invoice or credit note shows, fixed when it is finalised (docs/decisions/026):
 * the supplier, the customer, the camera, and for an invoice its period, lines and totals. The
 * PDF and the hosted invoice page render from it, so a camera renamed or SUPPLIER_* changed
 * later leaves documents already issued as they were, as a bookkeeper expects.
 * Documents issued before snapshots existed get theirs on first read, from that day's data.
 */
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '@farmcam/db';
import {
  billingCustomers,
  creditNotes,
  customers,
  invoiceLines,
  invoices,
  sims,
  subscriptions,
  type BillingDetails,
  type DocumentParties,
  type InvoiceSnapshot,
} from '@farmcam/db/schema';

export type { DocumentParties, InvoiceSnapshot };

/** The business that issues the invoices (SUPPLIER_* configuration). */
export type Supplier = DocumentParties['supplier'];

/** The stand-ins config.ts uses outside production when SUPPLIER_* is not set. */
export const demoSupplier: Supplier = {
  name: 'Farmcam Demo Ltd',
  addressLines: ['1 Demo Farm Lane', 'Exampleton', 'EX1 2MP', 'United Kingdom'],
  vatNumber: 'GB 000 0000 00 (demo)',
};

type InvoiceRow = typeof invoices.$inferSelect;
type CreditNoteRow = typeof creditNotes.$inferSelect;

/** The supplier, and the customer and camera as they are now. */
export async function currentParties(
  executor: Executor,
  of: { billingCustomerId: string; subscriptionId: string | null },
  supplier: Supplier,
): Promise<DocumentParties> {
  const [customer] = await executor
    .select({
      email: billingCustomers.email,
      name: customers.name,
      details: billingCustomers.details,
    })
    .from(billingCustomers)
    .innerJoin(customers, eq(customers.id, billingCustomers.customerId))
    .where(eq(billingCustomers.id, of.billingCustomerId));
  // The subscription's camera; an invoice without one (none yet) names the customer's camera.
  const [camera] = of.subscriptionId
    ? await executor
        .select({ nickname: sims.nickname, iccid: sims.iccid })
        .from(subscriptions)
        .innerJoin(sims, eq(sims.iccid, subscriptions.simIccid))
        .where(eq(subscriptions.id, of.subscriptionId))
    : await executor
        .select({ nickname: sims.nickname, iccid: sims.iccid })
        .from(sims)
        .where(eq(sims.billingCustomerId, of.billingCustomerId))
        .limit(1);
  return {
    supplier: {
      name: supplier.name,
      addressLines: [...supplier.addressLines],
      vatNumber: supplier.vatNumber,
    },
    customer: customerParty(customer),
    camera: camera ? { nickname: camera.nickname ?? null, iccid: camera.iccid } : null,
  };
}

/**
 * The customer as a document names them: the farm's billing name, address and VAT number once
 * it gave them (decision 127), else the account's name; and the e-mail.
 */
export function customerParty(
  customer:
    { name: string | null; email: string | null; details: BillingDetails | null } | undefined,
): DocumentParties['customer'] {
  return {
    name: customer?.details?.name ?? customer?.name ?? null,
    email: customer?.email ?? null,
    ...(customer?.details && {
      addressLines: addressLinesOf(customer.details),
      vatNumber: customer.details.vatNumber,
    }),
  };
}

/** A billing address as the lines an invoice prints under the name. */
export const addressLinesOf = (details: BillingDetails): string[] =>
  [details.line1, details.line2, details.town, details.postcode, 'United Kingdom'].filter(
    (line): line is string => Boolean(line),
  );

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** The snapshot of an invoice being finalised, from its parties, row values and lines. */
export function invoiceSnapshot(
  parties: DocumentParties,
  invoice: Pick<
    InvoiceRow,
    | 'currency'
    | 'periodStart'
    | 'periodEnd'
    | 'subtotal'
    | 'tax'
    | 'total'
    | 'taxRateBasisPoints'
    | 'startingBalance'
    | 'endingBalance'
    | 'amountDue'
  >,
  lines: {
    description: string;
    amount: number;
    periodStart?: Date | null;
    periodEnd?: Date | null;
  }[],
): InvoiceSnapshot {
  return {
    ...parties,
    currency: invoice.currency,
    periodStart: iso(invoice.periodStart),
    periodEnd: iso(invoice.periodEnd),
    lines: lines.map((line) => ({
      description: line.description,
      amount: line.amount,
      periodStart: iso(line.periodStart),
      periodEnd: iso(line.periodEnd),
    })),
    subtotal: invoice.subtotal,
    tax: invoice.tax,
    total: invoice.total,
    taxRateBasisPoints: invoice.taxRateBasisPoints,
    startingBalance: invoice.startingBalance,
    endingBalance: invoice.endingBalance,
    amountDue: invoice.amountDue,
  };
}

/**
 * The invoice's snapshot; one issued before snapshots existed gets it now, from today's data,
 * and keeps it (the first reader's wins if two race).
 */
export async function snapshotOfInvoice(
  executor: Executor,
  invoice: InvoiceRow,
  supplier: Supplier,
): Promise<InvoiceSnapshot> {
  if (invoice.snapshot) return invoice.snapshot;
  const lines = await executor
    .select()
    .from(invoiceLines)
    .where(eq(invoiceLines.invoiceId, invoice.id))
    .orderBy(asc(invoiceLines.position));
  const snapshot = invoiceSnapshot(
    await currentParties(executor, invoice, supplier),
    invoice,
    lines,
  );
  const [stored] = await executor
    .update(invoices)
    .set({ snapshot })
    .where(and(eq(invoices.id, invoice.id), isNull(invoices.snapshot)))
    .returning({ snapshot: invoices.snapshot });
  if (stored?.snapshot) return stored.snapshot;
  const [row] = await executor
    .select({ snapshot: invoices.snapshot })
    .from(invoices)
    .where(eq(invoices.id, invoice.id));
  return row?.snapshot ?? snapshot;
}

/** A credit note's parties; filled on first read for one issued before snapshots existed. */
export async function snapshotOfCreditNote(
  executor: Executor,
  note: CreditNoteRow,
  invoice: InvoiceRow,
  supplier: Supplier,
): Promise<DocumentParties> {
  if (note.snapshot) return note.snapshot;
  const parties = await currentParties(executor, invoice, supplier);
  const [stored] = await executor
    .update(creditNotes)
    .set({ snapshot: parties })
    .where(and(eq(creditNotes.id, note.id), isNull(creditNotes.snapshot)))
    .returning({ snapshot: creditNotes.snapshot });
  if (stored?.snapshot) return stored.snapshot;
  const [row] = await executor
    .select({ snapshot: creditNotes.snapshot })
    .from(creditNotes)
    .where(eq(creditNotes.id, note.id));
  return row?.snapshot ?? parties;
}
