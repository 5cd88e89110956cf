import type { EligiblePlansResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/subscriptions/fetch-eligible-plans/{customerId}: the plan cards, marked against the current plan. */
export function fetchEligiblePlans(customerId: string, signal?: AbortSignal) {
  return apiRequest<EligiblePlansResponse>(
    `/api/subscriptions/fetch-eligible-plans/${encodeURIComponent(customerId)}`,
    { signal },
  );
}

export function eligiblePlansQueryOptions(customerId: string) {
  return queryOptions({
    queryKey: ['subscriptions', 'eligible-plans', customerId],
    queryFn: ({ signal }) => fetchEligiblePlans(customerId, signal),
    // Back from paying an overdue invoice in the provider's tab: the plans can be switched again.
    refetchOnWindowFocus: 'always',
  });
}

export function useEligiblePlans(customerId: string) {
  return useQuery(eligiblePlansQueryOptions(customerId));
}
