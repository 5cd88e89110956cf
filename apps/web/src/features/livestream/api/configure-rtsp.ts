import type { ConfigureRtspBody, ConfigureRtspResponse } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { livestreamCamerasQueryKey } from './livestream-cameras.ts';

/** POST /api/livestreaming/configure-rtsp: the stream path, clip length, audio and schedule. */
export function configureRtsp(body: ConfigureRtspBody): Promise<ConfigureRtspResponse> {
  return apiRequest<ConfigureRtspResponse>('/api/livestreaming/configure-rtsp', {
    method: 'POST',
    body,
  });
}

export function useConfigureRtsp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: configureRtsp,
    onSettled: () => queryClient.invalidateQueries({ queryKey: livestreamCamerasQueryKey }),
  });
}
