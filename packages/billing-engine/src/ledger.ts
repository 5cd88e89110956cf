/**
 * The local billing engine's ledger: the small write operations its flows are made of, each on
 * an executor (the database or a transaction) so a flow can compose them in one transaction.
 * The demo seed uses them too, so demo data is made the way the engine makes data.
 */
import { createHmac } from 'node:crypto';
import { and, asc, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '@farmcam/db';
import {
  billingCustomers,
  creditNotes,
  invoiceLines,
  invoiceNumberSequences,
  invoices,
  paymentMethods,
  payments,
  subscriptions,
} from '@farmcam/db/schema';
import { ensureDatabaseSecret } from '@farmcam/db';
import { uncounted, type EngineMetrics } from './engine-metrics.ts';
import { recordInvoicePayment, recordPayments } from '@farmcam/billing/billing-activity';
import { chargedCardOf, isCardExpired } from '@farmcam/billing/card-rules';
import { newProviderId } from '@farmcam/billing/ids';
import {
  currentParties,
  demoSupplier,
  invoiceSnapshot,
  type Supplier,
} from './invoice-snapshot.ts';
import { isFailingCard } from './test-cards.ts';

export type InvoiceRow = typeof invoices.$inferSelect;
export type PaymentMethodRow = typeof paymentMethods.$inferSelect;
export type InvoiceLineRow = typeof invoiceLines.$inferSelect;
export type CreditNoteRow = typeof creditNotes.$inferSelect;

const urlSecretKey = 'billing-engine-url-secret';

/** The secret that signs hosted-invoice URLs, made once per database and kept in app_settings. */
export function urlSecret(executor: Executor): Promise<string> {
  return ensureDatabaseSecret(executor, urlSecretKey);
}

export async function invoiceAccessToken(executor: Executor, invoiceId: string): Promise<string> {
  return accessTokenWithSecret(await urlSecret(executor), invoiceId);
}

function accessTokenWithSecret(secret: string, invoiceId: string): string {
  return createHmac('sha256', secret).update(invoiceId).digest('base64url').slice(0, 32);
}

/**
 * Hosted invoice page and PDF addresses: capability URLs (like Stripe's), signed so that knowing
 * an invoice id is not enough to open it. Relative: the API makes them absolute.
 */
export async function invoiceUrls(executor: Executor, invoiceId: string) {
  return invoiceUrlsWithSecret(await urlSecret(executor), invoiceId);
}

/** invoiceUrls with the secret read once for many invoices (the billing cycle's batches). */
export function invoiceUrlsWithSecret(secret: string, invoiceId: string) {
  const base = `/billing-engine/invoices/${invoiceId}/${accessTokenWithSecret(secret, invoiceId)}`;
  return { hostedInvoiceUrl: base, invoicePdfUrl: `${base}/pdf` };
}

export async function insertCustomer(
  executor: Executor,
  input: { id?: string; portalCustomerId: string; email: string; currency?: string },
) {
  const [row] = await executor
    .insert(billingCustomers)
    .values({
      id: input.id ?? newProviderId('cus'),
      customerId: input.portalCustomerId,
      provider: 'local',
      email: input.email,
      currency: input.currency ?? 'gbp',
    })
    .onConflictDoNothing()
    .returning();
  return row;
}

export async function insertCard(
  executor: Executor,
  input: {
    id?: string;
    billingCustomerId: string;
    brand: string;
    last4: string;
    expMonth: number;
    expYear: number;
    /** The card's fingerprint (cardFingerprint), never its number. */
    fingerprint?: string | null;
    makeDefault: boolean;
    /** When it was saved, in billing time; the database's time when absent. */
    createdAt?: Date;
  },
): Promise<PaymentMethodRow> {
  if (input.makeDefault) {
    await executor
      .update(paymentMethods)
      .set({ isDefault: false })
      .where(eq(paymentMethods.billingCustomerId, input.billingCustomerId));
  }
  const [row] = await executor
    .insert(paymentMethods)
    .values({
      id: input.id ?? newProviderId('pm'),
      billingCustomerId: input.billingCustomerId,
      brand: input.brand,
      last4: input.last4,
      expMonth: input.expMonth,
      expYear: input.expYear,
      fingerprint: input.fingerprint ?? null,
      isDefault: input.makeDefault,
      ...(input.createdAt ? { createdAt: input.createdAt } : {}),
    })
    .onConflictDoNothing()
    .returning();
  return row!;
}

/** The card a charge uses (card-rules.ts chargedCardOf), or without `now` the default. */
export async function defaultCard(
  executor: Executor,
  billingCustomerId: string,
  now?: Date,
): Promise<PaymentMethodRow | undefined> {
  const rows = await executor
    .select()
    .from(paymentMethods)
    .where(
      and(
        eq(paymentMethods.billingCustomerId, billingCustomerId),
        isNull(paymentMethods.detachedAt),
      ),
    )
    .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.createdAt));
  if (!now) return rows[0];
  return chargedCardOf(rows, now);
}

