import type { CancelPauseBody, PauseResultResponse } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, idempotencyKeyFor } from '../../../lib/api-client.ts';

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
    onSettled: (_data, _error, body) =>
      queryClient.invalidateQueries({
        queryKey: ['pause'],
        predicate: (query) => query.queryKey.includes(body.customer_id),
      }),
  });
}
