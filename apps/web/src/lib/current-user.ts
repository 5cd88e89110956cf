import type { UserDataResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
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