/**
 * A card's fingerprint, like Stripe's: the same number and expiry give the same value, and the
 * number cannot be read back from it. An HMAC with the database's own secret (card numbers are
 * too few to hide behind a plain hash) and the customer, so fingerprints match only within one
 * customer's cards.
 */
export async function cardFingerprint(
  executor: Executor,
  billingCustomerId: string,
  card: { number: string; expMonth: number; expYear: number },
): Promise<string> {
  return createHmac('sha256', await urlSecret(executor))
    .update(
      `card:${billingCustomerId}:${card.number.replace(/\D/g, '')}:${card.expMonth}:${card.expYear}`,
    )
    .digest('base64url');
}

export { isCardExpired };

/** The supplier's invoice numbering and VAT (docs/decisions/026). */
export interface InvoicingSettings {
  /** One gapless sequence per prefix: FC gives FC-000001, FC-000002, … */
  numberPrefix: string;
  /** VAT included in every price, in basis points (2000 = 20%). */
  vatRateBasisPoints: number;
  /** Printed on every invoice and credit note, fixed in its snapshot when issued. */
  supplier?: Supplier;
}

export const defaultInvoicing: InvoicingSettings = {
  numberPrefix: 'FC',
  vatRateBasisPoints: 2000,
  supplier: demoSupplier,
};

/**
 * The next number of the supplier's one sequence. The counter row is updated (and so locked)
 * inside the transaction that finalises the invoice: concurrent finalisations queue on it, and a
 * transaction that rolls back gives its number back, so the sequence has no gaps.
 */
export async function nextInvoiceNumber(executor: Executor, prefix: string): Promise<string> {
  const [number] = await nextInvoiceNumbers(executor, prefix, 1);
  return number!;
}

/**
 * The next `count` numbers of the sequence at once, in order, taken the same way (the counter row
 * stays locked until the transaction ends, and a rollback gives them all back).
 */
export async function nextInvoiceNumbers(
  executor: Executor,
  prefix: string,
  count: number,
): Promise<string[]> {
  if (count <= 0) return [];
  const [row] = await executor
    .insert(invoiceNumberSequences)
    .values({ prefix, lastNumber: count })
    .onConflictDoUpdate({
      target: invoiceNumberSequences.prefix,
      set: { lastNumber: sql`${invoiceNumberSequences.lastNumber} + ${count}` },
    })
    .returning({ lastNumber: invoiceNumberSequences.lastNumber });
  const first = row!.lastNumber - count + 1;
  return Array.from(
    { length: count },
    (_, offset) => `${prefix}-${String(first + offset).padStart(6, '0')}`,
  );
}

/**
 * Gives invoices made outside `issueInvoice` (the demo seed writes months of history at once)
 * their numbers in the supplier's sequence, in the order they were made.
 */
export async function numberInvoicesInCreationOrder(
  executor: Executor,
  invoicing: InvoicingSettings = defaultInvoicing,
) {
  const unnumbered = await executor
    .select({ id: invoices.id })
    .from(invoices)
    .innerJoin(billingCustomers, eq(billingCustomers.id, invoices.billingCustomerId))
    .where(
      and(
        eq(billingCustomers.provider, 'local'),
        sql`${invoices.number} !~ ${`^${invoicing.numberPrefix}-[0-9]{6}$`}`,
      ),
    )
    .orderBy(asc(invoices.createdAt), asc(invoices.id));
  for (const { id } of unnumbered) {
    await executor
      .update(invoices)
      .set({ number: await nextInvoiceNumber(executor, invoicing.numberPrefix) })
      .where(eq(invoices.id, id));
  }
}

