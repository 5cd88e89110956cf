import { useSyncExternalStore } from 'react';
import { tokenStorageKey } from './token-storage-key.ts';

/**
 * Auth state (docs/requirements.md#data): the session token, or null when signed out, mirrored in local storage
 * under 'token' so a reload keeps the session. While staff view a customer's portal, 'token' holds
 * the customer-scoped impersonation token and 'staffToken' keeps the staff session to return to.
 */
export interface AuthState {
  token: string | null;
  staffToken: string | null;
}

export { tokenStorageKey } from './token-storage-key.ts';
export const staffTokenStorageKey = 'staffToken';

function readStorage(key: string): string | null {
  try {
    return window.localStorage.getItem(key) || null;
  } catch {
    // Storage can be blocked (privacy settings); the session then lasts until the tab closes.
    return null;
  }
}

function writeStorage(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // See readStorage: the in-memory state stays authoritative.
  }
}

type Listener = () => void;

/** Restores the tokens kept in local storage, as at page load. */
export function createAuthStore() {
  let state: AuthState = {
    token: readStorage(tokenStorageKey),
    staffToken: readStorage(staffTokenStorageKey),
  };
  const listeners = new Set<Listener>();

  function setState(next: AuthState): void {
    if (next.token === state.token && next.staffToken === state.staffToken) return;
    state = next;
    writeStorage(tokenStorageKey, next.token);
    writeStorage(staffTokenStorageKey, next.staffToken);
    for (const listener of listeners) listener();
  }

  return {
    getState: (): AuthState => state,
    subscribe(listener: Listener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** A fresh sign-in replaces any session, including a staff session left behind. */
    signIn(token: string): void {
      setState({ token, staffToken: null });
    },
    /** Signed out: both tokens go, so no credential is left in storage. */
    clear(): void {
      setState({ token: null, staffToken: null });
    },
    /** Staff open a customer's portal: the staff token is parked until they come back. */
    startImpersonation(impersonationToken: string): void {
      setState({ token: impersonationToken, staffToken: state.token });
    },
    /** Back to the staff session; signed out if there is none to return to. */
    endImpersonation(): void {
      setState({ token: state.staffToken, staffToken: null });
    },
  };
}

export const authStore = createAuthStore();

/** What the landing page prerendered at build time shows: a visitor (prerender.tsx). */
const visitorState: AuthState = { token: null, staffToken: null };

export function useAuthState(): AuthState {
  return useSyncExternalStore(authStore.subscribe, authStore.getState, () => visitorState);
}

/** Signed in means a token is present (docs/requirements.md#states). */
export function useIsSignedIn(): boolean {
  return useAuthState().token !== null;
}
