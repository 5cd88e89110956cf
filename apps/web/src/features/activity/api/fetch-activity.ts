import type { ActivityQuery, ActivityResponse } from '@farmcam/contract';
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** The Activity screen's filters, as kept in the page's URL. */
export type ActivityFilters = Pick<ActivityQuery, 'category' | 'actor' | 'iccid' | 'from' | 'to'>;

export const activityPageSize = 25;

/** GET /api/activity: a page of the account's activity, newest first; `before` pages on. */
export function fetchActivity(
  filters: ActivityFilters,
  before: string | undefined,
  signal?: AbortSignal,
): Promise<ActivityResponse> {
  return apiRequest<ActivityResponse>('/api/activity', {
    signal,
    query: { ...filters, before, limit: String(activityPageSize) },
  });
}

export function activityQueryOptions(filters: ActivityFilters) {
  return infiniteQueryOptions({
    queryKey: ['activity', filters],
    queryFn: ({ pageParam, signal }) => fetchActivity(filters, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (lastPage) => lastPage.nextCursor ?? undefined,
  });
}

/** Asked for only once user-data says this person may read the log (else the server's 403 would toast). */
export function useActivity(filters: ActivityFilters, isAllowed: boolean) {
  return useInfiniteQuery({ ...activityQueryOptions(filters), enabled: isAllowed });
}
