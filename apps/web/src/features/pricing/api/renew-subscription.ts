import type { CheckoutResponse, RenewSubscriptionBody } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest, idempotencyKeyFor } from '../../../lib/api-client.ts';

/** POST /api/subscriptions/renew: a hosted checkout for a new subscription on this camera. */
export function renewSubscription(body: RenewSubscriptionBody): Promise<CheckoutResponse> {
  return apiRequest<CheckoutResponse>('/api/subscriptions/renew', {
    method: 'POST',
    body,
    idempotencyKey: idempotencyKeyFor(body),
  });
}

export function useRenewSubscription() {
  return useMutation({ mutationFn: renewSubscription });
}
