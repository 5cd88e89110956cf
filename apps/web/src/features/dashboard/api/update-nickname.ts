import type { PlansResponse, UpdateNicknameBody, UpdateNicknameResponse } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { plansQueryKey } from './get-plans.ts';

/** POST /api/cameras/update-nickname: rename a camera (the server trims and checks the name). */
export function updateNickname(body: UpdateNicknameBody): Promise<UpdateNicknameResponse> {
  return apiRequest<UpdateNicknameResponse>('/api/cameras/update-nickname', {
    method: 'POST',
    body,
  });
}

/** docs/requirements.md#api: after a rename the cached camera list is updated locally, without a reload. */
export function useUpdateNickname() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateNickname,
    onSuccess: (response, { simIccid }) => {
      queryClient.setQueryData<PlansResponse>(plansQueryKey, (plans) =>
        plans
          ? {
              ...plans,
              cameras: plans.cameras.map((camera) =>
                camera.SIM_ICCID === simIccid
                  ? { ...camera, nicknameInDatabase: response.nickname }
                  : camera,
              ),
            }
          : plans,
      );
    },
  });
}
