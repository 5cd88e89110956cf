import type { ActivityEntry } from '@farmcam/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, mockFetch, ownerAccess, renderRoute } from '../../../test/test-utils.tsx';

const owner = {
  email: 'farmer@example.com',
  role: 'customer',
  customerId: 'c1',
  impersonation: null,
  access: ownerAccess('farmer@example.com'),
};

const team = {
  cameras: [{ iccid: '8944000000000000001', nickname: 'Top gate' }],
  members: [
    {
      id: '11111111-1111-4111-8111-111111111111',
      email: 'vet@example.com',
      role: 'viewer',
      allCameras: true,
      cameras: [],
      accessUntil: null,
      status: 'active',
      invitedAt: '2026-11-01T10:00:00.000Z',
      acceptedAt: '2026-11-01T11:00:00.000Z',
      invitationExpiresAt: null,
    },
  ],
};

function buildEntry(overrides: Partial<ActivityEntry> = {}): ActivityEntry {
  return {
    id: 'a1',
    // 14:05 UTC in July is 15:05 in the UK.
    at: '2026-07-01T14:05:00.000Z',
    category: 'cameras',
    action: 'camera.rename',
    summary: 'Renamed "Gate" to "Top gate"',
    actor: { kind: 'manager', email: 'manager@example.com', staffEmail: null },
    iccid: '8944000000000000001',
    ip: '203.0.113.7',
    place: 'A new network for them',
    userAgent:
      'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36',
    ...overrides,
  };
}

