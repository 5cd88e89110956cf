import type { PlanChangePreview } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/subscriptions/preview-change/{customerId}?newPlanId=: what switching now charges. */
export function fetchPlanChangePreview(
  customerId: string,
  newPlanId: string,
  signal?: AbortSignal,
) {
  return apiRequest<PlanChangePreview>(
    `/api/subscriptions/preview-change/${encodeURIComponent(customerId)}`,
    { query: { newPlanId }, signal, hasOwnErrorHandling: true },
  );
}

export function planChangePreviewQueryOptions(customerId: string, newPlanId: string) {
  return queryOptions({
    queryKey: ['subscriptions', 'preview-change', customerId, newPlanId],
    queryFn: ({ signal }) => fetchPlanChangePreview(customerId, newPlanId, signal),
    // Pro-rata amounts change by the second: always ask afresh when the modal opens.
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
}

export function usePlanChangePreview(customerId: string, newPlanId: string | null) {
  return useQuery({
    ...planChangePreviewQueryOptions(customerId, newPlanId ?? ''),
    enabled: newPlanId !== null,
  });
}
