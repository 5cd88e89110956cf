import type { CustomerSecretResponse } from '@farmcam/contract';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /api/billing/create-customer-secret: the customer session the pricing table is given. */
export function createCustomerSecret(customerId: string, signal?: AbortSignal) {
  return apiRequest<CustomerSecretResponse>('/api/billing/create-customer-secret', {
    method: 'POST',
    body: { customerId },
    signal,
    // Spec §8: this failure has its own toast, 'Error fetching customer secret'.
    hasOwnErrorHandling: true,
  });
}
