import type { RequestLoginBody, RequestLoginResponse } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /api/auth/request-login: e-mails a one-time login link. */
export function requestLogin(body: RequestLoginBody): Promise<RequestLoginResponse> {
  return apiRequest<RequestLoginResponse>('/api/auth/request-login', {
    method: 'POST',
    body,
    token: null,
    hasOwnErrorHandling: true,
  });
}

export function useRequestLogin() {
  return useMutation({ mutationFn: requestLogin });
}
