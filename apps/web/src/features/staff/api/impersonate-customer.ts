import type { ImpersonationResponse } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /api/staff/customers/{id}/impersonate: a time-limited, audited session as that customer. */
export function impersonateCustomer(customerId: string): Promise<ImpersonationResponse> {
  return apiRequest<ImpersonationResponse>(
    `/api/staff/customers/${encodeURIComponent(customerId)}/impersonate`,
    { method: 'POST' },
  );
}

export function useImpersonateCustomer() {
  return useMutation({ mutationFn: impersonateCustomer });
}
