import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { toast } from '../../../lib/toast.tsx';
import {
  customerWithoutCameras,
  jsonResponse,
  mockFetch,
  ownerAccess,
  renderRoute,
} from '../../../test/test-utils.tsx';
import { loginSuccessfulMessage } from './magic-link-page.tsx';

describe('Magic-link landing', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'success').mockImplementation(() => undefined);
    vi.spyOn(toast, 'error').mockImplementation(() => undefined);
  });

  it('shows a loader, exchanges the token once, signs in and goes to the dashboard', async () => {
    const fetchMock = mockFetch((url) => {
      if (url.pathname === '/api/auth/login') {
        return jsonResponse(200, { token: 'session-token', expiresAt: '2030-01-01T00:00:00Z' });
      }
      return customerWithoutCameras(url, {
        email: 'farmer@example.com',
        role: 'customer',
        customerId: 'c1',
        impersonation: null,
        access: ownerAccess(),
      });
    });
    const { router } = renderRoute('/login/link-token-1');

    expect((await screen.findByText('Signing you in…')).closest('[role="status"]')).not.toBeNull();
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));

    expect(authStore.getState().token).toBe('session-token');
    expect(toast.success).toHaveBeenCalledWith(loginSuccessfulMessage);
    // Rendered in StrictMode, whose doubled effects must not spend the single-use link twice.
    const exchanges = fetchMock.mock.calls.filter(([url]) =>
      String(url).startsWith('/api/auth/login'),
    );
    expect(exchanges).toHaveLength(1);
    expect(String(exchanges[0]![0])).toBe('/api/auth/login?token=link-token-1');
    expect(await screen.findByText('You have no cameras yet.')).toBeDefined();
  });

  it("shows the server's message and returns to / when the link does not work", async () => {
    mockFetch(() =>
      jsonResponse(401, { code: 'LINK_USED', message: 'This login link has already been used' }),
    );
    const { router } = renderRoute('/login/link-token-2');

    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(toast.error).toHaveBeenCalledWith('This login link has already been used');
    expect(authStore.getState().token).toBeNull();
    expect(router.state.historyAction).toBe('REPLACE');
  });
});
