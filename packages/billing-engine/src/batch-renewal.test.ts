/**
 * Renewals in batches (docs/decisions/075) leave the ledger one renewal per transaction leaves:
 * two databases get the same subscriptions (plain ones and every case the batch hands back to
 * the one-at-a-time renewal: a declining card, an expired card, no card, a credit balance, a line
 * waiting, a pause, two periods due, a customer with two cameras), one cycle runs on each, in
 * chunks of 4 and one per transaction, and every invoice, line, payment, subscription, balance,
 * number and event is compared. On PostgreSQL with TEST_DATABASE_URL.
 */
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../apps/server/test/helpers/test-database.ts';
import type { DatabaseHandle } from '../../../apps/server/src/db/client.ts';
import {
  billingCustomers,
  invoiceLines,
  invoiceNumberSequences,
  invoices,
  payments,
  subscriptions,
} from '@farmcam/db/schema';
import { seedCatalogue } from '../../../apps/server/src/seed/demo.ts';
import { ManualClock } from '../../../apps/server/src/lib/clock.ts';
import type { BillingEvent } from '@farmcam/billing';
import { invoiceUrls } from './ledger.ts';
import { createLocalBillingEngine } from './local-billing-engine.ts';
import { createTestClock } from './test-clock.ts';

const renewalDay = '2026-04-01T00:00:00Z';
const cycleAt = new Date('2026-04-01T12:00:00Z');

interface Camera {
  /** Billing customer number: two cameras may share one. */
  customer: number;
  price?: string;
  status?: string;
  periodEnd?: string;
  pause?: [string, string];
  nickname?: string | null;
  /** The billing cycle anchor; by default the period's start (a month before its end). */
  anchor?: string;
}

interface Customer {
  /** Cards as [last4, expiry year, is default], in the order they were added. */
  cards: [string, number, boolean][];
  balance?: number;
  waitingLine?: number;
}

const customers: Record<number, Customer> = {
  1: { cards: [['4242', 2034, true]] },
  2: { cards: [['4444', 2034, true]] },
  3: { cards: [['4242', 2034, true]] },
  4: { cards: [['0341', 2034, true]] },
  5: { cards: [['4242', 2025, true]] },
  6: { cards: [] },
  7: { cards: [['4242', 2034, true]], balance: -500 },
  8: { cards: [['4242', 2034, true]], waitingLine: -300 },
  9: { cards: [['4242', 2034, true]] },
  10: { cards: [['4242', 2034, true]] },
  11: { cards: [['4242', 2034, true]] },
  12: {
    cards: [
      ['4242', 2035, false],
      ['4444', 2025, true],
    ],
  },
  13: { cards: [['4242', 2034, true]] },
  14: { cards: [['4242', 2034, true]] },
  15: { cards: [['4242', 2034, true]] },
  16: { cards: [['4242', 2034, true]] },
};

const cameras: Camera[] = [
  { customer: 1 },
  { customer: 2, price: 'price_heavy_year_uk' },
  { customer: 3, price: 'price_light_month_ie', nickname: null },
  { customer: 4 },
  { customer: 5 },
  { customer: 6 },
  { customer: 7 },
  { customer: 8 },
  { customer: 9 },
  { customer: 9, price: 'price_light_month_uk' },
  { customer: 10, status: 'paused', pause: ['2026-03-01', '2026-06-01'] },
  { customer: 11, pause: ['2026-04-01', '2026-05-01'] },
  { customer: 12 },
  { customer: 13, periodEnd: '2026-03-01T00:00:00Z' },
  { customer: 14, status: 'past_due' },
  { customer: 1, price: 'price_standard_month_uk_solar' },
  // Anchored on 31 January: renewed on 31 March for a period to 30 April (decision 108).
  { customer: 15, anchor: '2026-01-31T00:00:00Z', periodEnd: '2026-03-31T00:00:00Z' },
  // Drifted to the 28th before anchors were kept: back on the anchor's day at this renewal.
  { customer: 16, anchor: '2026-01-31T00:00:00Z', periodEnd: '2026-03-28T00:00:00Z' },
];