/** Serves pages of activity: the answer for each query string (filters and cursor) asked. */
function serveActivity(answer: (query: URLSearchParams) => Response) {
  authStore.signIn('owner-token');
  const queries: URLSearchParams[] = [];
  mockFetch((url) => {
    if (url.pathname === '/api/auth/user-data') return jsonResponse(200, { data: owner });
    if (url.pathname === '/api/team') return jsonResponse(200, team);
    if (url.pathname === '/api/activity') {
      queries.push(url.searchParams);
      return answer(url.searchParams);
    }
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
  return queries;
}

describe('Activity', () => {
  it('lists who did what, when in UK time, on which camera and from where; staff marked', async () => {
    serveActivity(() =>
      jsonResponse(200, {
        entries: [
          buildEntry(),
          buildEntry({
            id: 'a2',
            at: '2026-01-10T09:00:00.000Z',
            category: 'staff',
            action: 'staff.opened-portal',
            summary: 'Staff opened the portal',
            actor: {
              kind: 'staff',
              email: 'farmer@example.com',
              staffEmail: 'help@farmcam.example',
            },
            iccid: null,
            userAgent: null,
            ip: null,
            place: null,
          }),
          buildEntry({
            id: 'a3',
            category: 'billing',
            action: 'billing.payment_failed',
            summary: 'A payment of £12.00 failed',
            actor: { kind: 'system', email: null, staffEmail: null },
            iccid: null,
            ip: null,
            place: null,
            userAgent: null,
          }),
        ],
        nextCursor: null,
      }),
    );
    renderRoute('/activity');

    const table = await screen.findByRole('table', { name: 'Activity' });
    const [, renamed, staff, system] = within(table).getAllByRole('row');
    expect(within(renamed!).getByText('1 Jul 2026, 15:05')).toBeDefined();
    expect(within(renamed!).getByText('manager@example.com')).toBeDefined();
    expect(within(renamed!).getByText('Manager')).toBeDefined();
    expect(within(renamed!).getByText('Renamed "Gate" to "Top gate"')).toBeDefined();
    expect(within(renamed!).getByText('Top gate')).toBeDefined();
    expect(within(renamed!).getByText('Chrome on Android')).toBeDefined();
    // Where it came from in words (decision 142), never the raw address.
    expect(within(renamed!).getByText('A new network for them')).toBeDefined();
    expect(within(renamed!).queryByText('203.0.113.7')).toBeNull();

    expect(within(staff!).getByText('Staff', { selector: '[class*="chip"]' })).toBeDefined();
    expect(within(staff!).getByText('help@farmcam.example')).toBeDefined();
    expect(within(staff!).getByText('10 Jan 2026, 09:00')).toBeDefined();

    expect(within(system!).getByText('Farmcam (automatic)')).toBeDefined();
    expect(screen.getByRole('status').textContent).toBe('Showing 3 entries.');
  });

  it('keeps the filters in the URL and asks the server for them', async () => {
    const queries = serveActivity(() =>
      jsonResponse(200, { entries: [buildEntry()], nextCursor: null }),
    );
    const user = userEvent.setup();
    const { router } = renderRoute('/activity?category=cameras');
    await screen.findByRole('table', { name: 'Activity' });
    expect(screen.getByRole('combobox', { name: 'What' })).toHaveProperty('value', 'cameras');
    expect(queries[0]!.get('category')).toBe('cameras');

    // The people are the owner and the members; the cameras those of the account.
    const who = screen.getByRole('combobox', { name: 'Who' });
    await vi.waitFor(() =>
      expect(
        within(who)
          .getAllByRole('option')
          .map((option) => option.textContent),
      ).toEqual(['Everyone', 'farmer@example.com', 'vet@example.com']),
    );
    await user.selectOptions(who, 'vet@example.com');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Camera' }), 'Top gate');

    await vi.waitFor(() =>
      expect(router.state.location.search).toBe(
        '?category=cameras&actor=vet%40example.com&iccid=8944000000000000001',
      ),
    );
    await vi.waitFor(() => {
      const last = queries.at(-1)!;
      expect(last.get('actor')).toBe('vet@example.com');
      expect(last.get('iccid')).toBe('8944000000000000001');
      expect(last.get('category')).toBe('cameras');
    });

    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await vi.waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('loads more with the cursor of the page before', async () => {
    const queries = serveActivity((query) =>
      query.get('before') === 'cursor-1'
        ? jsonResponse(200, {
            entries: [buildEntry({ id: 'a2', summary: 'Signed in' })],
            nextCursor: null,
          })
        : jsonResponse(200, { entries: [buildEntry()], nextCursor: 'cursor-1' }),
    );
    const user = userEvent.setup();
    renderRoute('/activity');
    await screen.findByRole('table', { name: 'Activity' });
    expect(screen.getByRole('status').textContent).toBe('Showing 1 entry; more can be loaded.');

    await user.click(screen.getByRole('button', { name: 'Load more' }));

    expect(await screen.findByText('Signed in')).toBeDefined();
    expect(screen.getByText('Renamed "Gate" to "Top gate"')).toBeDefined();
    expect(queries.map((query) => query.get('before'))).toEqual([null, 'cursor-1']);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(screen.getByRole('status').textContent).toBe('Showing 2 entries.');
  });

  it('says when nothing has happened, and when nothing matches the filters', async () => {
    serveActivity(() => jsonResponse(200, { entries: [], nextCursor: null }));
    const user = userEvent.setup();
    const { unmount } = renderRoute('/activity');
    expect(await screen.findByText(/Nothing has happened on this account yet/)).toBeDefined();
    unmount();

    const filtered = renderRoute('/activity?from=2026-01-01&to=2026-01-31');
    expect(await screen.findByText('No activity matches these filters.')).toBeDefined();
    await user.click(screen.getByRole('button', { name: 'Show all activity' }));
    await vi.waitFor(() => expect(filtered.router.state.location.search).toBe(''));
  });

  it('shows the server’s sentence when the activity cannot be loaded', async () => {
    serveActivity(() =>
      jsonResponse(400, {
        code: 'VALIDATION',
        message: 'The first day must come before the last.',
      }),
    );
    renderRoute('/activity?from=2026-02-01&to=2026-01-01');
    expect((await screen.findByRole('alert')).textContent).toBe(
      'The first day must come before the last.',
    );
    expect(screen.getByRole('button', { name: 'Try again' })).toBeDefined();
  });
});
