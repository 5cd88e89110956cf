import type { ConfigureRtspResponse, LivestreamActiveBody } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { livestreamCamerasQueryKey } from './livestream-cameras.ts';

/** POST /api/livestreaming/set-active: switches a saved schedule on or off. */
export function setLivestreamActive(body: LivestreamActiveBody): Promise<ConfigureRtspResponse> {
  return apiRequest<ConfigureRtspResponse>('/api/livestreaming/set-active', {
    method: 'POST',
    body,
  });
}

export function useSetLivestreamActive() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setLivestreamActive,
    onSettled: () => queryClient.invalidateQueries({ queryKey: livestreamCamerasQueryKey }),
  });
}
