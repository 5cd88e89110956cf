import type { CheckSolarSimBody, SolarCheckResponse } from '@farmcam/contract';
import { apiRequest } from '../../../lib/api-client.ts';
import { wizardHeaders } from './wizard-session.ts';

/** POST /api/activation/check-solar-sim: the pricing table for this SIM and region. */
export function checkSolarSim(body: CheckSolarSimBody, signal?: AbortSignal) {
  return apiRequest<SolarCheckResponse>('/api/activation/check-solar-sim', {
    method: 'POST',
    body,
    signal,
    headers: wizardHeaders(),
    // docs/requirements.md#errors: a failed check is logged and the fallback table used; no toast.
    hasOwnErrorHandling: true,
  });
}
