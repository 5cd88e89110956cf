import type { LiveViewCamerasResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { useIsSignedIn } from '../../../lib/auth-store.ts';

export type LiveViewCamera = LiveViewCamerasResponse['cameras'][number];

/** GET /api/live-view: which cards offer Watch live, and each camera's latest still. */
export const liveViewCamerasQueryOptions = queryOptions({
  queryKey: ['cameras', 'live-view'],
  queryFn: ({ signal }) => apiRequest<LiveViewCamerasResponse>('/api/live-view', { signal }),
  // The stills' addresses are signed for an hour; a new still comes with each recording.
  staleTime: 60_000,
  select: (answer) => new Map(answer.cameras.map((camera) => [camera.iccid, camera])),
});

export function useLiveViewCameras() {
  const isSignedIn = useIsSignedIn();
  return useQuery({ ...liveViewCamerasQueryOptions, enabled: isSignedIn });
}
