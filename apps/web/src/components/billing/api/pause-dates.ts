import type { PauseOptionsResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/pause/pause-dates/{customerId}: when a pause would start and the restart dates. */
export function fetchPauseDates(customerId: string, signal?: AbortSignal) {
  return apiRequest<PauseOptionsResponse>(
    `/api/pause/pause-dates/${encodeURIComponent(customerId)}`,
    {
      signal,
    },
  ).then((response) => response.pause_options);
}

export function pauseDatesQueryOptions(customerId: string) {
  return queryOptions({
    queryKey: ['pause', 'pause-dates', customerId],
    queryFn: ({ signal }) => fetchPauseDates(customerId, signal),
    // The dates depend on today's date: never serve them stale into a new modal.
    staleTime: 0,
  });
}

export function usePauseDates(customerId: string, isEnabled: boolean) {
  return useQuery({ ...pauseDatesQueryOptions(customerId), enabled: isEnabled });
}
