import type { SimValidationResponse, ValidateIccidBody } from '@farmcam/contract';
import { apiRequest } from '../../../lib/api-client.ts';
import { wizardHeaders } from './wizard-session.ts';

/** POST /api/activation/validate: is the SIM still for sale, just before the plans are shown. */
export function validateSim(body: ValidateIccidBody, signal?: AbortSignal) {
  return apiRequest<SimValidationResponse>('/api/activation/validate', {
    method: 'POST',
    body,
    signal,
    headers: wizardHeaders(),
  });
}
