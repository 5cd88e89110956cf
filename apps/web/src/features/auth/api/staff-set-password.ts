import type { MessageBody, StaffSetPasswordBody } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /api/auth/staff-set-password: a staff account's password from its one-time link. */
export function staffSetPassword(body: StaffSetPasswordBody): Promise<MessageBody> {
  return apiRequest<MessageBody>('/api/auth/staff-set-password', {
    method: 'POST',
    body,
    token: null,
    hasOwnErrorHandling: true,
  });
}

export function useStaffSetPassword() {
  return useMutation({ mutationFn: staffSetPassword });
}
