import type { TokenResponse } from '@farmcam/contract';
import { apiRequest } from '../../../lib/api-client.ts';
import { authStore } from '../../../lib/auth-store.ts';

const signIns = new Map<string, Promise<TokenResponse>>();

/**
 * GET /api/auth/login?token=: trades a login link's token for a session and signs in with it.
 * A link works once, so a second call for the same token (React StrictMode runs effects twice; a
 * remount does it too) shares the first call rather than spending the link a second time.
 */
export function signInWithLoginLink(loginToken: string): Promise<TokenResponse> {
  let signIn = signIns.get(loginToken);
  if (!signIn) {
    signIn = apiRequest<TokenResponse>('/api/auth/login', {
      query: { token: loginToken },
      token: null,
      hasOwnErrorHandling: true,
    }).then((session) => {
      authStore.signIn(session.token);
      return session;
    });
    signIns.set(loginToken, signIn);
  }
  return signIn;
}
