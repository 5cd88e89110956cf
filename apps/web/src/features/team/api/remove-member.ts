import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { applyDataChange } from '../../../lib/data-changes.ts';

/** POST /api/team/members/{id}/remove: the member loses access and is signed out at once. */
export function removeMember(memberId: string): Promise<unknown> {
  return apiRequest<unknown>(`/api/team/members/${encodeURIComponent(memberId)}/remove`, {
    method: 'POST',
  });
}

export function useRemoveMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removeMember,
    onSuccess: () => applyDataChange(queryClient, 'members'),
  });
}
