import type { OrderStatusResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /api/activation/orders/:orderId: the thank-you page's order as the server knows it. */
export function getOrder(orderId: string, signal?: AbortSignal) {
  return apiRequest<OrderStatusResponse>(`/api/activation/orders/${encodeURIComponent(orderId)}`, {
    signal,
  });
}

export const orderQueryOptions = (orderId: string) =>
  queryOptions({
    queryKey: ['activation', 'order', orderId],
    queryFn: ({ signal }) => getOrder(orderId, signal),
  });

export function useOrder(orderId: string | null) {
  return useQuery({ ...orderQueryOptions(orderId ?? ''), enabled: orderId !== null });
}
