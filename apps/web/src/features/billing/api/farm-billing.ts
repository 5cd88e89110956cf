import type {
  BillingDetailsBody,
  BillingDetailsView,
  CardSetupResponse,
  FarmBillingResponse,
  FarmInvoicesQuery,
  PayAllResponse,
} from '@farmcam/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { env } from '../../../config/env.ts';
import { ApiError, apiRequest, idempotencyKeyFor } from '../../../lib/api-client.ts';
import { authStore } from '../../../lib/auth-store.ts';

/** The Billing page's filters, as kept in its URL. */
export type FarmBillingFilters = FarmInvoicesQuery;

const queryOf = (filters: FarmBillingFilters) => ({
  status: filters.status,
  camera: filters.camera,
  from: filters.from,
  to: filters.to,
});

/** GET /api/billing/farm: every camera's invoices (filtered), due now, next bills, cards, details. */
export function fetchFarmBilling(filters: FarmBillingFilters, signal?: AbortSignal) {
  return apiRequest<FarmBillingResponse>('/api/billing/farm', { signal, query: queryOf(filters) });
}

export function farmBillingQueryOptions(filters: FarmBillingFilters) {
  return queryOptions({
    queryKey: ['farm-billing', filters],
    queryFn: ({ signal }) => fetchFarmBilling(filters, signal),
    // Back from a card page or a hosted invoice: the page shows what is true now.
    refetchOnWindowFocus: 'always',
  });
}

/** Asked only for the owner (access.can.manageBilling); anyone else gets the server's 403. */
export function useFarmBilling(filters: FarmBillingFilters, isAllowed: boolean) {
  return useQuery({ ...farmBillingQueryOptions(filters), enabled: isAllowed });
}

/** One click of Pay all: its variables carry the amount shown, and its key (a retry: the same). */
export interface PayAllIntent {
  amount: number;
}

export function usePayAll() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (intent: PayAllIntent) =>
      apiRequest<PayAllResponse>('/api/billing/farm/pay-all', {
        method: 'POST',
        body: { amount: intent.amount },
        idempotencyKey: idempotencyKeyFor(intent),
        hasOwnErrorHandling: true,
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['farm-billing'] }),
  });
}

export function useSaveBillingDetails() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: BillingDetailsBody) =>
      apiRequest<{ details: BillingDetailsView | null }>('/api/billing/farm/details', {
        method: 'PUT',
        body,
        hasOwnErrorHandling: true,
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['farm-billing'] }),
  });
}

export function useCardForEveryCamera() {
  return useMutation({
    mutationFn: (intent: object) =>
      apiRequest<CardSetupResponse>('/api/billing/farm/card-for-every-camera', {
        method: 'POST',
        idempotencyKey: idempotencyKeyFor(intent),
        hasOwnErrorHandling: true,
      }),
  });
}

/**
 * GET /api/billing/farm/invoices.csv with the filters, saved as a file: the request carries the
 * session's bearer token, so it is fetched and handed to the browser as a download.
 */
export async function downloadInvoicesCsv(filters: FarmBillingFilters): Promise<void> {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(queryOf(filters))) if (value) search.set(key, value);
  const token = authStore.getState().token;
  const response = await fetch(`${env.apiBase}/api/billing/farm/invoices.csv?${search}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => null);
    throw new ApiError(response.status, body, false, 'GET /api/billing/farm/invoices.csv');
  }
  const name =
    /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ??
    'farmcam-invoices.csv';
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
