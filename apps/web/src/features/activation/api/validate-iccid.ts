import type { SimValidationResponse, ValidateIccidBody } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { wizardHeaders } from './wizard-session.ts';

/** POST /api/activation/validate-iccid: the 20-digit method. */
export function validateIccid(body: ValidateIccidBody) {
  return apiRequest<SimValidationResponse>('/api/activation/validate-iccid', {
    method: 'POST',
    body,
    headers: wizardHeaders(),
  });
}

export function useValidateIccid() {
  return useMutation({ mutationFn: validateIccid });
}
