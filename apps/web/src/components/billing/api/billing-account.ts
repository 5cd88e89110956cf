import type { BillingAccountResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/billing/account/{customerId}: which camera a billing account pays for (decision 111). */
export function billingAccountQueryOptions(customerId: string) {
  return queryOptions({
    queryKey: ['billing', 'account', customerId],
    queryFn: ({ signal }) =>
      apiRequest<BillingAccountResponse>(`/api/billing/account/${encodeURIComponent(customerId)}`, {
        signal,
      }),
  });
}

export function useBillingAccount(customerId: string) {
  return useQuery(billingAccountQueryOptions(customerId));
}
