import type { ShowcaseResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/livestreaming/showcase: a recent clip of the demo camera (null while one is recorded). */
export function fetchShowcase(signal?: AbortSignal) {
  return apiRequest<ShowcaseResponse>('/api/livestreaming/showcase', { signal });
}

export function showcaseQueryOptions() {
  return queryOptions({
    queryKey: ['livestreaming', 'showcase'],
    queryFn: ({ signal }) => fetchShowcase(signal),
    // While the first demo clip is being recorded, look again every few seconds.
    refetchInterval: (query) =>
      query.state.data?.isRecording && query.state.data.url === null ? 3000 : false,
  });
}

export function useShowcase() {
  return useQuery(showcaseQueryOptions());
}
