import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import {
  customerWithoutCameras,
  jsonResponse,
  memberAccess,
  mockFetch,
  renderRoute,
} from '../../../test/test-utils.tsx';

const vet = {
  email: 'vet@example.com',
  role: 'customer',
  customerId: 'c1',
  impersonation: null,
  access: memberAccess('viewer'),
};

describe('Invitation', () => {
  it('accepts the invitation once, keeps the session and opens the dashboard', async () => {
    const accepted: unknown[] = [];
    mockFetch((url, init) => {
      if (url.pathname === '/api/team/accept-invitation') {
        accepted.push(JSON.parse(String(init.body)));
        return jsonResponse(200, { token: 'member-session' });
      }
      return customerWithoutCameras(url, vet);
    });
    const { router } = renderRoute('/invitation?token=invitation-token-0123456789');

    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(authStore.getState().token).toBe('member-session');
    expect(window.localStorage.getItem('token')).toBe('member-session');
    // StrictMode runs the effect twice; the link is spent once.
    expect(accepted).toEqual([{ token: 'invitation-token-0123456789' }]);
    expect((await screen.findByRole('region', { name: 'Signed in' })).textContent).toContain(
      'vet@example.comViewer',
    );
  });

  it('says why an expired or used link does not work and offers a sign-in link', async () => {
    mockFetch(() =>
      jsonResponse(410, {
        code: 'GONE',
        message: 'This invitation has expired. Ask the account owner to send a new one.',
      }),
    );
    renderRoute('/invitation?token=expired-token-0123456789');

    expect((await screen.findByRole('alert')).textContent).toBe(
      'This invitation has expired. Ask the account owner to send a new one.',
    );
    expect(authStore.getState().token).toBeNull();
    expect(screen.getByRole('link', { name: 'Get a sign-in link' }).getAttribute('href')).toBe('/');
  });

  it('says so when the link has no token', async () => {
    const fetchMock = mockFetch(() => jsonResponse(404, {}));
    renderRoute('/invitation');
    expect((await screen.findByRole('alert')).textContent).toMatch(/not complete/);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