/** The VAT within a VAT-inclusive amount, rounded to the minor unit. */
export function includedVat(amount: number, vatRateBasisPoints: number): number {
  return Math.round((amount * vatRateBasisPoints) / (10_000 + vatRateBasisPoints));
}

export interface InvoiceLineInput {
  description: string;
  /** VAT-inclusive minor units; a credit is negative. */
  amount: number;
  periodStart?: Date | null;
  periodEnd?: Date | null;
}

/**
 * Lines that wait for the customer's next invoice (Stripe's pending invoice items): a downgrade's
 * unused time is credited on the renewal that follows, as a negative line.
 */
export async function addPendingLines(
  executor: Executor,
  input: {
    billingCustomerId: string;
    subscriptionId: string | null;
    lines: InvoiceLineInput[];
    now: Date;
  },
) {
  if (input.lines.length === 0) return;
  await executor.insert(invoiceLines).values(
    input.lines.map((line, position) => ({
      id: newProviderId('il'),
      billingCustomerId: input.billingCustomerId,
      subscriptionId: input.subscriptionId,
      invoiceId: null,
      position,
      description: line.description,
      amount: line.amount,
      periodStart: line.periodStart ?? null,
      periodEnd: line.periodEnd ?? null,
      createdAt: input.now,
    })),
  );
}

/** The lines still waiting for the customer's next invoice. */
export async function pendingLines(executor: Executor, billingCustomerId: string) {
  return executor
    .select()
    .from(invoiceLines)
    .where(
      and(eq(invoiceLines.billingCustomerId, billingCustomerId), isNull(invoiceLines.invoiceId)),
    )
    .orderBy(asc(invoiceLines.createdAt), asc(invoiceLines.position));
}

/**
 * The credit the customer's next invoice will take off (minor units, 0 when none): the balance
 * left by earlier invoices and the lines still waiting, such as a downgrade's unused time.
 */
export async function availableCredit(executor: Executor, billingCustomerId: string) {
  const [customer] = await executor
    .select({ balance: billingCustomers.balance })
    .from(billingCustomers)
    .where(eq(billingCustomers.id, billingCustomerId));
  const waiting = await pendingLines(executor, billingCustomerId);
  const owed = (customer?.balance ?? 0) + waiting.reduce((sum, line) => sum + line.amount, 0);
  return Math.max(-owed, 0);
}

/** An invoice's lines in their order. */
export async function linesOfInvoices(executor: Executor, invoiceIds: string[]) {
  if (invoiceIds.length === 0) return [];
  return executor
    .select()
    .from(invoiceLines)
    .where(inArray(invoiceLines.invoiceId, invoiceIds))
    .orderBy(asc(invoiceLines.position));
}

/**
 * Finalises an invoice the way Stripe does (docs/decisions/026): the customer's pending lines
 * come first, then `lines` (or one line of `description` for `total`); the total includes VAT;
 * the customer's balance is applied (credit reduces what is due, a negative total becomes
 * credit); the number is the supplier's next, taken in this transaction. Returns it open (or
 * paid when nothing is due); charge it with `chargeInvoice`.
 */
