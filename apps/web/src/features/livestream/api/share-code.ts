import type { ShareCodeBody, ShareCodeResponse } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /api/livestreaming/share-code: e-mails the embed code. */
export function shareCode(body: ShareCodeBody): Promise<ShareCodeResponse> {
  return apiRequest<ShareCodeResponse>('/api/livestreaming/share-code', { method: 'POST', body });
}

export function useShareCode() {
  return useMutation({ mutationFn: shareCode });
}
