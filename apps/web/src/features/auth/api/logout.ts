import { useCallback } from 'react';
import { useNavigate } from '../../../lib/router/index.ts';
import { paths } from '../../../config/paths.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { authStore } from '../../../lib/auth-store.ts';

/** POST /api/auth/logout: revokes one session token on the server. */
export function revokeSession(token: string): Promise<void> {
  return apiRequest<void>('/api/auth/logout', {
    method: 'POST',
    token,
    hasOwnErrorHandling: true,
  });
}

// Best effort: the session ends in this browser whether or not the server hears of it (offline,
// or the token expired already), so a failure is not the user's concern.
function revokeInBackground(token: string | null): void {
  if (token !== null) revokeSession(token).catch(() => undefined);
}

/** Logout (docs/requirements.md#screens): clears the auth state and, with it, the API cache, then goes to /. */
export function useLogout(): () => void {
  const navigate = useNavigate();
  return useCallback(() => {
    const { token, staffToken } = authStore.getState();
    revokeInBackground(token);
    revokeInBackground(staffToken);
    authStore.clear();
    void navigate(paths.login.href());
  }, [navigate]);
}

/** Ends a staff view of a customer's portal: back to the staff session and the staff area. */
export function useEndImpersonation(): () => void {
  const navigate = useNavigate();
  return useCallback(() => {
    const { token, staffToken } = authStore.getState();
    revokeInBackground(token);
    authStore.endImpersonation();
    void navigate(staffToken === null ? paths.login.href() : paths.staff.href());
  }, [navigate]);
}
