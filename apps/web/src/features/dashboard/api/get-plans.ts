import type { PlansResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { useIsSignedIn } from '../../../lib/auth-store.ts';

/** GET /api/cameras/plansV2: the customer's cameras and the combined-plan summary. */
export function fetchPlans(signal?: AbortSignal): Promise<PlansResponse> {
  return apiRequest<PlansResponse>('/api/cameras/plansV2', { signal });
}

export const plansQueryKey = ['cameras', 'plans'] as const;

export const plansQueryOptions = queryOptions({
  queryKey: plansQueryKey,
  queryFn: ({ signal }) => fetchPlans(signal),
  // Back from paying or renewing in the provider's tab: the cards show the new status (decision 054).
  refetchOnWindowFocus: 'always',
});

/** docs/requirements.md#roles: the camera list is fetched only when a token exists. */
export function usePlans() {
  const isSignedIn = useIsSignedIn();
  return useQuery({ ...plansQueryOptions, enabled: isSignedIn });
}
