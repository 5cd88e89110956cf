/**
 * Renewals in batches (docs/decisions/075). The billing cycle renews the subscriptions due in
 * chunks, one transaction per chunk. Most renewals are plain: an active subscription one period
 * due, not paused, whose customer has no balance and no lines waiting, with a default card that
 * will be charged successfully. For those, what the one-at-a-time renewal reads with a dozen
 * statements each is read here once for the whole chunk, and what it writes (the invoice already
 * paid, its line, the payment, the subscription a period on) is written with one statement per
 * table. The rows are the ones the one-at-a-time renewal leaves behind; anything else (a
 * decline, a pause, a credit, several periods due...) is left to it.
 */
import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '@farmcam/db';
import type { EngineMetrics } from './engine-metrics.ts';
import {
  billingCustomers,
  customers,
  invoiceLines,
  invoices,
  paymentMethods,
  payments,
  prices,
  products,
  sims,
  subscriptions,
  type BillingDetails,
} from '@farmcam/db/schema';
import type { SubscriptionRow } from '@farmcam/billing';
import { recordPayments } from '@farmcam/billing/billing-activity';
import { newProviderId } from '@farmcam/billing/ids';
import { isPeriodPaused } from '@farmcam/billing/pause-policy';
import { periodEndOnAnchor } from '@farmcam/billing/billing-cycle-anchor';
import { customerParty, invoiceSnapshot, type DocumentParties } from './invoice-snapshot.ts';
import { isFencedOff, readRestoreFence } from './restore-fence.ts';
import {
  defaultInvoicing,
  includedVat,
  invoiceUrlsWithSecret,
  isCardExpired,
  nextInvoiceNumbers,
  urlSecret,
  type InvoicingSettings,
  type PaymentMethodRow,
} from './ledger.ts';
import { isFailingCard } from './test-cards.ts';

type PriceWithProduct = {
  price: typeof prices.$inferSelect;
  product: typeof products.$inferSelect;
};

/** What a chunk's renewals need, read with one statement per table, its rows locked. */
export interface RenewalChunk {
  subscriptions: Map<string, SubscriptionRow>;
  prices: Map<string, PriceWithProduct>;
  /** Customers with no balance and no lines waiting (the others renew one at a time). */
  plainCustomers: Map<
    string,
    { email: string; name: string | null; details: BillingDetails | null }
  >;
  /** Each customer's cards in defaultCard's order. */
  cards: Map<string, PaymentMethodRow[]>;
  cameras: Map<string, { nickname: string | null; iccid: string }>;
  secret: string;
  /** A restore's billing fence (docs/decisions/109), or null. */
  fence: Date | null;
}

/**
 * Locks the chunk's subscriptions and their billing customers (in id order, the same order for
 * every chunk) and reads what their renewals need.
 */
export async function readRenewalChunk(
  executor: Executor,
  subscriptionIds: string[],
): Promise<RenewalChunk> {
  const lockedSubscriptions = await executor
    .select()
    .from(subscriptions)
    .where(inArray(subscriptions.id, subscriptionIds))
    .orderBy(asc(subscriptions.id))
    .for('update');
  const customerIds = [...new Set(lockedSubscriptions.map((row) => row.billingCustomerId))];
  const priceIds = [...new Set(lockedSubscriptions.map((row) => row.priceId))];
  const priceRows =
    priceIds.length === 0
      ? []
      : await executor
          .select({ price: prices, product: products })
          .from(prices)
          .innerJoin(products, eq(products.id, prices.productId))
          .where(inArray(prices.id, priceIds));
  const customerRows =
    customerIds.length === 0
      ? []
      : await executor
          .select({
            id: billingCustomers.id,
            balance: billingCustomers.balance,
            email: billingCustomers.email,
            name: customers.name,
            details: billingCustomers.details,
          })
          .from(billingCustomers)
          .innerJoin(customers, eq(customers.id, billingCustomers.customerId))
          .where(inArray(billingCustomers.id, customerIds))
          .orderBy(asc(billingCustomers.id))
          .for('update', { of: billingCustomers });
  const waiting =
    customerIds.length === 0
      ? []
      : await executor
          .select({ billingCustomerId: invoiceLines.billingCustomerId })
          .from(invoiceLines)
          .where(
            and(
              inArray(invoiceLines.billingCustomerId, customerIds),
              isNull(invoiceLines.invoiceId),
            ),
          );
  const withWaitingLines = new Set(waiting.map((row) => row.billingCustomerId));
  const cardRows =
    customerIds.length === 0
      ? []
      : await executor
          .select()
          .from(paymentMethods)
          .where(
            and(
              inArray(paymentMethods.billingCustomerId, customerIds),
              isNull(paymentMethods.detachedAt),
            ),
          )
          .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.createdAt));
  const cameraRows =
    lockedSubscriptions.length === 0
      ? []
      : await executor
          .select({ subscriptionId: subscriptions.id, nickname: sims.nickname, iccid: sims.iccid })
          .from(subscriptions)
          .innerJoin(sims, eq(sims.iccid, subscriptions.simIccid))
          .where(inArray(subscriptions.id, subscriptionIds));
  const cards = new Map<string, PaymentMethodRow[]>();
  for (const card of cardRows) {
    const list = cards.get(card.billingCustomerId) ?? [];
    list.push(card);
    cards.set(card.billingCustomerId, list);
  }
  return {
    subscriptions: new Map(lockedSubscriptions.map((row) => [row.id, row])),
    prices: new Map(priceRows.map((row) => [row.price.id, row])),
    plainCustomers: new Map(
      customerRows
        .filter((row) => row.balance === 0 && !withWaitingLines.has(row.id))
        .map((row) => [row.id, { email: row.email, name: row.name, details: row.details }]),
    ),
    cards,
    cameras: new Map(
      cameraRows.map((row) => [row.subscriptionId, { nickname: row.nickname, iccid: row.iccid }]),
    ),
    secret: await urlSecret(executor),
    fence: await readRestoreFence(executor),
  };
}

