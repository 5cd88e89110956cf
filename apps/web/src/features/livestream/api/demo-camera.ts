import type { DemoCameraResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/livestreaming/demo-camera: whether the demo camera can run on this server. */
export function fetchDemoCamera(signal?: AbortSignal) {
  return apiRequest<DemoCameraResponse>('/api/livestreaming/demo-camera', { signal });
}

export function demoCameraQueryOptions() {
  return queryOptions({
    queryKey: ['livestreaming', 'demo-camera'],
    queryFn: ({ signal }) => fetchDemoCamera(signal),
    // Changes only when someone installs packages on the server.
    staleTime: 60_000,
  });
}

export function useDemoCamera() {
  return useQuery(demoCameraQueryOptions());
}