async function seed(database: DatabaseHandle) {
  const { db } = database;
  await seedCatalogue(db);
  for (const [number, customer] of Object.entries(customers)) {
    await db.execute(sql`
      with portal as (
        insert into customers (email, name) values (${`batch-${number}@example.com`}, ${`Farmer ${number}`})
        returning id, email)
      insert into billing_customers (id, customer_id, provider, email, balance)
      select ${`cus_batch_${number}`}, id, 'local', email, ${customer.balance ?? 0} from portal`);
    for (const [index, [last4, expYear, isDefault]] of customer.cards.entries()) {
      await db.execute(sql`
        insert into payment_methods (id, billing_customer_id, brand, last4, exp_month, exp_year,
          is_default, created_at)
        values (${`pm_batch_${number}_${index}`}, ${`cus_batch_${number}`}, 'visa', ${last4}, 12,
          ${expYear}, ${isDefault}, ${`2025-01-0${index + 1}T00:00:00Z`}::timestamptz)`);
    }
    if (customer.waitingLine) {
      await db.execute(sql`
        insert into invoice_lines (id, billing_customer_id, description, amount, created_at)
        values (${`il_batch_${number}`}, ${`cus_batch_${number}`}, 'Unused time', ${customer.waitingLine},
          '2026-03-15T00:00:00Z'::timestamptz)`);
    }
  }
  for (const [index, camera] of cameras.entries()) {
    const iccid = `8944770000000${String(index).padStart(6, '0')}`;
    const periodEnd = camera.periodEnd ?? renewalDay;
    await db.execute(sql`
      insert into sims (iccid, state, customer_id, billing_customer_id, nickname, activated_at)
      select ${iccid}, 'active', customer_id, id, ${camera.nickname === undefined ? `Camera ${index}` : camera.nickname},
        '2026-01-01T00:00:00Z'::timestamptz
      from billing_customers where id = ${`cus_batch_${camera.customer}`}`);
    await db.execute(sql`
      insert into subscriptions (id, billing_customer_id, sim_iccid, price_id, status,
        current_period_start, current_period_end, billing_cycle_anchor, past_due_since,
        pause_starts_on, pause_resumes_on, created_at, updated_at)
      values (${`sub_batch_${String(index).padStart(2, '0')}`}, ${`cus_batch_${camera.customer}`},
        ${iccid}, ${camera.price ?? 'price_standard_month_uk'}, ${camera.status ?? 'active'},
        ${periodEnd}::timestamptz - interval '1 month', ${periodEnd}::timestamptz,
        coalesce(${camera.anchor ?? null}::timestamptz, ${periodEnd}::timestamptz - interval '1 month'),
        ${camera.status === 'past_due' ? '2026-03-20T00:00:00Z' : null}::timestamptz,
        ${camera.pause?.[0] ?? null}::date, ${camera.pause?.[1] ?? null}::date,
        '2026-01-01T00:00:00Z'::timestamptz, '2026-01-01T00:00:00Z'::timestamptz)`);
  }
}

