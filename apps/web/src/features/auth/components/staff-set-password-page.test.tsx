import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/toast.tsx';
import { jsonResponse, mockFetch, renderRoute } from '../../../test/test-utils.tsx';
import { passwordSetMessage, passwordsDifferMessage } from './staff-set-password-page.tsx';

const token = 'a'.repeat(43);
const page = `/team-login/set-password/${token}`;

async function choose(password: string, repeated: string) {
  const user = userEvent.setup();
  if (password) await user.type(await screen.findByLabelText('New password'), password);
  if (repeated) await user.type(await screen.findByLabelText('New password again'), repeated);
  await user.click(await screen.findByRole('button', { name: 'Set password' }));
}

describe('Staff set-password page', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'error').mockImplementation(() => undefined);
    vi.spyOn(toast, 'success').mockImplementation(() => undefined);
  });

  it.each([
    ['short', 'short', 'Please choose a password of at least 12 characters'],
    ['a long enough password', 'a long enough passwort', passwordsDifferMessage],
  ])('refuses "%s" / "%s" without calling the server', async (password, repeated, message) => {
    const fetchMock = mockFetch(() => jsonResponse(200, {}));
    renderRoute(page);

    await choose(password, repeated);

    expect((await screen.findByRole('alert')).textContent).toBe(message);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('sends the token and password, then opens staff sign-in with a success toast', async () => {
    const fetchMock = mockFetch(() =>
      jsonResponse(200, { message: 'Your password is set. You can sign in now.' }),
    );
    const { router } = renderRoute(page);

    await choose('correct horse battery', 'correct horse battery');

    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/team-login'));
    expect(toast.success).toHaveBeenCalledWith(passwordSetMessage);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(String(url)).toContain('/api/auth/staff-set-password');
    expect(init?.body).toBe(JSON.stringify({ token, password: 'correct horse battery' }));
  });

  it("shows the server's message when the link no longer works and stays on the page", async () => {
    mockFetch(() =>
      jsonResponse(400, {
        code: 'INVALID_TOKEN',
        message: 'This link is not valid any more. Please ask an administrator for a new one.',
      }),
    );
    const { router } = renderRoute(page);

    await choose('correct horse battery', 'correct horse battery');

    await vi.waitFor(() =>
      expect(toast.error).toHaveBeenCalledWith(
        'This link is not valid any more. Please ask an administrator for a new one.',
      ),
    );
    expect(router.state.location.pathname).toBe(page);
  });
});
