import type { ActivePauseResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/pause/check-active-pause/{customerId}: the scheduled or running pause, if any. */
export function fetchActivePause(customerId: string, signal?: AbortSignal) {
  return apiRequest<ActivePauseResponse>(
    `/api/pause/check-active-pause/${encodeURIComponent(customerId)}`,
    { signal },
  );
}

export function activePauseQueryOptions(customerId: string) {
  return queryOptions({
    queryKey: ['pause', 'active-pause', customerId],
    queryFn: ({ signal }) => fetchActivePause(customerId, signal),
  });
}

export function useActivePause(customerId: string) {
  return useQuery(activePauseQueryOptions(customerId));
}
