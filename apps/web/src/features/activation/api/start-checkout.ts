import type { ActivationCheckoutBody, ActivationCheckoutResponse } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { wizardHeaders } from './wizard-session.ts';

/** POST /api/activation/checkout: the hosted checkout for the chosen plan. */
export function startCheckout(body: ActivationCheckoutBody) {
  return apiRequest<ActivationCheckoutResponse>('/api/activation/checkout', {
    method: 'POST',
    body,
    headers: wizardHeaders(),
  });
}

export function useStartCheckout() {
  return useMutation({ mutationFn: startCheckout });
}
