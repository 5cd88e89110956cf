import type { RouterInfoResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/cameras/router-info/{iccid}: the router's last report. */
export function fetchRouterInfo(iccid: string, signal?: AbortSignal): Promise<RouterInfoResponse> {
  return apiRequest<RouterInfoResponse>(`/api/cameras/router-info/${encodeURIComponent(iccid)}`, {
    signal,
  });
}

export function routerInfoQueryOptions(iccid: string) {
  return queryOptions({
    queryKey: ['cameras', 'router-info', iccid],
    queryFn: ({ signal }) => fetchRouterInfo(iccid, signal),
  });
}

/** docs/requirements.md#states: fetched only when the SIM is active and not barred. */
export function useRouterInfo(iccid: string, isEnabled: boolean) {
  return useQuery({ ...routerInfoQueryOptions(iccid), enabled: isEnabled });
}
