import type { RenewalPlansResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import type { Region } from '../../../config/paths.ts';

/** GET /api/subscriptions/renewal-plans/{customerId}/{iccid}?location=: can it renew, and on what. */
export function fetchRenewalPlans(
  customerId: string,
  iccid: string,
  location: Region,
  signal?: AbortSignal,
) {
  return apiRequest<RenewalPlansResponse>(
    `/api/subscriptions/renewal-plans/${encodeURIComponent(customerId)}/${encodeURIComponent(iccid)}`,
    { query: { location }, signal },
  );
}

export function renewalPlansQueryOptions(customerId: string, iccid: string, location: Region) {
  return queryOptions({
    queryKey: ['subscriptions', 'renewal-plans', customerId, iccid, location],
    queryFn: ({ signal }) => fetchRenewalPlans(customerId, iccid, location, signal),
  });
}

export function useRenewalPlans(customerId: string, iccid: string, location: Region) {
  return useQuery(renewalPlansQueryOptions(customerId, iccid, location));
}