export async function issueInvoice(
  executor: Executor,
  input: {
    id?: string;
    billingCustomerId: string;
    subscriptionId: string | null;
    description: string;
    /** Used when `lines` is not given: one line of `description`. */
    total?: number;
    lines?: InvoiceLineInput[];
    currency: string;
    periodStart: Date | null;
    periodEnd: Date | null;
    now: Date;
    invoicing?: InvoicingSettings;
  },
): Promise<InvoiceRow> {
  const invoicing = input.invoicing ?? defaultInvoicing;
  const [customer] = await executor
    .select()
    .from(billingCustomers)
    .where(eq(billingCustomers.id, input.billingCustomerId))
    .for('update');
  const waiting = await pendingLines(executor, input.billingCustomerId);
  const ownLines = input.lines ?? [
    {
      description: input.description,
      amount: input.total ?? 0,
      periodStart: input.periodStart,
      periodEnd: input.periodEnd,
    },
  ];
  const total = [...waiting, ...ownLines].reduce((sum, line) => sum + line.amount, 0);
  const startingBalance = customer?.balance ?? 0;
  const withBalance = total + startingBalance;
  const amountDue = Math.max(withBalance, 0);
  const endingBalance = Math.min(withBalance, 0);
  await executor
    .update(billingCustomers)
    .set({ balance: endingBalance })
    .where(eq(billingCustomers.id, input.billingCustomerId));

  const id = input.id ?? newProviderId('in');
  const totals = {
    currency: input.currency,
    periodStart: input.periodStart,
    periodEnd: input.periodEnd,
    subtotal: total,
    tax: includedVat(total, invoicing.vatRateBasisPoints),
    total,
    taxRateBasisPoints: invoicing.vatRateBasisPoints,
    startingBalance,
    endingBalance,
    amountDue,
  };
  // What the document shows is fixed now, in the transaction that numbers it (decision 026).
  const snapshot = invoiceSnapshot(
    await currentParties(executor, input, invoicing.supplier ?? demoSupplier),
    totals,
    [...waiting, ...ownLines],
  );
  const [row] = await executor
    .insert(invoices)
    .values({
      id,
      billingCustomerId: input.billingCustomerId,
      subscriptionId: input.subscriptionId,
      number: await nextInvoiceNumber(executor, invoicing.numberPrefix),
      status: amountDue === 0 ? 'paid' : 'open',
      amountPaid: 0,
      description: input.description,
      ...totals,
      snapshot,
      paidAt: amountDue === 0 ? input.now : null,
      createdAt: input.now,
      ...(await invoiceUrls(executor, id)),
    })
    .returning();
  let position = 0;
  for (const line of waiting) {
    await executor
      .update(invoiceLines)
      .set({ invoiceId: id, position: position++ })
      .where(eq(invoiceLines.id, line.id));
  }
  if (ownLines.length > 0) {
    await executor.insert(invoiceLines).values(
      ownLines.map((line) => ({
        id: newProviderId('il'),
        billingCustomerId: input.billingCustomerId,
        subscriptionId: input.subscriptionId,
        invoiceId: id,
        description: line.description,
        amount: line.amount,
        periodStart: line.periodStart ?? null,
        periodEnd: line.periodEnd ?? null,
        position: position++,
        createdAt: input.now,
      })),
    );
  }
  return row!;
}

/** Credit note PDF address: signed like the invoice's (a capability URL). */
export async function creditNotePdfUrl(executor: Executor, creditNoteId: string) {
  return `/billing-engine/credit-notes/${creditNoteId}/${await invoiceAccessToken(executor, creditNoteId)}/pdf`;
}

/**
 * Gives back what a paid invoice was paid, with a credit note (docs/decisions/026): its own
 * document, numbered from the invoice as Stripe numbers them (FC-000012-CN-01). The invoice
 * stays paid, as Stripe's does. What the card paid is refunded to the card (the payments are
 * marked refunded); what the customer's credit balance paid goes back to the balance, to be
 * taken off the next invoice, as a Stripe credit note's `refund_amount` and `credit_amount`
 * (docs/decisions/108). Giving back again gives back only what was not given back yet.
 */
export async function issueRefundCreditNote(
  executor: Executor,
  input: { invoiceId: string; reason: string; now: Date; invoicing?: InvoicingSettings },
): Promise<CreditNoteRow | undefined> {
  const [invoice] = await executor
    .select()
    .from(invoices)
    .where(eq(invoices.id, input.invoiceId))
    .for('update');
  if (!invoice || invoice.status !== 'paid') return undefined;
  const refunded = await executor
    .update(payments)
    .set({ status: 'refunded', failureReason: input.reason })
    .where(and(eq(payments.invoiceId, invoice.id), eq(payments.status, 'succeeded')))
    .returning({ amount: payments.amount });
  const refundAmount = refunded.reduce((sum, payment) => sum + payment.amount, 0);
  const earlierNotes = await executor
    .select({ creditAmount: creditNotes.creditAmount })
    .from(creditNotes)
    .where(eq(creditNotes.invoiceId, invoice.id));
  const creditAmount = Math.max(
    paidFromBalance(invoice) - earlierNotes.reduce((sum, note) => sum + note.creditAmount, 0),
    0,
  );
  const total = refundAmount + creditAmount;
  if (total <= 0) return undefined;
  if (creditAmount > 0) {
    await executor
      .update(billingCustomers)
      .set({ balance: sql`${billingCustomers.balance} - ${creditAmount}` })
      .where(eq(billingCustomers.id, invoice.billingCustomerId));
  }
  const invoiceLinesNow = await linesOfInvoices(executor, [invoice.id]);
  // A full refund of the whole invoice credits its lines; anything else is one line.
  const lines =
    total === invoice.total && invoiceLinesNow.length > 0
      ? invoiceLinesNow.map((line) => ({ description: line.description, amount: line.amount }))
      : [{ description: `Refund of invoice ${invoice.number}`, amount: total }];
  const [row] = await executor
    .insert(creditNotes)
    .values({
      id: newProviderId('cn'),
      invoiceId: invoice.id,
      number: `${invoice.number}-CN-${String(earlierNotes.length + 1).padStart(2, '0')}`,
      total,
      tax: includedVat(total, invoice.taxRateBasisPoints),
      currency: invoice.currency,
      reason: input.reason,
      lines,
      refundAmount,
      creditAmount,
      snapshot: await currentParties(executor, invoice, input.invoicing?.supplier ?? demoSupplier),
      createdAt: input.now,
    })
    .returning();
  return row;
}

