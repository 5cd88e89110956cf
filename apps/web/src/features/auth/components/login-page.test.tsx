import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { toast } from '../../../lib/toast.tsx';
import { jsonResponse, mockFetch, renderRoute } from '../../../test/test-utils.tsx';
import { loginFailedMessage, loginLinkSentMessage } from './login-page.tsx';

async function submitEmail(email: string) {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('E-mail address'), email);
  await user.click(screen.getByRole('button', { name: 'Send login link' }));
}

describe('Login page', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'success').mockImplementation(() => undefined);
    vi.spyOn(toast, 'error').mockImplementation(() => undefined);
  });

  it('sends the e-mail exactly as typed and shows the server message', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, { message: 'Check your inbox' }));
    renderRoute('/');

    await submitEmail(' Farmer@Example ');

    await vi.waitFor(() => expect(toast.success).toHaveBeenCalledWith('Check your inbox'));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/auth/request-login');
    expect(init?.body).toBe(JSON.stringify({ email: ' Farmer@Example ' }));
  });

  it('falls back to its own success text when the server gives no message', async () => {
    mockFetch(() => jsonResponse(200, { message: '' }));
    renderRoute('/');

    await submitEmail('farmer@example.com');

    await vi.waitFor(() => expect(toast.success).toHaveBeenCalledWith(loginLinkSentMessage));
  });

  it('says a mistyped address once, by the field, with no toast over the title (decision 115)', async () => {
    mockFetch(() =>
      jsonResponse(400, { code: 'VALIDATION_FAILED', message: 'Enter a valid e-mail address' }),
    );
    renderRoute('/');

    await submitEmail('not an e-mail');

    expect(
      await screen.findByRole('textbox', {
        name: 'E-mail address',
        description: 'Enter a valid e-mail address',
      }),
    ).toBeDefined();
    expect(toast.error).not.toHaveBeenCalled();
  });

  it('shows "Couldn\'t login, please try again" when the login itself fails', async () => {
    mockFetch(() => jsonResponse(503, { code: 'UNAVAILABLE', message: 'Mail is down' }));
    renderRoute('/');

    await submitEmail('farmer@example.com');

    await vi.waitFor(() => expect(toast.error).toHaveBeenCalledWith(loginFailedMessage));
    expect(screen.queryByText('Mail is down')).toBeNull();
  });

  it('shows the server message when rate limited, so the user knows to wait', async () => {
    mockFetch(() =>
      jsonResponse(
        429,
        { code: 'RATE_LIMITED', message: 'Too many requests, try again in 60 seconds' },
        { 'Retry-After': '60' },
      ),
    );
    renderRoute('/');

    await submitEmail('farmer@example.com');

    await vi.waitFor(() =>
      expect(toast.error).toHaveBeenCalledWith('Too many requests, try again in 60 seconds'),
    );
  });

  it('offers "Go to dashboard" instead of the form when a token exists', async () => {
    authStore.signIn('session-token');
    renderRoute('/');

    const link = await screen.findByRole('link', { name: 'Go to dashboard' });
    expect(link.getAttribute('href')).toBe('/dashboard');
    expect(screen.queryByRole('button', { name: 'Send login link' })).toBeNull();
  });

  it('links to the staff sign-in', async () => {
    renderRoute('/');
    const link = await screen.findByRole('link', { name: 'Staff sign-in' });
    expect(link.getAttribute('href')).toBe('/team-login');
  });
});
