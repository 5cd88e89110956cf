import type { MemberResponse } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { applyDataChange } from '../../../lib/data-changes.ts';

/** POST /api/team/members/{id}/resend-invitation: a new link by e-mail; the old one stops working. */
export function resendInvitation(memberId: string): Promise<MemberResponse> {
  return apiRequest<MemberResponse>(
    `/api/team/members/${encodeURIComponent(memberId)}/resend-invitation`,
    { method: 'POST' },
  );
}

export function useResendInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: resendInvitation,
    onSuccess: () => applyDataChange(queryClient, 'members'),
  });
}
