import type { InvoicesResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/**
 * GET /api/invoices/fetch-invoices/{customerId}: every invoice, newest first (no paging), and
 * the credit the camera's next invoice will take off.
 */
export function fetchInvoices(customerId: string, signal?: AbortSignal) {
  return apiRequest<InvoicesResponse>(
    `/api/invoices/fetch-invoices/${encodeURIComponent(customerId)}`,
    { signal },
  );
}

export function invoicesQueryOptions(customerId: string) {
  return queryOptions({
    queryKey: ['invoices', customerId],
    queryFn: ({ signal }) => fetchInvoices(customerId, signal),
    // Coming back from paying on the hosted page should show the new status.
    refetchOnWindowFocus: 'always',
  });
}

export function useInvoices(customerId: string) {
  return useQuery(invoicesQueryOptions(customerId));
}
