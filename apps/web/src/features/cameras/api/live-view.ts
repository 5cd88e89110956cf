import type {
  LiveViewHeartbeatResponse,
  LiveViewStatusResponse,
  StartLiveViewResponse,
} from '@farmcam/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

const cameraPath = (iccid: string) => `/api/live-view/${encodeURIComponent(iccid)}`;

/** GET /api/live-view/{iccid}: whether the camera can be watched live now, and why not. */
export function liveViewStatusQueryOptions(iccid: string) {
  return queryOptions({
    queryKey: ['cameras', 'live-view', iccid],
    queryFn: ({ signal }) => apiRequest<LiveViewStatusResponse>(cameraPath(iccid), { signal }),
  });
}

export function useLiveViewStatus(iccid: string) {
  return useQuery(liveViewStatusQueryOptions(iccid));
}

/** POST /api/live-view/{iccid}/watch: joins the camera's pull (or asks for one). */
export function startLiveView(iccid: string): Promise<StartLiveViewResponse> {
  return apiRequest<StartLiveViewResponse>(`${cameraPath(iccid)}/watch`, {
    method: 'POST',
    hasOwnErrorHandling: true,
  });
}

/** POST …/viewers/{viewerId}/heartbeat: still here (and, with stillWatching, "yes"). */
export function sendLiveViewHeartbeat(
  iccid: string,
  viewerId: string,
  stillWatching: boolean,
): Promise<LiveViewHeartbeatResponse> {
  return apiRequest<LiveViewHeartbeatResponse>(
    `${cameraPath(iccid)}/viewers/${encodeURIComponent(viewerId)}/heartbeat`,
    { method: 'POST', body: { stillWatching }, hasOwnErrorHandling: true },
  );
}

/** DELETE …/viewers/{viewerId}: stop watching; sent even while the page closes. */
export function leaveLiveView(iccid: string, viewerId: string): Promise<void> {
  return apiRequest<void>(`${cameraPath(iccid)}/viewers/${encodeURIComponent(viewerId)}`, {
    method: 'DELETE',
    keepalive: true,
    hasOwnErrorHandling: true,
  });
}

/** PUT /api/live-view/{iccid}/setting: the owner turns live view on or off for the camera. */
export function useSetLiveViewEnabled(iccid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (isEnabled: boolean) =>
      apiRequest<{ isEnabled: boolean }>(`${cameraPath(iccid)}/setting`, {
        method: 'PUT',
        body: { isEnabled },
      }),
    onSettled: () =>
      queryClient.invalidateQueries({ queryKey: liveViewStatusQueryOptions(iccid).queryKey }),
  });
}
