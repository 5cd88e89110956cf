import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { authStore } from '../../lib/auth-store.ts';
import {
  customerWithoutCameras,
  memberAccess,
  mockFetch,
  ownerAccess,
  renderRoute,
} from '../../test/test-utils.tsx';

const customerUser = {
  email: 'farmer@example.com',
  role: 'customer',
  customerId: 'c1',
  impersonation: null,
  access: ownerAccess(),
};

describe('Page frame', () => {
  it('shows no navigation without a token, but the logo linking to / above the title', async () => {
    renderRoute('/');

    const title = await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    expect(screen.queryByRole('navigation')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Menu' })).toBeNull();
    const logo = screen.getByRole('link', { name: 'Farmcam Portal home' });
    expect(logo.getAttribute('href')).toBe('/');
    expect(logo.compareDocumentPosition(title) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('shows the navigation with a token, and no logo above the title', async () => {
    authStore.signIn('session-token');
    mockFetch((url) => customerWithoutCameras(url, customerUser));
    renderRoute('/dashboard');

    await screen.findByRole('heading', { level: 1, name: 'Account' });
    // The frame shows while the page's code loads; the owner's links once user-data is in.
    expect(await screen.findByText('You have no cameras yet.')).toBeDefined();
    const navigation = screen.getByRole('navigation', { name: 'Main' });
    const links = within(navigation).getAllByRole('link');
    expect(links.map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Account', '/dashboard'],
      ['Activate', '/activate'],
      ['LivestreamingNEW', '/livestreaming'],
      ['Notifications', '/notifications'],
      ['Billing', '/billing'],
      ['Team', '/team'],
      ['Activity', '/activity'],
      ['Company website (opens in a new tab)↗', 'https://www.example.com'],
    ]);
    expect(links[7]!.getAttribute('target')).toBe('_blank');
    expect(links[7]!.getAttribute('rel')).toContain('noopener');
    expect(within(navigation).getByRole('button', { name: 'Logout' })).toBeDefined();
    expect(screen.queryByRole('link', { name: 'Farmcam Portal home' })).toBeNull();
  });

  it('shows who is signed in, their role and, for a member, whose account', async () => {
    authStore.signIn('session-token');
    mockFetch((url) =>
      customerWithoutCameras(url, {
        ...customerUser,
        email: 'vet@example.com',
        access: memberAccess('viewer'),
      }),
    );
    renderRoute('/dashboard');

    const person = await screen.findByRole('region', { name: 'Signed in' });
    expect(person.textContent).toBe('vet@example.comViewer on the account of farmer@example.com');
    // A Viewer is offered neither activation nor the owner's screens (access.can says no), and
    // their first page is named for what it shows: cameras someone shared (decision 170).
    const navigation = screen.getByRole('navigation', { name: 'Main' });
    expect(within(navigation).getByRole('link', { name: 'Shared cameras' })).toBeDefined();
    expect(within(navigation).queryByRole('link', { name: 'Account' })).toBeNull();
    // Everyone has their own Notifications page (decision 122).
    expect(within(navigation).getByRole('link', { name: 'Notifications' })).toBeDefined();
    for (const name of ['Activate', 'Team', 'Activity']) {
      expect(within(navigation).queryByRole('link', { name })).toBeNull();
    }
  });

  it('names the owner as Owner, without an account line', async () => {
    authStore.signIn('session-token');
    mockFetch((url) => customerWithoutCameras(url, customerUser));
    renderRoute('/dashboard');

    const person = await screen.findByRole('region', { name: 'Signed in' });
    expect(person.textContent).toBe('farmer@example.comOwner');
    const navigation = screen.getByRole('navigation', { name: 'Main' });
    expect(within(navigation).getByRole('link', { name: 'Account' })).toBeDefined();
  });

  it('redirects the framed pages to / without a token', async () => {
    const { router } = renderRoute('/dashboard');
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });

  it('logs out: clears the session and the cache, revokes the token and goes to /', async () => {
    authStore.signIn('session-token');
    const fetchMock = mockFetch((url) =>
      url.pathname === '/api/auth/logout'
        ? new Response(null, { status: 204 })
        : customerWithoutCameras(url, customerUser),
    );
    const { router } = renderRoute('/dashboard');
    await screen.findByText('You have no cameras yet.');

    const navigation = screen.getByRole('navigation', { name: 'Main' });
    await userEvent.click(within(navigation).getByRole('button', { name: 'Logout' }));

    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(authStore.getState().token).toBeNull();
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(fetchMock.mock.calls.some(([url]) => url === '/api/auth/logout')).toBe(true);
    expect(await screen.findByRole('button', { name: 'Send login link' })).toBeDefined();
  });
});

describe('Mobile menu', () => {
  async function renderSignedIn() {
    authStore.signIn('session-token');
    mockFetch((url) => customerWithoutCameras(url, customerUser));
    const view = renderRoute('/dashboard');
    const menuButton = await screen.findByRole('button', { name: 'Menu' });
    const panel = document.getElementById(menuButton.getAttribute('aria-controls')!);
    return { ...view, menuButton, panel: panel as HTMLDialogElement };
  }

  it('opens as a modal panel and closes with its close button, returning focus', async () => {
    const { menuButton, panel } = await renderSignedIn();
    const user = userEvent.setup();
    expect(menuButton.getAttribute('aria-expanded')).toBe('false');
    expect(panel.open).toBe(false);

    await user.click(menuButton);
    expect(menuButton.getAttribute('aria-expanded')).toBe('true');
    expect(panel.open).toBe(true);
    expect(within(panel).getByRole('navigation', { name: 'Main menu' })).toBeDefined();

    await user.click(within(panel).getByRole('button', { name: 'Close menu' }));
    expect(menuButton.getAttribute('aria-expanded')).toBe('false');
    expect(panel.open).toBe(false);
    expect(document.activeElement).toBe(menuButton);
  });

  it('closes when the browser closes the dialog (Escape)', async () => {
    const { menuButton, panel } = await renderSignedIn();
    await userEvent.click(menuButton);

    // happy-dom does not act on Escape; a browser closes the modal dialog itself, as here.
    act(() => panel.close());

    expect(menuButton.getAttribute('aria-expanded')).toBe('false');
  });

  it('closes when an item is chosen', async () => {
    const { menuButton, panel, router } = await renderSignedIn();
    const user = userEvent.setup();
    await user.click(menuButton);

    await user.click(within(panel).getByRole('link', { name: 'Account' }));

    expect(panel.open).toBe(false);
    expect(router.state.location.pathname).toBe('/dashboard');
  });
});
