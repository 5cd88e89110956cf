/**
 * The activation module's part in a checkout as the billing provider records the payment (the
 * port's CheckoutHooks). They run inside the provider's transaction: a refusal rolls the payment
 * back (nothing is charged), and an account made for a new e-mail exists only if the payment does.
 */
import type { Executor } from '../../db/client.ts';
import { BillingError, type CheckoutHooks } from '@farmcam/billing';
import { activationRepository as repository } from './activation.repository.ts';

/** What the losing buyer of a SIM sees on the hosted checkout. */
export const simTakenMessage =
  'This SIM has just been activated by someone else, so this order cannot go ahead. You have not been charged.';

/** Checkouts that activate a stock SIM; renewals (issue 4) carry purpose "renewal". */
export const isActivationCheckout = (metadata: Record<string, string>) =>
  metadata.purpose !== 'renewal';

/** Finds the portal customer with this e-mail, or makes one (spec: a new e-mail gets an account). */
export function findOrCreatePortalCustomer(executor: Executor, email: string): Promise<string> {
  return repository.findOrCreateCustomer(executor, email.trim().toLowerCase());
}

export function createActivationCheckoutHooks(): CheckoutHooks {
  return {
    async beforeCharge(executor, checkout) {
      if (!isActivationCheckout(checkout.metadata) || !checkout.clientReferenceId) return;
      // Two buyers paying for one SIM at once queue on its row; the second sees the first's order.
      const sim = await repository.lockSim(executor, checkout.clientReferenceId);
      if (!sim)
        throw new BillingError(
          'invalid',
          'This SIM is not available any more. You have not been charged.',
        );
      if (sim.state !== 'stock' || sim.customerId !== null) {
        throw new BillingError('invalid', simTakenMessage);
      }
      if (await repository.hasLiveSubscription(executor, sim.iccid)) {
        throw new BillingError('invalid', simTakenMessage);
      }
    },
    portalCustomerFor: findOrCreatePortalCustomer,
  };
}
