import type { ClipStatusResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/livestreaming/clip: where a recording stands; a playable address once ready. */
export function fetchClipStatus(cameraId: string, storageKey: string, signal?: AbortSignal) {
  return apiRequest<ClipStatusResponse>('/api/livestreaming/clip', {
    query: { camera_id: cameraId, s3_key: storageKey },
    signal,
  });
}

/** Polled every second while the clip is still being recorded. */
export function clipStatusQueryOptions(cameraId: string, storageKey: string) {
  return queryOptions({
    queryKey: ['livestreaming', 'clip', cameraId, storageKey],
    queryFn: ({ signal }) => fetchClipStatus(cameraId, storageKey, signal),
    refetchInterval: (query) => (query.state.data?.status === 'recording' ? 1000 : false),
    staleTime: Infinity,
  });
}

export function useClipStatus(cameraId: string, storageKey: string | undefined) {
  return useQuery({
    ...clipStatusQueryOptions(cameraId, storageKey ?? ''),
    enabled: storageKey !== undefined,
  });
}