/**
 * The part of an invoice the customer's credit balance paid: the credit it took off, Stripe's
 * `starting_balance` less `ending_balance` when that is a credit (a debt collected is not).
 */
export function paidFromBalance(invoice: Pick<InvoiceRow, 'startingBalance' | 'endingBalance'>) {
  return Math.max(invoice.endingBalance - invoice.startingBalance, 0);
}

export type ChargeOutcome =
  { isPaid: true; paymentId: string } | { isPaid: false; reason: string; paymentId: string | null };

/**
 * Charges an open invoice to a card (the default one unless given). Records the payment either
 * way; a paid invoice is marked paid. `attemptCount` counts as Stripe's does: every automatic
 * attempt (the renewal charge and each scheduled retry), and a customer's own attempt only when
 * it is the first; a paid invoice has no next attempt.
 */
export async function chargeInvoice(
  executor: Executor,
  invoice: InvoiceRow,
  now: Date,
  card?: PaymentMethodRow,
  options: { isAutomatic?: boolean; metrics?: EngineMetrics } = {},
): Promise<ChargeOutcome> {
  const metrics = options.metrics ?? uncounted;
  const attemptCount = options.isAutomatic
    ? invoice.attemptCount + 1
    : Math.max(invoice.attemptCount, 1);
  if (attemptCount !== invoice.attemptCount) {
    await executor.update(invoices).set({ attemptCount }).where(eq(invoices.id, invoice.id));
  }
  const paymentCard = card ?? (await defaultCard(executor, invoice.billingCustomerId, now));
  if (!paymentCard) {
    metrics.countPayments(false);
    const reason = 'There is no card on file.';
    await recordInvoicePayment(executor, {
      invoiceId: invoice.id,
      isPaid: false,
      amount: invoice.amountDue - invoice.amountPaid,
      currency: invoice.currency,
      reason,
      at: now,
    });
    return { isPaid: false, reason, paymentId: null };
  }
  const failure = isCardExpired(paymentCard, now)
    ? 'Your card has expired. Add a new card and try again.'
    : isFailingCard(paymentCard.last4)
      ? 'Your card was declined. Use another card and try again.'
      : null;
  const paymentId = newProviderId('py');
  await executor.insert(payments).values({
    id: paymentId,
    invoiceId: invoice.id,
    paymentMethodId: paymentCard.id,
    amount: invoice.amountDue - invoice.amountPaid,
    currency: invoice.currency,
    status: failure ? 'failed' : 'succeeded',
    failureReason: failure,
    createdAt: now,
  });
  metrics.countPayments(!failure);
  await recordPayments(executor, [paymentId]);
  if (failure) return { isPaid: false, reason: failure, paymentId };
  await executor
    .update(invoices)
    .set({ status: 'paid', amountPaid: invoice.amountDue, paidAt: now, nextPaymentAttempt: null })
    .where(eq(invoices.id, invoice.id));
  return { isPaid: true, paymentId };
}

/** Whether the subscription still has unpaid invoices. */
export async function hasOpenInvoices(executor: Executor, subscriptionId: string) {
  const [row] = await executor
    .select({ total: count() })
    .from(invoices)
    .where(and(eq(invoices.subscriptionId, subscriptionId), eq(invoices.status, 'open')));
  return Number(row?.total ?? 0) > 0;
}

/** Locks and returns a subscription for the rest of the transaction. */
export async function lockSubscription(executor: Executor, subscriptionId: string) {
  const [row] = await executor
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.id, subscriptionId))
    .for('update');
  return row;
}
