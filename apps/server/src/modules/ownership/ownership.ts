/**
 * Ownership checks every customer endpoint uses: an ICCID or a billing customer id (the spec's
 * stripeCustomerId) is resolved against the customer the session may reach. Anything that is
 * not theirs answers 404, exactly like something that does not exist.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { billingCustomers, sims } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';

export type SimRow = typeof sims.$inferSelect;
export type BillingCustomerRow = typeof billingCustomers.$inferSelect;

/** The customer's SIM (camera) with this ICCID, or NOT_FOUND. */
export async function requireOwnedSim(
  executor: Executor,
  customerId: string,
  iccid: string,
): Promise<SimRow> {
  const [sim] = await executor
    .select()
    .from(sims)
    .where(and(eq(sims.iccid, iccid), eq(sims.customerId, customerId)));
  if (!sim) throw notFound('Camera not found');
  return sim;
}

/** The customer's billing account with this id, or NOT_FOUND. */
export async function requireOwnedBillingCustomer(
  executor: Executor,
  customerId: string,
  billingCustomerId: string,
): Promise<BillingCustomerRow> {
  const [row] = await executor
    .select()
    .from(billingCustomers)
    .where(
      and(eq(billingCustomers.id, billingCustomerId), eq(billingCustomers.customerId, customerId)),
    );
  if (!row) throw notFound('Billing account not found');
  return row;
}
