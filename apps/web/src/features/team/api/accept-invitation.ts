import type { TokenResponse } from '@farmcam/contract';
import { apiRequest } from '../../../lib/api-client.ts';
import { authStore } from '../../../lib/auth-store.ts';

const acceptances = new Map<string, Promise<TokenResponse>>();

/**
 * POST /api/team/accept-invitation: trades the e-mailed invitation's token for a session and
 * signs in with it, as a login link does. An invitation works once, so a second call for the same
 * token (StrictMode runs effects twice) shares the first call instead of spending the link again.
 */
export function acceptInvitation(invitationToken: string): Promise<TokenResponse> {
  let acceptance = acceptances.get(invitationToken);
  if (!acceptance) {
    acceptance = apiRequest<TokenResponse>('/api/team/accept-invitation', {
      method: 'POST',
      body: { token: invitationToken },
      token: null,
      hasOwnErrorHandling: true,
    }).then((session) => {
      authStore.signIn(session.token);
      return session;
    });
    acceptances.set(invitationToken, acceptance);
  }
  return acceptance;
}
