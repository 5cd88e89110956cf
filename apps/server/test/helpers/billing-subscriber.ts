import { eq } from 'drizzle-orm';
import type { Database } from '../../src/db/client.ts';
import { billingCustomers, sims, subscriptions } from '../../src/db/schema.ts';
import { chargeInvoice, insertCard, insertCustomer, issueInvoice } from '@farmcam/billing-engine';

/**
 * A camera of `portalCustomerId` on Heavy monthly for the period given, with a Visa card on file
 * and its first invoice issued and paid, as the local engine leaves a new subscriber.
 */
export async function createPaidHeavySubscriber(
  db: Database,
  options: {
    portalCustomerId: string;
    serial: number;
    nickname: string;
    periodStart: Date;
    periodEnd: Date;
    /** The customer's credit balance before the invoice (negative: credit), default none. */
    balance?: number;
    /** The engine's invoicing settings (supplier, prefix); the ledger's defaults when absent. */
    invoicing?: Parameters<typeof issueInvoice>[1]['invoicing'];
  },
) {
  const { portalCustomerId, serial, nickname, periodStart, periodEnd } = options;
  const iccid = `894411000000${String(serial).padStart(7, '0')}`;
  await db.insert(sims).values({ iccid, state: 'active', customerId: portalCustomerId, nickname });
  const customer = await insertCustomer(db, { portalCustomerId, email: 'meg@hill-farm.example' });
  const billingCustomerId = customer!.id;
  if (options.balance) {
    await db
      .update(billingCustomers)
      .set({ balance: options.balance })
      .where(eq(billingCustomers.id, billingCustomerId));
  }
  await insertCard(db, {
    billingCustomerId,
    brand: 'visa',
    last4: '4242',
    expMonth: 12,
    expYear: 2034,
    makeDefault: true,
  });
  const subscriptionId = `sub_test_${serial}`;
  await db.insert(subscriptions).values({
    id: subscriptionId,
    billingCustomerId,
    simIccid: iccid,
    priceId: 'price_heavy_month_uk',
    status: 'active',
    currentPeriodStart: periodStart,
    billingCycleAnchor: periodStart,
    currentPeriodEnd: periodEnd,
    createdAt: periodStart,
  });
  await db.update(sims).set({ billingCustomerId }).where(eq(sims.iccid, iccid));
  const invoice = await issueInvoice(db, {
    billingCustomerId,
    subscriptionId,
    description: '1 × Heavy Streaming (at £35.00 / month)',
    total: 3500,
    currency: 'gbp',
    periodStart,
    periodEnd,
    now: periodStart,
    ...(options.invoicing ? { invoicing: options.invoicing } : {}),
  });
  if (invoice.status === 'open') await chargeInvoice(db, invoice, periodStart);
  return { billingCustomerId, subscriptionId, iccid, invoice };
}
