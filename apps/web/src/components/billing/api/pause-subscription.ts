import type { PauseResultResponse, PauseSubscriptionBody } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, idempotencyKeyFor } from '../../../lib/api-client.ts';
import { applyDataChange } from '../../../lib/data-changes.ts';

/** POST /api/pause/pause-subscription: pause from the next allowed 1st until `resume_date`. */
export function pauseSubscription(body: PauseSubscriptionBody): Promise<PauseResultResponse> {
  return apiRequest<PauseResultResponse>('/api/pause/pause-subscription', {
    method: 'POST',
    body,
    idempotencyKey: idempotencyKeyFor(body),
  });
}

export function usePauseSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: pauseSubscription,
    // Every screen that shows the plan's pause (decision 112).
    onSettled: () => applyDataChange(queryClient, 'pause'),
  });
}
