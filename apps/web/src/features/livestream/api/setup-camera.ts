import type { SetupCameraBody, SetupCameraResponse } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /api/livestreaming/setup-camera: opens the camera's RTSP port (554) to the recorders. */
export function setupCamera(body: SetupCameraBody): Promise<SetupCameraResponse> {
  return apiRequest<SetupCameraResponse>('/api/livestreaming/setup-camera', {
    method: 'POST',
    body,
  });
}

export function useSetupCamera() {
  return useMutation({ mutationFn: setupCamera });
}
