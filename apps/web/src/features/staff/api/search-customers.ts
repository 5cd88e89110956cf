import type { CustomerSearchResponse } from '@farmcam/contract';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/staff/customers?q=: the customers matching a search (all of them, up to the server's limit, when empty). */
export function searchCustomers(search: string, signal?: AbortSignal) {
  return apiRequest<CustomerSearchResponse>('/api/staff/customers', {
    query: { q: search === '' ? undefined : search },
    signal,
  });
}

export function customerSearchQueryOptions(search: string) {
  return queryOptions({
    queryKey: ['staff', 'customers', search],
    queryFn: ({ signal }) => searchCustomers(search, signal),
  });
}

export function useCustomerSearch(search: string) {
  // The previous results stay on screen while the next search loads, instead of a flash of spinner.
  return useQuery({ ...customerSearchQueryOptions(search), placeholderData: keepPreviousData });
}
