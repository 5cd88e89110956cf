import type { SignalAvailabilityResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';

/**
 * GET /api/ofcom-signal/{postCode}: the signal at every address of a postcode (public). Failures
 * raise no toast (docs/requirements.md#errors: a signal lookup failure is silent); the screens show a quiet state.
 */
export function checkSignal(postcode: string, signal?: AbortSignal) {
  return apiRequest<SignalAvailabilityResponse>(
    `/api/ofcom-signal/${encodeURIComponent(postcode)}`,
    { signal, hasOwnErrorHandling: true },
  );
}

/** A dropped connection or a plain 500 may pass; 503 and 429 were already retried or throttled. */
function isWorthRetrying(failureCount: number, error: unknown): boolean {
  if (failureCount >= 1 || !(error instanceof ApiError)) return false;
  return error.status === 'FETCH_ERROR' || error.status === 500;
}

export function signalAvailabilityQueryOptions(postcode: string) {
  return queryOptions({
    queryKey: ['coverage', 'signal', postcode],
    queryFn: ({ signal }) => checkSignal(postcode, signal),
    // Coverage predictions change a few times a year.
    staleTime: 60 * 60 * 1000,
    retry: isWorthRetrying,
  });
}

/** The signal for a normalised postcode; idle while the postcode is empty. */
export function useSignalAvailability(postcode: string) {
  return useQuery({ ...signalAvailabilityQueryOptions(postcode), enabled: postcode !== '' });
}

export type SignalLookupFailure = 'invalid' | 'no-data' | 'unavailable';

/** How a failed lookup should read: the screens treat each kind differently. */
export function describeLookupFailure(error: unknown): SignalLookupFailure {
  if (error instanceof ApiError && error.status === 400) return 'invalid';
  if (error instanceof ApiError && error.status === 404) return 'no-data';
  return 'unavailable';
}
