import type { SimValidationResponse, ValidateActivationCodeBody } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import { wizardHeaders } from './wizard-session.ts';

/** POST /api/activation/validate-activation-code: the SIM a 4-letter code belongs to. */
export function validateActivationCode(body: ValidateActivationCodeBody) {
  return apiRequest<SimValidationResponse>('/api/activation/validate-activation-code', {
    method: 'POST',
    body,
    headers: wizardHeaders(),
  });
}

export function useValidateActivationCode() {
  return useMutation({ mutationFn: validateActivationCode });
}
