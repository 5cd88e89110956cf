import type { UserDataResponse } from '@farmcam/contract';
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { apiRequest } from './api-client.ts';
import { useIsSignedIn } from './auth-store.ts';

/**
 * GET /api/auth/user-data: who the session belongs to. Several features need it (the e-mail,
 * the staff role, the impersonation banner), so it lives below them rather than in one feature.
 */
export type CurrentUser = UserDataResponse['data'];

export function fetchCurrentUser(signal?: AbortSignal): Promise<CurrentUser> {
  return apiRequest<UserDataResponse>('/api/auth/user-data', { signal }).then(
    (response) => response.data,
  );
}

export const currentUserQueryOptions = queryOptions({
  queryKey: ['auth', 'user-data'],
  queryFn: ({ signal }) => fetchCurrentUser(signal),
  staleTime: 5 * 60_000,
});

/** docs/requirements.md#roles: user data is fetched only when a token exists. */
export function useCurrentUser() {
  const isSignedIn = useIsSignedIn();
  return useQuery({ ...currentUserQueryOptions, enabled: isSignedIn });
}

export function isStaffRole(role: CurrentUser['role']): boolean {
  return role === 'team' || role === 'admin';
}

/** Reloads the person's access (user-data); the screens follow if it changed. */
export function refreshAccess(client: QueryClient): Promise<void> {
  return client.invalidateQueries({ queryKey: currentUserQueryOptions.queryKey });
}

/**
 * When user-data comes back with another role, cameras or last day than before (the owner
 * changed them while this person was signed in), every other cached answer was shaped by the old
 * access (the cards' actions, the camera list): they are all reloaded. Returns the unsubscribe.
 */
export function reloadWhenAccessChanges(client: QueryClient): () => void {
  let previous: string | undefined;
  return client.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'success') return;
    if (event.query.queryHash !== JSON.stringify(currentUserQueryOptions.queryKey)) return;
    const access = JSON.stringify((event.query.state.data as CurrentUser | undefined)?.access);
    if (previous !== undefined && access !== previous) {
      void client.invalidateQueries({
        predicate: (query) => query.queryHash !== event.query.queryHash,
      });
    }
    previous = access;
  });
}
