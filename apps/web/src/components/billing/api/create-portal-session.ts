import type { PortalSessionResponse } from '@farmcam/contract';
import { useMutation } from '@tanstack/react-query';
import { apiRequest, newIdempotencyKey } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';

/** GET /api/billing/create-portal-session?customerId=: the hosted billing portal's address. */
export function createPortalSession(
  customerId: string,
  idempotencyKey = newIdempotencyKey(),
): Promise<PortalSessionResponse> {
  // One portal session per click, even when the call is sent again (docs/decisions/027).
  return apiRequest<PortalSessionResponse>('/api/billing/create-portal-session', {
    query: { customerId },
    idempotencyKey,
  });
}

/**
 * Opens the billing portal in a new tab. The tab is opened at the click (a tab opened after an
 * await is blocked as a pop-up) and sent to the portal when its address arrives.
 */
export function useOpenBillingPortal() {
  const mutation = useMutation({
    mutationFn: (customerId: string) => createPortalSession(customerId),
  });
  return {
    isPending: mutation.isPending,
    open(customerId: string) {
      const tab = window.open('', '_blank');
      if (tab) tab.opener = null;
      mutation.mutate(customerId, {
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
      });
    },
  };
}
