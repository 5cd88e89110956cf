import type { InviteMemberBody, MemberResponse } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { applyDataChange } from '../../../lib/data-changes.ts';

/** POST /api/team/invite: adds the member and e-mails them an invitation link (valid 7 days). */
export function inviteMember(body: InviteMemberBody): Promise<MemberResponse> {
  return apiRequest<MemberResponse>('/api/team/invite', { method: 'POST', body });
}

export function useInviteMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: inviteMember,
    onSuccess: () => applyDataChange(queryClient, 'members'),
  });
}
