import type { CustomerSecretResponse } from '@farmcam/contract';
import { apiRequest, newIdempotencyKey } from '../../../lib/api-client.ts';

/** POST /api/billing/create-customer-secret: the customer session the pricing table is given. */
export function createCustomerSecret(
  customerId: string,
  signal?: AbortSignal,
  idempotencyKey = newIdempotencyKey(),
) {
  return apiRequest<CustomerSecretResponse>('/api/billing/create-customer-secret', {
    method: 'POST',
    body: { customerId },
    signal,
    idempotencyKey,
    // docs/requirements.md#errors: this failure has its own toast, 'Error fetching customer secret'.
    hasOwnErrorHandling: true,
  });
}
