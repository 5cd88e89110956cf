import type { CoverageSourceResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/coverage/source: where coverage comes from, and the demo postcodes to try. */
export function getCoverageSource(signal?: AbortSignal) {
  return apiRequest<CoverageSourceResponse>('/api/coverage/source', {
    signal,
    hasOwnErrorHandling: true,
  });
}

export function coverageSourceQueryOptions() {
  return queryOptions({
    queryKey: ['coverage', 'source'],
    queryFn: ({ signal }) => getCoverageSource(signal),
    staleTime: Infinity,
  });
}

export function useCoverageSource() {
  return useQuery(coverageSourceQueryOptions());
}
