import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, mockFetch, renderRoute, requestHeaders } from '../../../test/test-utils.tsx';

const staffUser = {
  email: 'admin@example.com',
  role: 'admin',
  customerId: null,
  impersonation: null,
};
const customer = {
  id: '7d4f6a59-3c4e-4f7f-9a55-0c1f2f9a1b11',
  email: 'farmer@example.com',
  createdAt: '2026-03-04T10:00:00Z',
  cameraCount: 3,
  states: { active: 2, paused: 0, attention: 1, terminated: 0 },
};

function mockStaffApi() {
  return mockFetch((url, init) => {
    const token = requestHeaders(init).get('Authorization');
    if (url.pathname === '/api/auth/user-data') {
      if (token === 'Bearer staff-token') return jsonResponse(200, { data: staffUser });
      const impersonation = {
        staffEmail: staffUser.email,
        staffRole: 'admin',
        customerEmail: customer.email,
        expiresAt: '2030-01-01T14:05:00',
      };
      return jsonResponse(200, {
        data: { email: customer.email, role: 'customer', customerId: customer.id, impersonation },
      });
    }
    if (url.pathname === '/api/staff/customers') {
      const query = url.searchParams.get('q') ?? '';
      return jsonResponse(200, { customers: customer.email.includes(query) ? [customer] : [] });
    }
    if (url.pathname === `/api/staff/customers/${customer.id}/impersonate`) {
      return jsonResponse(200, { token: 'impersonation-token', expiresAt: '2030-01-01T14:05:00' });
    }
    if (url.pathname === '/api/auth/logout') return new Response(null, { status: 204 });
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
}

describe('Staff area', () => {
  it('sends anyone without a staff session to /', async () => {
    const { router } = renderRoute('/staff');
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });

  it('lists and searches customers with their camera counts', async () => {
    authStore.signIn('staff-token');
    const fetchMock = mockStaffApi();
    renderRoute('/staff');

    const row = (await screen.findByRole('rowheader', { name: customer.email })).closest('tr')!;
    expect(
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['3', '2 active1 attention', '4 Mar 2026', 'Open portal as this customer']);

    await userEvent.type(screen.getByRole('searchbox', { name: 'Search customers' }), 'nobody');
    expect(await screen.findByText('No customers match “nobody”.')).toBeDefined();
    const searches = fetchMock.mock.calls.filter(([url]) => String(url).startsWith('/api/staff'));
    // Debounced: the first load and the finished search term, no call per keystroke. (StrictMode
    // remounts cancel and repeat the first load, hence the set.)
    expect(new Set(searches.map(([url]) => String(url)))).toEqual(
      new Set(['/api/staff/customers', '/api/staff/customers?q=nobody']),
    );
  });

  it("opens a customer's portal with the banner, and goes back to staff", async () => {
    authStore.signIn('staff-token');
    mockStaffApi();
    const { router } = renderRoute('/staff');
    const user = userEvent.setup();

    await user.click(await screen.findByRole('button', { name: 'Open portal as this customer' }));

    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(authStore.getState()).toEqual({
      token: 'impersonation-token',
      staffToken: 'staff-token',
    });
    const banner = await screen.findByRole('region', { name: 'Staff view' });
    await vi.waitFor(() =>
      expect(banner.textContent).toContain(
        'Viewing the portal as farmer@example.com — staff admin@example.com, until 14:05',
      ),
    );

    await user.click(within(banner).getByRole('button', { name: 'Back to staff' }));

    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/staff'));
    expect(authStore.getState()).toEqual({ token: 'staff-token', staffToken: null });
    expect(await screen.findByRole('rowheader', { name: customer.email })).toBeDefined();
  });
});
