import type { LivestreamCamerasResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/livestreaming/cameras: the customer's active Heavy Streaming cameras, with their livestreams. */
export function fetchLivestreamCameras(signal?: AbortSignal) {
  return apiRequest<LivestreamCamerasResponse>('/api/livestreaming/cameras', { signal });
}

export const livestreamCamerasQueryKey = ['livestreaming', 'cameras'] as const;

export function livestreamCamerasQueryOptions() {
  return queryOptions({
    queryKey: livestreamCamerasQueryKey,
    queryFn: ({ signal }) => fetchLivestreamCameras(signal),
  });
}

export function useLivestreamCameras() {
  return useQuery(livestreamCamerasQueryOptions());
}
