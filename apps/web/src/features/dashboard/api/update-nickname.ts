import type { UpdateNicknameBody, UpdateNicknameResponse } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { applyRename } from '../../../lib/data-changes.ts';

/** POST /api/cameras/update-nickname: rename a camera (the server trims and checks the name). */
export function updateNickname(body: UpdateNicknameBody): Promise<UpdateNicknameResponse> {
  return apiRequest<UpdateNicknameResponse>('/api/cameras/update-nickname', {
    method: 'POST',
    body,
  });
}

/**
 * docs/requirements.md#api: after a rename the cached camera list is updated locally, without a
 * reload; so is every other answer that names the camera (lib/data-changes.ts, decision 112).
 */
export function useUpdateNickname() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateNickname,
    onSuccess: (response, { simIccid }) =>
      void applyRename(queryClient, simIccid, response.nickname),
  });
}
