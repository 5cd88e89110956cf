/** Reads of the farm's Billing page (decision 127): every camera's account, invoices and cards. */
import { and, desc, eq, gte, inArray, isNull, lt, ne, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { currentSubscriptionOrder } from '../../db/current-subscription.ts';
import {
  billingCustomers,
  customers,
  invoices,
  paymentMethods,
  sims,
  subscriptions,
  type BillingDetails,
} from '../../db/schema.ts';
import { dayMs } from '../../lib/business-calendar.ts';

export interface InvoiceFilters {
  status?: 'unpaid' | 'paid' | 'void';
  /** Billing accounts to keep (a camera's); undefined: all the farm's. */
  billingCustomerIds?: string[];
  /** YYYY-MM-DD, the day an invoice was raised (its due day), inclusive. */
  from?: string;
  to?: string;
}

const statusesOf = {
  unpaid: ['open'],
  paid: ['paid'],
  void: ['void', 'uncollectible'],
} as const;

export const farmBillingRepository = {
  /** The farm's billing address and VAT number (decision 127), null when not given. */
  async farmDetails(executor: Executor, customerId: string) {
    const [row] = await executor
      .select({ details: customers.billingDetails })
      .from(customers)
      .where(eq(customers.id, customerId));
    return row?.details ?? null;
  },

  saveFarmDetails: (executor: Executor, customerId: string, details: BillingDetails) =>
    executor.update(customers).set({ billingDetails: details }).where(eq(customers.id, customerId)),

  /**
   * The farm's billing accounts with the camera each pays for (none for an account whose SIM is
   * still in stock or was never attached), oldest first.
   */
  async accounts(executor: Executor, customerId: string) {
    return executor
      .select({
        id: billingCustomers.id,
        details: billingCustomers.details,
        iccid: sims.iccid,
        nickname: sims.nickname,
        simState: sims.state,
      })
      .from(billingCustomers)
      .leftJoin(sims, and(eq(sims.billingCustomerId, billingCustomers.id), ne(sims.state, 'stock')))
      .where(eq(billingCustomers.customerId, customerId))
      .orderBy(billingCustomers.createdAt, billingCustomers.id);
  },

  /** Invoices of these accounts, newest first, drafts left out. */
  async invoices(executor: Executor, billingCustomerIds: string[], filters: InvoiceFilters) {
    if (billingCustomerIds.length === 0) return [];
    const conditions: SQL[] = [
      inArray(invoices.billingCustomerId, billingCustomerIds),
      ne(invoices.status, 'draft'),
    ];
    if (filters.status) conditions.push(inArray(invoices.status, [...statusesOf[filters.status]]));
    if (filters.from)
      conditions.push(gte(invoices.createdAt, new Date(`${filters.from}T00:00:00Z`)));
    if (filters.to) {
      conditions.push(
        lt(invoices.createdAt, new Date(Date.parse(`${filters.to}T00:00:00Z`) + dayMs)),
      );
    }
    return executor
      .select()
      .from(invoices)
      .where(and(...conditions))
      .orderBy(desc(invoices.createdAt), desc(invoices.id));
  },

  /** Saved cards of these accounts, each account's default first, then newest first. */
  async cards(executor: Executor, billingCustomerIds: string[]) {
    if (billingCustomerIds.length === 0) return [];
    return executor
      .select()
      .from(paymentMethods)
      .where(
        and(
          inArray(paymentMethods.billingCustomerId, billingCustomerIds),
          isNull(paymentMethods.detachedAt),
        ),
      )
      .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.createdAt));
  },

  /** Each account's current subscription (db/current-subscription.ts). */
  async currentSubscriptions(executor: Executor, billingCustomerIds: string[]) {
    if (billingCustomerIds.length === 0) return [];
    const rows = await executor
      .select()
      .from(subscriptions)
      .where(inArray(subscriptions.billingCustomerId, billingCustomerIds))
      .orderBy(subscriptions.billingCustomerId, currentSubscriptionOrder);
    const seen = new Set<string>();
    return rows.filter((row) => {
      if (seen.has(row.billingCustomerId)) return false;
      seen.add(row.billingCustomerId);
      return true;
    });
  },
};
