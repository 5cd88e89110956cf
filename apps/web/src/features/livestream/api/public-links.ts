import type {
  CreateLivestreamLinkBody,
  LivestreamLink,
  LivestreamLinkActionBody,
  LivestreamLinksResponse,
} from '@farmcam/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

const linksKey = (iccid: string) => ['livestreaming', 'links', iccid] as const;

/** GET /api/livestreaming/links: a livestream's public links, with views per site (30 days). */
export function useLivestreamLinks(iccid: string) {
  return useQuery({
    queryKey: linksKey(iccid),
    queryFn: ({ signal }) =>
      apiRequest<LivestreamLinksResponse>(
        `/api/livestreaming/links?camera_id=${encodeURIComponent(iccid)}`,
        { signal },
      ),
  });
}

function useLinkMutation<Body extends { camera_id: string }>(path: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Body) =>
      apiRequest<{ link: LivestreamLink }>(path, { method: 'POST', body }),
    onSettled: (_data, _error, body) =>
      queryClient.invalidateQueries({ queryKey: linksKey(body.camera_id) }),
  });
}

/** POST /api/livestreaming/links: a link to share (with an expiry) or an embed code for sites. */
export const useCreateLivestreamLink = () =>
  useLinkMutation<CreateLivestreamLinkBody>('/api/livestreaming/links');

/** POST /api/livestreaming/links/revoke: switches a link off for good. */
export const useRevokeLivestreamLink = () =>
  useLinkMutation<LivestreamLinkActionBody>('/api/livestreaming/links/revoke');

/** POST /api/livestreaming/links/reissue: a new address with the same settings; the old stops. */
export const useReissueLivestreamLink = () =>
  useLinkMutation<LivestreamLinkActionBody>('/api/livestreaming/links/reissue');
