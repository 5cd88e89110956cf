/**
 * Ownership checks every customer endpoint uses: an ICCID or a billing customer id (the spec's
 * stripeCustomerId) is resolved against the customer the session may reach. Anything that is
 * not theirs answers 404, exactly like something that does not exist.
 */
import type { Executor } from '../../db/client.ts';
import { notFound } from '../../errors.ts';
import { type Access, mayReachCamera } from '../auth/access.ts';
import {
  ownershipRepository as repository,
  type BillingCustomerRow,
  type SimRow,
} from './ownership.repository.ts';

/** The customer's SIM (camera) with this ICCID, or NOT_FOUND. */
export async function requireOwnedSim(
  executor: Executor,
  customerId: string,
  iccid: string,
): Promise<SimRow> {
  const sim = await repository.customersSim(executor, customerId, iccid);
  if (!sim) throw notFound('Camera not found');
  return sim;
}

/** The customer's billing account with this id, or NOT_FOUND. */
export async function requireOwnedBillingCustomer(
  executor: Executor,
  customerId: string,
  billingCustomerId: string,
): Promise<BillingCustomerRow> {
  const row = await repository.customersBillingAccount(executor, customerId, billingCustomerId);
  if (!row) throw notFound('Billing account not found');
  return row;
}

/**
 * The billing account of a camera the person may reach (decision 091): one per camera, so a
 * member with chosen cameras reaches it when its cameras are all theirs; anything else answers
 * exactly as a billing account that is not the customer's (404), before any work.
 */
export async function requireReachableBillingCustomer(
  executor: Executor,
  access: Access,
  customerId: string,
  billingCustomerId: string,
): Promise<BillingCustomerRow> {
  const row = await requireOwnedBillingCustomer(executor, customerId, billingCustomerId);
  if (access.allCameras) return row;
  const cameras = await repository.camerasOfBillingAccount(executor, customerId, billingCustomerId);
  const isReachable = cameras.length > 0 && cameras.every((iccid) => mayReachCamera(access, iccid));
  if (!isReachable) throw notFound('Billing account not found');
  return row;
}
