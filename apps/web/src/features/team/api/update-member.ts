import type { MemberResponse, UpdateMemberBody } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { applyDataChange } from '../../../lib/data-changes.ts';

export interface UpdateMemberVariables {
  memberId: string;
  body: UpdateMemberBody;
}

/** POST /api/team/members/{id}: a member's role, cameras and last day. */
export function updateMember({ memberId, body }: UpdateMemberVariables): Promise<MemberResponse> {
  return apiRequest<MemberResponse>(`/api/team/members/${encodeURIComponent(memberId)}`, {
    method: 'POST',
    body,
  });
}

export function useUpdateMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateMember,
    onSuccess: () => applyDataChange(queryClient, 'members'),
  });
}
