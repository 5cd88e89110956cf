import type { RtspNowBody, RtspNowResponse } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /api/livestreaming/rtsp-now: records a clip now (the preview: 5 s, no audio). */
export function recordNow(body: RtspNowBody): Promise<RtspNowResponse> {
  return apiRequest<RtspNowResponse>('/api/livestreaming/rtsp-now', { method: 'POST', body });
}

export function useRecordNow() {
  return useMutation({ mutationFn: recordNow });
}
