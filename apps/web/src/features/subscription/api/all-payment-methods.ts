import type { PaymentMethodsResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/billing/all-payment-methods/{customerId}: the saved cards, the default first. */
export function fetchPaymentMethods(customerId: string, signal?: AbortSignal) {
  return apiRequest<PaymentMethodsResponse>(
    `/api/billing/all-payment-methods/${encodeURIComponent(customerId)}`,
    { signal },
  ).then((response) => response.payment_methods);
}

export function paymentMethodsQueryOptions(customerId: string) {
  return queryOptions({
    queryKey: ['billing', 'payment-methods', customerId],
    queryFn: ({ signal }) => fetchPaymentMethods(customerId, signal),
    // Back from the provider's portal tab, where cards are added: show them (decision 054).
    refetchOnWindowFocus: 'always',
  });
}

export function usePaymentMethods(customerId: string) {
  return useQuery(paymentMethodsQueryOptions(customerId));
}
