import type { SimInfoResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/cameras/sim-info/{iccid}: the SIM information card. */
export function fetchSimInfo(iccid: string, signal?: AbortSignal): Promise<SimInfoResponse> {
  return apiRequest<SimInfoResponse>(`/api/cameras/sim-info/${encodeURIComponent(iccid)}`, {
    signal,
  });
}

export function simInfoQueryOptions(iccid: string) {
  return queryOptions({
    queryKey: ['cameras', 'sim-info', iccid],
    queryFn: ({ signal }) => fetchSimInfo(iccid, signal),
  });
}

export function useSimInfo(iccid: string) {
  return useQuery(simInfoQueryOptions(iccid));
}
