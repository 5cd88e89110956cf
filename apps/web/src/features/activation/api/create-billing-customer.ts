import type {
  ActivationBillingCustomerBody,
  ActivationBillingCustomerResponse,
} from '@farmcam/contract';
import { apiRequest } from '../../../lib/api-client.ts';
import { wizardHeaders } from './wizard-session.ts';

/** POST /api/activation/billing-customer (signed in): the new camera's billing account. */
export function createBillingCustomer(body: ActivationBillingCustomerBody, signal?: AbortSignal) {
  return apiRequest<ActivationBillingCustomerResponse>('/api/activation/billing-customer', {
    method: 'POST',
    body,
    signal,
    headers: wizardHeaders(),
    hasOwnErrorHandling: true,
  });
}
