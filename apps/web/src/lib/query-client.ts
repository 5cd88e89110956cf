import { QueryClient } from '@tanstack/react-query';
import { ApiError, onForbidden } from './api-client.ts';
import { authStore } from './auth-store.ts';
import { refreshAccess, reloadWhenAccessChanges } from './current-user.ts';

/** Only failures that may pass on their own are retried: no connection, or a 5xx. */
function isWorthRetrying(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  return (
    error.status === 'FETCH_ERROR' || (typeof error.status === 'number' && error.status >= 500)
  );
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failureCount, error) => failureCount < 2 && isWorthRetrying(error),
        staleTime: 30_000,
        // Farmers switch apps a lot on phones; refetching on every return wastes their data.
        refetchOnWindowFocus: false,
      },
      // An action with no connection fails at once and says so (api-client.ts) rather than
      // waiting, unseen, to be sent later: nothing is queued silently (decision 119).
      mutations: { retry: false, networkMode: 'always' },
    },
  });
}

export const queryClient = createQueryClient();

// The cache holds one session's answers: whenever the token changes (sign-in, logout, expiry,
// impersonation) none of them may be shown to the next session.
authStore.subscribe(() => queryClient.clear());

// A role the owner changed shows on the next screen, or at the latest when the server refuses
// something the old role allowed (decision 093).
reloadWhenAccessChanges(queryClient);
onForbidden(() => void refreshAccess(queryClient));
