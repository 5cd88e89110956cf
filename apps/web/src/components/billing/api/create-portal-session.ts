import type { PortalPurpose, PortalSessionResponse } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest, newIdempotencyKey } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';

/**
 * GET /api/billing/create-portal-session?customerId=: the hosted billing portal's address.
 * `pay` (an overdue camera's Pay now) opens it to pay what is due (decision 113).
 */
export function createPortalSession(
  customerId: string,
  idempotencyKey = newIdempotencyKey(),
  purpose: PortalPurpose = 'manage',
): Promise<PortalSessionResponse> {
  // One portal session per click, even when the call is sent again (docs/decisions/027).
  return apiRequest<PortalSessionResponse>('/api/billing/create-portal-session', {
    query: purpose === 'manage' ? { customerId } : { customerId, purpose },
    idempotencyKey,
  });
}

/**
 * Opens the billing portal in a new tab. The tab is opened at the click (a tab opened after an
 * await is blocked as a pop-up) and sent to the portal when its address arrives.
 */
export function useOpenBillingPortal() {
  const mutation = useMutation({
    mutationFn: ({ customerId, purpose }: { customerId: string; purpose: PortalPurpose }) =>
      createPortalSession(customerId, undefined, purpose),
  });
  return {
    isPending: mutation.isPending,
    open(customerId: string, purpose: PortalPurpose = 'manage') {
      const tab = window.open('', '_blank');
      if (tab) tab.opener = null;
      mutation.mutate(
        { customerId, purpose },
        {
          onSuccess: ({ url }) => {
            if (tab) tab.location.href = url;
            else window.location.assign(url);
          },
          onError: (error) => {
            tab?.close();
            if (!(error as { isReported?: boolean }).isReported) {
              toast.error('Could not open the billing page. Please try again.');
            }
          },
        },
      );
    },
  };
}
