import type {
  CameraAlertSettings,
  CameraAlertSettingsResponse,
  MyCameraAlertsResponse,
} from '@farmcam/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { applyDataChange } from '../../../lib/data-changes.ts';
import { alertSettingsKey, alertSettingsQueryOptions } from './get-alert-settings.ts';

const myAlertsKey = ['team', 'me', 'camera-alerts'] as const;

export function useAlertSettings(iccid: string) {
  return useQuery(alertSettingsQueryOptions(iccid));
}

/** PUT /api/cameras/alert-settings/{iccid} (owner and managers). */
export function useSaveAlertSettings(iccid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CameraAlertSettings) =>
      apiRequest<CameraAlertSettingsResponse>(
        `/api/cameras/alert-settings/${encodeURIComponent(iccid)}`,
        { method: 'PUT', body },
      ),
    onSuccess: (response) => {
      queryClient.setQueryData(alertSettingsKey(iccid), response);
      return applyDataChange(queryClient, 'alerts', { patched: [alertSettingsKey(iccid)] });
    },
  });
}

/** GET /api/team/me/camera-alerts: whether the signed-in person receives camera alert e-mails. */
export function useMyCameraAlerts() {
  return useQuery({
    queryKey: myAlertsKey,
    queryFn: ({ signal }) =>
      apiRequest<MyCameraAlertsResponse>('/api/team/me/camera-alerts', { signal }),
  });
}

/** PUT /api/team/me/camera-alerts: each member chooses for themselves. */
export function useSetMyCameraAlerts() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (cameraAlerts: boolean) =>
      apiRequest<MyCameraAlertsResponse>('/api/team/me/camera-alerts', {
        method: 'PUT',
        body: { cameraAlerts },
      }),
    onSuccess: (response) => {
      queryClient.setQueryData(myAlertsKey, response);
      return applyDataChange(queryClient, 'alerts', { patched: [myAlertsKey] });
    },
  });
}
