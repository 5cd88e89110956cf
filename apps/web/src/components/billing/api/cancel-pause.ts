import type { CancelPauseBody, PauseResultResponse } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, idempotencyKeyFor } from '../../../lib/api-client.ts';
import { applyDataChange } from '../../../lib/data-changes.ts';

/** POST /api/pause/cancel-pause-subscription: cancel a scheduled pause. */
export function cancelPause(body: CancelPauseBody): Promise<PauseResultResponse> {
  return apiRequest<PauseResultResponse>('/api/pause/cancel-pause-subscription', {
    method: 'POST',
    body,
    idempotencyKey: idempotencyKeyFor(body),
  });
}

export function useCancelPause() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelPause,
    // Every screen that shows the plan's pause (decision 112).
    onSettled: () => applyDataChange(queryClient, 'pause'),
  });
}
