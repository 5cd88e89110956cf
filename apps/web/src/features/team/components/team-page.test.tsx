import type { TeamMember, TeamResponse } from '@farmcam/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import {
  jsonResponse,
  memberAccess,
  mockFetch,
  ownerAccess,
  renderRoute,
} from '../../../test/test-utils.tsx';
import { emptyTeamText } from './team-page.tsx';

const owner = {
  email: 'farmer@example.com',
  role: 'customer',
  customerId: 'c1',
  impersonation: null,
  access: ownerAccess('farmer@example.com'),
};

const cameras = [
  { iccid: '8944000000000000001', nickname: 'Top gate' },
  { iccid: '8944000000000000002', nickname: 'Calving shed' },
];

function buildMember(overrides: Partial<TeamMember> = {}): TeamMember {
  return {
    id: '11111111-1111-4111-8111-111111111111',
    email: 'vet@example.com',
    role: 'viewer',
    allCameras: false,
    cameras: [cameras[1]!],
    accessUntil: null,
    status: 'active',
    invitedAt: '2026-11-01T10:00:00.000Z',
    acceptedAt: '2026-11-01T11:00:00.000Z',
    invitationExpiresAt: null,
    ...overrides,
  };
}

interface Call {
  method: string;
  path: string;
  body: unknown;
}

