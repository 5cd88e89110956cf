import type { ChangePlanBody, ChangePlanResponse } from '@farmcam/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, idempotencyKeyFor } from '../../../lib/api-client.ts';
import { applyDataChange } from '../../../lib/data-changes.ts';

/** POST /api/subscriptions/change-plan: switch now, charged pro-rata at once. */
export function changePlan(body: ChangePlanBody): Promise<ChangePlanResponse> {
  return apiRequest<ChangePlanResponse>('/api/subscriptions/change-plan', {
    method: 'POST',
    body,
    idempotencyKey: idempotencyKeyFor(body),
  });
}

export function useChangePlan() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: changePlan,
    // The plan, the invoices and the dashboard's camera list all change with a switch; the
    // preview of the switch just made is left alone (it would now be refused): decision 112.
    onSettled: () => applyDataChange(queryClient, 'plan'),
  });
}
