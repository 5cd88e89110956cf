/**
 * What step 5 (docs/requirements.md#screens) needs before it can draw a pricing table: the SIM checked once more, the
 * table from the solar check (or the region's fallback when the check fails, docs/requirements.md#errors), and, for a
 * signed-in customer, a customer session secret for the new camera's billing account ('Error
 * fetching customer secret' when that fails; the table works without it). Then the table shown is
 * logged.
 */
import type { ActivationConfigResponse, ActivationRegion } from '@farmcam/contract';
import { useQuery } from '@tanstack/react-query';
import { ApiError, errorMessage } from '../../lib/api-client.ts';
import { toast } from '../../lib/toast.tsx';
import { checkSolarSim } from './api/check-solar-sim.ts';
import { createBillingCustomer } from './api/create-billing-customer.ts';
import { createCustomerSecret } from './api/create-customer-secret.ts';
import { logPriceTable } from './api/log-price-table.ts';
import { validateSim } from './api/validate-sim.ts';

export const customerSecretErrorMessage = 'Error fetching customer secret';

export interface PricingTableSetup {
  pricingTableId: string;
  isSolarSim: boolean;
  customerSessionSecret: string | null;
}

export interface PricingTableRequest {
  iccid: string;
  email: string;
  location: ActivationRegion;
  isSignedIn: boolean;
  fallbackTables: ActivationConfigResponse['fallback_pricing_tables'];
}

/** The SIM was sold, activated or locked since it was validated: the wizard shows `message`. */
export class SimUnavailableError extends Error {
  override readonly name = 'SimUnavailableError';
}

export async function setUpPricingTable(
  request: PricingTableRequest,
  signal?: AbortSignal,
): Promise<PricingTableSetup> {
  try {
    await validateSim({ iccid: request.iccid }, signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new SimUnavailableError(
      errorMessage(error, 'The SIM could not be checked. Please try again.'),
    );
  }

  let pricingTableId =
    request.location === 'uk' ? request.fallbackTables.uk : request.fallbackTables.other;
  let isSolarSim = false;
  try {
    const solar = await checkSolarSim({ iccid: request.iccid, location: request.location }, signal);
    pricingTableId = solar.pricing_table_id;
    isSolarSim = solar.is_solar_sim;
  } catch (error) {
    if (signal?.aborted) throw error;
    console.warn('Solar check failed; showing the region’s fallback pricing table', error);
  }

  let customerSessionSecret: string | null = null;
  if (request.isSignedIn) {
    try {
      const account = await createBillingCustomer(
        { iccid: request.iccid, location: request.location },
        signal,
      );
      customerSessionSecret = (await createCustomerSecret(account.customer_id, signal)).secret;
    } catch (error) {
      if (signal?.aborted) throw error;
      toast.error(customerSecretErrorMessage, { toastId: 'customer-secret' });
    }
  }

  logPriceTable({
    'client-reference-id': request.iccid,
    'customer-email': request.email,
    'customer-session-client-secret': customerSessionSecret,
    pricing_table_id: pricingTableId,
  }).catch((error: unknown) => {
    // Only a record for support: the visitor carries on either way.
    if (!(error instanceof ApiError)) console.warn('Could not log the pricing table', error);
  });

  return { pricingTableId, isSolarSim, customerSessionSecret };
}

export function usePricingTableSetup(request: PricingTableRequest | null) {
  return useQuery({
    queryKey: ['activation', 'pricing-table-setup', request],
    queryFn: ({ signal }) => setUpPricingTable(request!, signal),
    enabled: request !== null,
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}
