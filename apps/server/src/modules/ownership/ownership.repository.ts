/** The SQL of the ownership checks (ownership.ts): a customer's SIMs and billing accounts. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { billingCustomers, sims } from '../../db/schema.ts';

export type SimRow = typeof sims.$inferSelect;
export type BillingCustomerRow = typeof billingCustomers.$inferSelect;

export const ownershipRepository = {
  async customersSim(executor: Executor, customerId: string, iccid: string) {
    const [sim] = await executor
      .select()
      .from(sims)
      .where(and(eq(sims.iccid, iccid), eq(sims.customerId, customerId)));
    return sim;
  },

  async customersBillingAccount(executor: Executor, customerId: string, billingCustomerId: string) {
    const [row] = await executor
      .select()
      .from(billingCustomers)
      .where(
        and(
          eq(billingCustomers.id, billingCustomerId),
          eq(billingCustomers.customerId, customerId),
        ),
      );
    return row;
  },

  /** The customer's SIMs a billing account pays for. */
  async camerasOfBillingAccount(
    executor: Executor,
    customerId: string,
    billingCustomerId: string,
  ): Promise<string[]> {
    const rows = await executor
      .select({ iccid: sims.iccid })
      .from(sims)
      .where(and(eq(sims.billingCustomerId, billingCustomerId), eq(sims.customerId, customerId)));
    return rows.map((row) => row.iccid);
  },
};
