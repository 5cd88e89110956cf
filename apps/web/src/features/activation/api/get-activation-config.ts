import type { ActivationConfigResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/activation/config: which pricing table to draw, fallbacks, help links. */
export function getActivationConfig(signal?: AbortSignal) {
  return apiRequest<ActivationConfigResponse>('/api/activation/config', { signal });
}

export const activationConfigQueryOptions = queryOptions({
  queryKey: ['activation', 'config'],
  queryFn: ({ signal }) => getActivationConfig(signal),
  staleTime: Infinity,
});

export function useActivationConfig() {
  return useQuery(activationConfigQueryOptions);
}
