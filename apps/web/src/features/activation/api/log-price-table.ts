import type { LogPriceTableBody, SuccessBody } from '@farmcam/contract';
import { apiRequest } from '../../../lib/api-client.ts';

/** POST /api/activation/log-price-table: which table was shown (the screen does not use the answer). */
export function logPriceTable(body: LogPriceTableBody) {
  return apiRequest<SuccessBody>('/api/activation/log-price-table', {
    method: 'POST',
    body,
    hasOwnErrorHandling: true,
  });
}