/** The API of a signed-in owner with this team; `answers` overrides a POST's answer by path. */
function serveTeam(
  team: TeamResponse | Response,
  answers: Record<string, () => Response> = {},
): Call[] {
  authStore.signIn('owner-token');
  const calls: Call[] = [];
  mockFetch((url, init) => {
    const method = init.method ?? 'GET';
    if (method === 'POST') {
      calls.push({
        method,
        path: url.pathname,
        body: init.body ? JSON.parse(String(init.body)) : undefined,
      });
      const answer = answers[url.pathname];
      if (answer) return answer();
    }
    if (url.pathname === '/api/auth/user-data') return jsonResponse(200, { data: owner });
    if (url.pathname === '/api/team') {
      return team instanceof Response ? team.clone() : jsonResponse(200, team);
    }
    if (url.pathname === '/api/team/invite') {
      return jsonResponse(201, { member: buildMember({ status: 'invited' }) });
    }
    if (url.pathname.startsWith('/api/team/members/')) {
      return jsonResponse(200, { member: buildMember() });
    }
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
  return calls;
}

describe('Team', () => {
  it('lists each member with role, cameras, last day, status and the invitation’s expiry', async () => {
    serveTeam({
      cameras,
      members: [
        buildMember({ accessUntil: '2026-12-31T00:00:00.000Z' }),
        buildMember({
          id: '22222222-2222-4222-8222-222222222222',
          email: 'contractor@example.com',
          role: 'manager',
          allCameras: true,
          cameras: [],
          status: 'invited',
          acceptedAt: null,
          invitationExpiresAt: '2099-01-08T10:00:00.000Z',
        }),
        buildMember({
          id: '33333333-3333-4333-8333-333333333333',
          email: 'old@example.com',
          status: 'expired',
          accessUntil: '2026-06-01',
        }),
      ],
    });
    renderRoute('/team');

    const list = await screen.findByRole('list', { name: 'Members' });
    const [vet, contractor, old] = within(list).getAllByRole('listitem');
    // Compared as text: the e-mail holds a <wbr> (a break before the @), which the test DOM names with a space.
    expect(within(vet!).getByRole('heading').textContent).toBe('vet@example.com');
    expect(within(vet!).getByText('Active')).toBeDefined();
    expect(within(vet!).getByText('Viewer')).toBeDefined();
    expect(within(vet!).getByText('Calving shed')).toBeDefined();
    // Ends at the UK midnight after the last day: the last day is 30 December.
    expect(within(vet!).getByText('End of 30 December 2026')).toBeDefined();
    expect(within(vet!).queryByRole('button', { name: /Resend invitation/ })).toBeNull();

    expect(within(contractor!).getByText('Invited')).toBeDefined();
    expect(within(contractor!).getByText('Manager')).toBeDefined();
    expect(within(contractor!).getByText('All cameras')).toBeDefined();
    expect(within(contractor!).getByText('No end date')).toBeDefined();
    expect(within(contractor!).getByText('Link valid until 8 Jan 2099, 10:00')).toBeDefined();
    expect(
      within(contractor!).getByRole('button', { name: 'Resend invitation contractor@example.com' }),
    ).toBeDefined();

    expect(within(old!).getByText('Expired')).toBeDefined();
    expect(within(old!).getByText('End of 1 June 2026')).toBeDefined();
    expect(screen.getByText(/Owner: everything/).textContent).toMatch(
      /^farmer@example.com — Owner/,
    );
  });

  it('says nobody else can see the account yet when there are no members', async () => {
    serveTeam({ cameras, members: [] });
    renderRoute('/team');
    expect(await screen.findByText(emptyTeamText)).toBeDefined();
    expect(screen.getByRole('heading', { name: 'Invite someone' })).toBeDefined();
  });

  it('shows the server’s sentence when the team cannot be loaded', async () => {
    serveTeam(jsonResponse(409, { code: 'CONFLICT', message: 'Your account is being moved.' }));
    renderRoute('/team');
    expect((await screen.findByRole('alert')).textContent).toBe('Your account is being moved.');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeDefined();
  });

  it('invites with a role and chosen cameras, after saying what is missing', async () => {
    const calls = serveTeam({ cameras, members: [] });
    const user = userEvent.setup();
    renderRoute('/team');
    await screen.findByText(emptyTeamText);

    const send = screen.getByRole('button', { name: 'Send invitation' });
    await user.click(send);
    expect(screen.getByText('Please enter a valid email')).toBeDefined();
    expect(screen.getByText('Choose at least one camera, or give all cameras.')).toBeDefined();
    expect(calls).toEqual([]);

    await user.type(screen.getByRole('textbox', { name: /E-mail address/ }), ' vet@example.com ');
    const viewer = screen.getByRole('radio', { name: /Viewer/ });
    expect(viewer).toHaveProperty('checked', true);
    expect(viewer.getAttribute('aria-describedby')).toBeTruthy();
    await user.click(screen.getByRole('radio', { name: /Manager/ }));
    await user.click(screen.getByRole('checkbox', { name: /Calving shed/ }));
    // Day, month, year, in the UK order whatever the browser's language (decision 115).
    const lastDay = screen.getByRole('group', { name: /Last day/ });
    await user.type(within(lastDay).getByRole('textbox', { name: 'Day' }), '31');
    await user.type(within(lastDay).getByRole('textbox', { name: 'Month' }), '12');
    await user.type(within(lastDay).getByRole('textbox', { name: 'Year' }), '2026');
    await user.click(send);

    expect(await screen.findByText('Invitation sent to vet@example.com.')).toBeDefined();
    expect(screen.getByRole('status').textContent).toBe('Invitation sent to vet@example.com.');
    expect(calls).toEqual([
      {
        method: 'POST',
        path: '/api/team/invite',
        body: {
          email: 'vet@example.com',
          role: 'manager',
          allCameras: false,
          iccids: ['8944000000000000002'],
          accessUntil: '2026-12-31',
        },
      },
    ]);
    // The form is ready for the next person.
    expect(screen.getByRole('textbox', { name: /E-mail address/ })).toHaveProperty('value', '');
  });

  it('shows the server’s sentence when an invitation is refused', async () => {
    serveTeam(
      { cameras, members: [] },
      {
        '/api/team/invite': () =>
          jsonResponse(409, {
            code: 'CONFLICT',
            message: 'vet@example.com is already in your team.',
          }),
      },
    );
    const user = userEvent.setup();
    renderRoute('/team');
    await screen.findByText(emptyTeamText);
    await user.type(screen.getByRole('textbox', { name: /E-mail address/ }), 'vet@example.com');
    await user.click(screen.getByRole('radio', { name: /All cameras/ }));
    await user.click(screen.getByRole('button', { name: 'Send invitation' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'vet@example.com is already in your team.',
    );
  });

  it('changes a member’s access in a dialog that starts from what they have', async () => {
    const calls = serveTeam({
      cameras,
      members: [buildMember({ accessUntil: '2026-12-31T00:00:00.000Z' })],
    });
    const user = userEvent.setup();
    renderRoute('/team');
    await user.click(await screen.findByRole('button', { name: 'Change access vet@example.com' }));

    const dialog = screen.getByRole('dialog', { name: 'Change access of vet@example.com' });
    expect(within(dialog).getByRole('radio', { name: /Viewer/ })).toHaveProperty('checked', true);
    expect(within(dialog).getByRole('checkbox', { name: /Calving shed/ })).toHaveProperty(
      'checked',
      true,
    );
    const lastDay = within(dialog).getByRole('group', { name: /Last day/ });
    const boxes = ['Day', 'Month', 'Year'].map((name) =>
      within(lastDay).getByRole('textbox', { name }),
    );
    expect(boxes.map((box) => (box as HTMLInputElement).value)).toEqual(['30', '12', '2026']);

    await user.click(within(dialog).getByRole('checkbox', { name: /Top gate/ }));
    for (const box of boxes) await user.clear(box);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Access of vet@example.com changed.')).toBeDefined();
    expect(calls).toEqual([
      {
        method: 'POST',
        path: '/api/team/members/11111111-1111-4111-8111-111111111111',
        body: {
          role: 'viewer',
          allCameras: false,
          iccids: ['8944000000000000002', '8944000000000000001'],
          accessUntil: null,
        },
      },
    ]);
  });

  it('removes a member only after asking, saying they are signed out at once', async () => {
    const calls = serveTeam({ cameras, members: [buildMember()] });
    const user = userEvent.setup();
    renderRoute('/team');
    await user.click(await screen.findByRole('button', { name: 'Remove vet@example.com' }));

    const dialog = screen.getByRole('dialog', { name: 'Remove from the team' });
    expect(
      within(dialog).getByText('Remove vet@example.com? They will be signed out at once.'),
    ).toBeDefined();
    expect(calls).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));

    expect(await screen.findByText('vet@example.com was removed and signed out.')).toBeDefined();
    expect(calls.map((call) => call.path)).toEqual([
      '/api/team/members/11111111-1111-4111-8111-111111111111/remove',
    ]);
  });

  it('sends an invitation again and says so', async () => {
    const calls = serveTeam({
      cameras,
      members: [
        buildMember({
          status: 'invited',
          acceptedAt: null,
          invitationExpiresAt: '2020-01-08T10:00:00.000Z',
        }),
      ],
    });
    const user = userEvent.setup();
    renderRoute('/team');
    expect(await screen.findByText('Link expired: send it again')).toBeDefined();
    await user.click(screen.getByRole('button', { name: 'Resend invitation vet@example.com' }));

    expect(await screen.findByText('A new invitation was sent to vet@example.com.')).toBeDefined();
    expect(calls.map((call) => call.path)).toEqual([
      '/api/team/members/11111111-1111-4111-8111-111111111111/resend-invitation',
    ]);
  });

  it('tells a member the screen is the owner’s, without asking the server for the team', async () => {
    authStore.signIn('member-token');
    const fetchMock = mockFetch(() =>
      jsonResponse(200, { data: { ...owner, access: memberAccess('manager') } }),
    );
    renderRoute('/team');
    expect(
      await screen.findByText(
        'Only the account owner can see and change who has access to this account.',
      ),
    ).toBeDefined();
    expect(fetchMock.mock.calls.some(([url]) => String(url).includes('/api/team'))).toBe(false);
  });
});