/** A plain renewal, ready to be written with others (writeRenewals). */
export interface PlainRenewal {
  subscription: SubscriptionRow;
  price: PriceWithProduct;
  card: PaymentMethodRow;
  parties: DocumentParties;
  start: Date;
  end: Date;
}

/**
 * The subscription's renewal at `now` when it is plain (see the file's comment), else null: it
 * is then renewed one at a time. Mirrors the checks of the one-at-a-time renewal.
 */
export function plainRenewal(
  chunk: RenewalChunk,
  subscriptionId: string,
  now: Date,
  supplier: DocumentParties['supplier'],
): PlainRenewal | null {
  const subscription = chunk.subscriptions.get(subscriptionId);
  if (!subscription || subscription.status !== 'active' || subscription.currentPeriodEnd > now) {
    return null;
  }
  const price = chunk.prices.get(subscription.priceId);
  const customer = chunk.plainCustomers.get(subscription.billingCustomerId);
  if (!price || !customer || price.price.unitAmount <= 0) return null;
  const start = subscription.currentPeriodEnd;
  const end = periodEndOnAnchor(subscription.billingCycleAnchor, start, price.price.interval);
  // Several periods due, or one in a pause: the loop of the one-at-a-time renewal.
  if (end <= now) return null;
  if (isPeriodPaused(subscription, start) || isFencedOff(chunk.fence, start)) return null;
  // defaultCard's choice at the charge's time: the first unexpired card, else the first.
  const cards = chunk.cards.get(subscription.billingCustomerId) ?? [];
  const card = cards.find((candidate) => !isCardExpired(candidate, start)) ?? cards[0];
  if (!card || isCardExpired(card, start) || isFailingCard(card.last4)) return null;
  const camera = chunk.cameras.get(subscriptionId);
  return {
    subscription,
    price,
    card,
    parties: {
      supplier: {
        name: supplier.name,
        addressLines: [...supplier.addressLines],
        vatNumber: supplier.vatNumber,
      },
      customer: customerParty(customer),
      camera: camera ? { nickname: camera.nickname ?? null, iccid: camera.iccid } : null,
    },
    start,
    end,
  };
}

/**
 * Writes plain renewals, in order, as the one-at-a-time renewal would have left them: each
 * invoice numbered next in the sequence, paid at its period start by its one automatic attempt,
 * with its line and succeeded payment, and the subscription a period on. (The customer's balance
 * is left at the 0 it was: the one-at-a-time renewal writes the same 0.)
 */
export async function writeRenewals(
  executor: Executor,
  renewals: PlainRenewal[],
  describe: (price: PriceWithProduct) => string,
  secret: string,
  invoicing: InvoicingSettings = defaultInvoicing,
  metrics?: EngineMetrics,
): Promise<void> {
  if (renewals.length === 0) return;
  const numbers = await nextInvoiceNumbers(executor, invoicing.numberPrefix, renewals.length);
  const rows = renewals.map((renewal, index) => {
    const { subscription, price, start, end } = renewal;
    const id = newProviderId('in');
    const total = price.price.unitAmount;
    const description = describe(price);
    const totals = {
      currency: price.price.currency,
      periodStart: start,
      periodEnd: end,
      subtotal: total,
      tax: includedVat(total, invoicing.vatRateBasisPoints),
      total,
      taxRateBasisPoints: invoicing.vatRateBasisPoints,
      startingBalance: 0,
      endingBalance: 0,
      amountDue: total,
    };
    const line = { description, amount: total, periodStart: start, periodEnd: end };
    return {
      invoice: {
        id,
        billingCustomerId: subscription.billingCustomerId,
        subscriptionId: subscription.id,
        number: numbers[index]!,
        status: 'paid' as const,
        amountPaid: total,
        description,
        ...totals,
        snapshot: invoiceSnapshot(renewal.parties, totals, [line]),
        paidAt: start,
        attemptCount: 1,
        nextPaymentAttempt: null,
        createdAt: start,
        ...invoiceUrlsWithSecret(secret, id),
      },
      line: {
        id: newProviderId('il'),
        billingCustomerId: subscription.billingCustomerId,
        subscriptionId: subscription.id,
        invoiceId: id,
        ...line,
        position: 0,
        createdAt: start,
      },
      payment: {
        id: newProviderId('py'),
        invoiceId: id,
        paymentMethodId: renewal.card.id,
        amount: total,
        currency: price.price.currency,
        status: 'succeeded' as const,
        failureReason: null,
        createdAt: start,
      },
    };
  });
  await executor.insert(invoices).values(rows.map((row) => row.invoice));
  await executor.insert(invoiceLines).values(rows.map((row) => row.line));
  await executor.insert(payments).values(rows.map((row) => row.payment));
  // On each account's activity log, as chargeInvoice records a payment (decision 092).
  await recordPayments(
    executor,
    rows.map((row) => row.payment.id),
  );
  // Every batched renewal's payment went through; declines take chargeInvoice (decision 071).
  metrics?.countPayments(true, rows.length);
  const moves = renewals.map(
    ({ subscription, start, end }) =>
      sql`(${subscription.id}, ${start.toISOString()}::timestamptz, ${end.toISOString()}::timestamptz)`,
  );
  await executor.execute(sql`
    update ${subscriptions}
       set current_period_start = moved.period_start,
           current_period_end = moved.period_end,
           updated_at = moved.period_start
      from (values ${sql.join(moves, sql`, `)}) as moved (id, period_start, period_end)
     where ${subscriptions.id} = moved.id`);
}