/** The ledger with the random ids of what the cycle made replaced by invoice numbers. */
async function ledgerOf(database: DatabaseHandle, events: BillingEvent[]) {
  const { db } = database;
  const invoiceRows = await db.select().from(invoices).orderBy(asc(invoices.number));
  const numberOf = new Map(invoiceRows.map((row) => [row.id, row.number]));
  const urlsSigned = await Promise.all(
    invoiceRows.map(async (row) => {
      const urls = await invoiceUrls(db, row.id);
      return (
        urls.hostedInvoiceUrl === row.hostedInvoiceUrl && urls.invoicePdfUrl === row.invoicePdfUrl
      );
    }),
  );
  const lines = await db.select().from(invoiceLines);
  const paymentRows = await db.select().from(payments);
  return {
    invoices: invoiceRows.map(({ id, hostedInvoiceUrl, invoicePdfUrl, ...row }, index) => ({
      ...row,
      urlsSigned:
        urlsSigned[index] && hostedInvoiceUrl?.includes(id) && invoicePdfUrl?.includes(id),
    })),
    lines: lines
      .map(({ id, invoiceId, ...row }) => ({
        ...row,
        id: id.startsWith('il_batch_') ? id : 'made',
        invoice: invoiceId ? numberOf.get(invoiceId) : null,
      }))
      .sort((a, b) => `${a.invoice}:${a.position}`.localeCompare(`${b.invoice}:${b.position}`)),
    payments: paymentRows
      .map(({ id: _id, invoiceId, ...row }) => ({ ...row, invoice: numberOf.get(invoiceId) }))
      .sort((a, b) => `${a.invoice}:${a.status}`.localeCompare(`${b.invoice}:${b.status}`)),
    subscriptions: await db.select().from(subscriptions).orderBy(asc(subscriptions.id)),
    balances: await db
      .select({ id: billingCustomers.id, balance: billingCustomers.balance })
      .from(billingCustomers)
      .orderBy(asc(billingCustomers.id)),
    sequence: await db
      .select()
      .from(invoiceNumberSequences)
      .where(eq(invoiceNumberSequences.prefix, 'FC')),
    events: events.map((event) => {
      const copy: Record<string, unknown> = { ...event };
      if (typeof copy.invoiceId === 'string') copy.invoiceId = numberOf.get(copy.invoiceId);
      if (typeof copy.hostedInvoiceUrl === 'string') copy.hostedInvoiceUrl = 'signed';
      return copy;
    }),
  };
}

async function runCycle(database: DatabaseHandle, renewalChunkSize: number) {
  await seed(database);
  const engine = createLocalBillingEngine({
    db: database.db,
    clock: createTestClock(database.db, new ManualClock(cycleAt)),
    publicUrl: 'http://portal.test',
    renewalChunkSize,
  });
  const { renewed, events } = await engine.runBillingCycle(cycleAt);
  return { renewed, ledger: await ledgerOf(database, events) };
}

let batched: DatabaseHandle;
let alone: DatabaseHandle;
beforeAll(async () => {
  [batched, alone] = await Promise.all([openTestDatabase(), openTestDatabase()]);
});
afterAll(async () => {
  await Promise.all([batched?.close(), alone?.close()]);
});

describe('billing cycle renewals in batches', () => {
  it('leave the same ledger as one renewal per transaction', async () => {
    const inChunks = await runCycle(batched, 4);
    const oneByOne = await runCycle(alone, 0);
    expect(inChunks.renewed).toBe(oneByOne.renewed);
    expect(inChunks.ledger).toEqual(oneByOne.ledger);
    // The cases it covers did happen: paid renewals, a failure with its e-mail event, a pause,
    // two periods, a credit and a waiting line used up.
    const { invoices: raised, events, balances } = oneByOne.ledger;
    expect(raised.filter((invoice) => invoice.status === 'paid').length).toBeGreaterThanOrEqual(10);
    expect(raised.filter((invoice) => invoice.status === 'open').length).toBe(3);
    expect(raised.every((invoice) => invoice.urlsSigned)).toBe(true);
    expect(events.filter((event) => event.type === 'invoice.payment_failed')).toHaveLength(3);
    expect(raised.filter((invoice) => invoice.subscriptionId === 'sub_batch_13')).toHaveLength(2);
    expect(raised.some((invoice) => invoice.subscriptionId === 'sub_batch_10')).toBe(false);
    expect(raised.some((invoice) => invoice.subscriptionId === 'sub_batch_11')).toBe(false);
    expect(balances.find((row) => row.id === 'cus_batch_7')?.balance).toBe(0);
    expect(oneByOne.ledger.lines.find((line) => line.id === 'il_batch_8')?.invoice).toBeTruthy();
    expect(oneByOne.ledger.sequence[0]?.lastNumber).toBe(raised.length);
    // Periods end on the anchor's day, in the batch as one by one (decision 108).
    const endOf = (id: string) =>
      oneByOne.ledger.subscriptions.find((row) => row.id === id)?.currentPeriodEnd.toISOString();
    expect(endOf('sub_batch_16')).toBe('2026-04-30T00:00:00.000Z');
    expect(endOf('sub_batch_17')).toBe('2026-04-30T00:00:00.000Z');
  });
});
