import type { StaffLoginBody, TokenResponse } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /api/auth/admin-login: staff (admin and team) sign in with e-mail and password. */
export function staffLogin(body: StaffLoginBody): Promise<TokenResponse> {
  return apiRequest<TokenResponse>('/api/auth/admin-login', {
    method: 'POST',
    body,
    token: null,
    hasOwnErrorHandling: true,
  });
}

export function useStaffLogin() {
  return useMutation({ mutationFn: staffLogin });
}
