import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { toast } from '../../../lib/toast.tsx';
import { jsonResponse, mockFetch, renderRoute } from '../../../test/test-utils.tsx';
import { missingCredentialsMessage } from './staff-login-page.tsx';

async function signIn(email: string, password: string) {
  const user = userEvent.setup();
  if (email) await user.type(await screen.findByLabelText('E-mail address'), email);
  if (password) await user.type(await screen.findByLabelText('Password'), password);
  await user.click(await screen.findByRole('button', { name: 'Sign in' }));
}

describe('Staff sign-in', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'error').mockImplementation(() => undefined);
  });

  it.each([
    ['', 'secret'],
    ['admin@example.com', ''],
    ['   ', 'secret'],
  ])(
    'asks for both fields (e-mail "%s", password "%s") without calling the server',
    async (email, password) => {
      const fetchMock = mockFetch(() => jsonResponse(200, {}));
      renderRoute('/team-login');

      await signIn(email, password);

      expect((await screen.findByRole('alert')).textContent).toBe(missingCredentialsMessage);
      expect(fetchMock).not.toHaveBeenCalled();
    },
  );

  it("on failure shows the server's message and clears the stored token", async () => {
    authStore.signIn('old-token');
    mockFetch(() =>
      jsonResponse(401, { code: 'BAD_CREDENTIALS', message: 'Wrong e-mail or password' }),
    );
    const { router } = renderRoute('/team-login');

    await signIn('admin@example.com', 'wrong');

    await vi.waitFor(() => expect(toast.error).toHaveBeenCalledWith('Wrong e-mail or password'));
    expect(authStore.getState().token).toBeNull();
    expect(router.state.location.pathname).toBe('/team-login');
  });

  it('on success stores the token and opens the staff area', async () => {
    const fetchMock = mockFetch((url) => {
      if (url.pathname === '/api/auth/admin-login') {
        return jsonResponse(200, { token: 'staff-token', expiresAt: '2030-01-01T00:00:00Z' });
      }
      if (url.pathname === '/api/auth/user-data') {
        const data = {
          email: 'admin@example.com',
          role: 'admin',
          customerId: null,
          impersonation: null,
        };
        return jsonResponse(200, { data });
      }
      return jsonResponse(200, { customers: [] });
    });
    const { router } = renderRoute('/team-login');

    await signIn('admin@example.com', 'correct horse');

    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/staff'));
    expect(await screen.findByText('No customers yet.')).toBeDefined();
    expect(authStore.getState().token).toBe('staff-token');
    expect(fetchMock.mock.calls[0]![1]?.body).toBe(
      JSON.stringify({ email: 'admin@example.com', password: 'correct horse' }),
    );
  });

  it('links back to the magic-link login', async () => {
    renderRoute('/team-login');
    const link = await screen.findByRole('link', { name: 'Back to Magic Link Login' });
    expect(link.getAttribute('href')).toBe('/');
  });
});
