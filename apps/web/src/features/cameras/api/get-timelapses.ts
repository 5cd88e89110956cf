import type { TimelapsesResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/cameras/timelapses/{iccid}: the camera's daily timelapses, newest first. */
export function fetchTimelapses(iccid: string, signal?: AbortSignal): Promise<TimelapsesResponse> {
  return apiRequest<TimelapsesResponse>(`/api/cameras/timelapses/${encodeURIComponent(iccid)}`, {
    signal,
  });
}

export function timelapsesQueryOptions(iccid: string) {
  return queryOptions({
    queryKey: ['cameras', 'timelapses', iccid],
    queryFn: ({ signal }) => fetchTimelapses(iccid, signal),
    // The play and download addresses are signed for hours; a day's list changes once a day.
    staleTime: 5 * 60_000,
  });
}

export function useTimelapses(iccid: string) {
  return useQuery(timelapsesQueryOptions(iccid));
}
