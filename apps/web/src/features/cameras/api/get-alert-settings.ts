import type { CameraAlertSettingsResponse } from '@farmcam/contract';
import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

export const alertSettingsKey = (iccid: string) => ['cameras', 'alert-settings', iccid] as const;

/**
 * GET /api/cameras/alert-settings/{iccid}: the camera's alerts and its open silence. On its own,
 * so the route's prefetch (app/route-prefetch.ts) takes no saving code into the app's entry.
 */
export function alertSettingsQueryOptions(iccid: string) {
  return queryOptions({
    queryKey: alertSettingsKey(iccid),
    queryFn: ({ signal }) =>
      apiRequest<CameraAlertSettingsResponse>(
        `/api/cameras/alert-settings/${encodeURIComponent(iccid)}`,
        { signal },
      ),
  });
}
