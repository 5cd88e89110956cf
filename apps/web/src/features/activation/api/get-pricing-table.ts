import type { PricingTableResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/activation/pricing-tables/:id: one of our own pricing tables (local billing). */
export function getPricingTable(pricingTableId: string, signal?: AbortSignal) {
  return apiRequest<PricingTableResponse>(
    `/api/activation/pricing-tables/${encodeURIComponent(pricingTableId)}`,
    { signal },
  );
}

export function pricingTableQueryOptions(pricingTableId: string) {
  return queryOptions({
    queryKey: ['activation', 'pricing-table', pricingTableId],
    queryFn: ({ signal }) => getPricingTable(pricingTableId, signal),
    staleTime: 10 * 60_000,
  });
}

export function usePricingTable(pricingTableId: string) {
  return useQuery(pricingTableQueryOptions(pricingTableId));
}
