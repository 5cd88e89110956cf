/**
 * The local billing engine's ledger: the small write operations its flows are made of, each on
 * an executor (the database or a transaction) so a flow can compose them in one transaction.
 * The demo seed uses them too, so demo data is made the way the engine makes data.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { and, count, desc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import {
  appSettings,
  billingCustomers,
  invoices,
  paymentMethods,
  payments,
  subscriptions,
} from '../../../db/schema.ts';
import { newProviderId } from '../ids.ts';
import { isFailingCard } from './test-cards.ts';

export type InvoiceRow = typeof invoices.$inferSelect;
export type PaymentMethodRow = typeof paymentMethods.$inferSelect;

const urlSecretKey = 'billing-engine-url-secret';

/** The secret that signs hosted-invoice URLs, made once per database and kept in app_settings. */
async function urlSecret(executor: Executor): Promise<string> {
  const [existing] = await executor
    .select()
    .from(appSettings)
    .where(eq(appSettings.key, urlSecretKey));
  if (existing) return String(existing.value);
  await executor
    .insert(appSettings)
    .values({ key: urlSecretKey, value: randomBytes(32).toString('base64url') })
    .onConflictDoNothing();
  const [row] = await executor.select().from(appSettings).where(eq(appSettings.key, urlSecretKey));
  return String(row!.value);
}

export async function invoiceAccessToken(executor: Executor, invoiceId: string): Promise<string> {
  return createHmac('sha256', await urlSecret(executor))
    .update(invoiceId)
    .digest('base64url')
    .slice(0, 32);
}

/**
 * Hosted invoice page and PDF addresses: capability URLs (like Stripe's), signed so that knowing
 * an invoice id is not enough to open it. Relative: the API makes them absolute.
 */
export async function invoiceUrls(executor: Executor, invoiceId: string) {
  const base = `/billing-engine/invoices/${invoiceId}/${await invoiceAccessToken(executor, invoiceId)}`;
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
    makeDefault: boolean;
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
      isDefault: input.makeDefault,
    })
    .onConflictDoNothing()
    .returning();
  return row!;
}

export async function defaultCard(
  executor: Executor,
  billingCustomerId: string,
): Promise<PaymentMethodRow | undefined> {
  const [row] = await executor
    .select()
    .from(paymentMethods)
    .where(
      and(
        eq(paymentMethods.billingCustomerId, billingCustomerId),
        isNull(paymentMethods.detachedAt),
      ),
    )
    .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.createdAt))
    .limit(1);
  return row;
}

export function isCardExpired(card: { expMonth: number; expYear: number }, now: Date): boolean {
  // A card is valid to the end of its expiry month.
  return (
    card.expYear < now.getUTCFullYear() ||
    (card.expYear === now.getUTCFullYear() && card.expMonth < now.getUTCMonth() + 1)
  );
}

export async function nextInvoiceNumber(
  executor: Executor,
  billingCustomerId: string,
): Promise<string> {
  const [row] = await executor
    .select({ total: count() })
    .from(invoices)
    .where(eq(invoices.billingCustomerId, billingCustomerId));
  const prefix = billingCustomerId.slice(-6).toUpperCase();
  return `FC-${prefix}-${String(Number(row?.total ?? 0) + 1).padStart(4, '0')}`;
}

/**
 * Issues an invoice for `total`, applying the customer's balance the way Stripe does: credit
 * reduces what is due, and a negative total becomes credit. Returns it open (or paid when
 * nothing is due); charge it with `chargeInvoice`.
 */
export async function issueInvoice(
  executor: Executor,
  input: {
    id?: string;
    number?: string;
    billingCustomerId: string;
    subscriptionId: string | null;
    description: string;
    total: number;
    currency: string;
    periodStart: Date | null;
    periodEnd: Date | null;
    now: Date;
  },
): Promise<InvoiceRow> {
  const [customer] = await executor
    .select()
    .from(billingCustomers)
    .where(eq(billingCustomers.id, input.billingCustomerId))
    .for('update');
  const withBalance = input.total + (customer?.balance ?? 0);
  const amountDue = Math.max(withBalance, 0);
  await executor
    .update(billingCustomers)
    .set({ balance: Math.min(withBalance, 0) })
    .where(eq(billingCustomers.id, input.billingCustomerId));

  const id = input.id ?? newProviderId('in');
  const [row] = await executor
    .insert(invoices)
    .values({
      id,
      billingCustomerId: input.billingCustomerId,
      subscriptionId: input.subscriptionId,
      number: input.number ?? (await nextInvoiceNumber(executor, input.billingCustomerId)),
      status: amountDue === 0 ? 'paid' : 'open',
      amountDue,
      amountPaid: 0,
      currency: input.currency,
      description: input.description,
      periodStart: input.periodStart,
      periodEnd: input.periodEnd,
      paidAt: amountDue === 0 ? input.now : null,
      createdAt: input.now,
      ...(await invoiceUrls(executor, id)),
    })
    .returning();
  return row!;
}

export type ChargeOutcome =
  { isPaid: true; paymentId: string } | { isPaid: false; reason: string; paymentId: string | null };

/**
 * Charges an open invoice to a card (the default one unless given). Records the payment either
 * way; a paid invoice is marked paid.
 */
export async function chargeInvoice(
  executor: Executor,
  invoice: InvoiceRow,
  now: Date,
  card?: PaymentMethodRow,
): Promise<ChargeOutcome> {
  const paymentCard = card ?? (await defaultCard(executor, invoice.billingCustomerId));
  if (!paymentCard) return { isPaid: false, reason: 'There is no card on file.', paymentId: null };
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
  if (failure) return { isPaid: false, reason: failure, paymentId };
  await executor
    .update(invoices)
    .set({ status: 'paid', amountPaid: invoice.amountDue, paidAt: now })
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
