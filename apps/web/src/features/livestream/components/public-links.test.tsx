import type { LivestreamCamera, LivestreamLink, LivestreamLinksResponse } from '@farmcam/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AccountAccess } from '@farmcam/contract';
import { authStore } from '../../../lib/auth-store.ts';
import { toast } from '../../../lib/toast.tsx';
import {
  jsonResponse,
  memberAccess,
  mockFetch,
  ownerAccess,
  renderRoute,
} from '../../../test/test-utils.tsx';

const iccid = '8944110000000001030';

const camera: LivestreamCamera = {
  SIM_ICCID: iccid,
  nicknameInDatabase: 'Farmyard',
  SubStatus: 'active',
  stripeSubscription: { productName: 'Heavy Streaming' },
  dataAllowanceGb: 50,
  livestream: {
    publicId: 'ls_abcdefghijklmnopqrstuv',
    embedCode: '<iframe src="http://localhost/embed/ls_abcdefghijklmnopqrstuv"></iframe>',
    embedUrl: 'http://localhost/embed/ls_abcdefghijklmnopqrstuv',
    quality: 'SD',
    durationSeconds: 30,
    includeAudio: false,
    scheduleHours: [9],
    scheduleDays: ['MONDAY'],
    schedule: 'hours=9;days=MONDAY',
    isActive: true,
    disabledReason: null,
    isConfigured: true,
    latestClipAt: null,
    nextRecordingAt: null,
    recordingFailures: 0,
    lastFailure: null,
    lastSeenOnSiteAt: null,
    switchOffAt: null,
    viewsByDay: [],
  },
};

const embed: LivestreamLink = {
  id: '11111111-1111-4111-8111-111111111111',
  kind: 'embed',
  label: 'Farm shop website',
  url: 'http://localhost/embed/lk_embedtokenembedtoken1',
  embedCode: '<iframe src="http://localhost/embed/lk_embedtokenembedtoken1"></iframe>',
  allowedDomains: ['www.farm-shop.example'],
  expiresAt: null,
  revokedAt: null,
  state: 'active',
  createdAt: '2026-03-01T10:00:00Z',
  views: 12,
  refused: 2,
};

const expiredLink: LivestreamLink = {
  ...embed,
  id: '22222222-2222-4222-8222-222222222222',
  kind: 'link',
  label: 'For the vet',
  url: 'http://localhost/embed/lk_linktokenlinktoken12',
  embedCode: null,
  allowedDomains: [],
  expiresAt: '2026-03-08T00:00:00Z',
  state: 'expired',
  views: 1,
  refused: 0,
};

function mockApi(options: { access?: AccountAccess; links?: LivestreamLinksResponse | 'error' }) {
  const calls: { path: string; body: unknown }[] = [];
  mockFetch((url, init) => {
    calls.push({ path: url.pathname, body: init.body ? JSON.parse(String(init.body)) : undefined });
    switch (url.pathname) {
      case '/api/auth/user-data':
        return jsonResponse(200, {
          data: {
            email: 'demo@example.com',
            role: 'customer',
            customerId: 'c1',
            impersonation: null,
            access: options.access ?? ownerAccess(),
          },
        });
      case '/api/livestreaming/showcase':
        return jsonResponse(200, { url: null, recordedAt: null, isRecording: false });
      case '/api/livestreaming/demo-camera':
        return jsonResponse(200, { problem: null, packages: [] });
      case '/api/livestreaming/cameras':
        return jsonResponse(200, { cameras: [camera], supportEmail: 'support@farmcam.example' });
      case '/api/livestreaming/links':
        if (init.method === 'POST') {
          const body = JSON.parse(String(init.body));
          if (body.kind === 'embed' && !body.allowed_domains?.length) {
            return jsonResponse(400, {
              code: 'VALIDATION_FAILED',
              message: 'List at least one website domain the embed code may play on.',
            });
          }
          return jsonResponse(200, { link: { ...embed, label: 'New one' } });
        }
        if (options.links === 'error') {
          return jsonResponse(409, {
            code: 'CONFLICT',
            message: 'Set up the camera for livestreaming first',
          });
        }
        return jsonResponse(200, options.links);
      case '/api/livestreaming/links/revoke':
      case '/api/livestreaming/links/reissue':
        return jsonResponse(200, { link: embed });
      default:
        return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
    }
  });
  return calls;
}

const withLinks: LivestreamLinksResponse = {
  links: [embed, expiredLink],
  sites: [
    { linkId: embed.id, siteHost: 'www.farm-shop.example', views: 12, refused: 0 },
    { linkId: embed.id, siteHost: 'copycat.example', views: 0, refused: 2 },
    { linkId: null, siteHost: 'direct', views: 4, refused: 0 },
  ],
  ownCode: { views: 4, refused: 0 },
};

async function section() {
  return screen.findByRole('region', { name: 'Public links' });
}

describe('Public links on the livestream screen', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'success').mockImplementation(() => undefined);
    vi.spyOn(toast, 'error').mockImplementation(() => undefined);
    authStore.signIn('customer-token');
  });

  it('lists links with their state, expiry, domains and viewers per site', async () => {
    mockApi({ links: withLinks });
    renderRoute('/livestreaming');
    const links = await section();
    expect(await within(links).findByText('Farm shop website')).toBeTruthy();
    // The site's name is in parts that wrap only after a dot (never mid-word at 390 px).
    expect(
      within(links).getByText(
        (_content, element) =>
          element?.tagName === 'P' &&
          /Plays on www\.farm-shop\.example · 12 viewers · 2 refused plays/.test(
            element.textContent ?? '',
          ),
      ),
    ).toBeTruthy();
    expect(
      within(links).getByText("Your livestream's own code: 4 viewers in the last 30 days."),
    ).toBeTruthy();
    const item = within(links).getByRole('listitem', { name: 'Farm shop website' });
    const table = within(item).getByRole('table', { name: 'Viewers per site, last 30 days' });
    // Site names wrap only after their dots (<wbr>): the test DOM names them with a space there.
    expect(
      within(table)
        .getAllByRole('rowheader')
        .map((header) => header.textContent),
    ).toEqual(expect.arrayContaining(['www.farm-shop.example', 'copycat.example']));
    // How it counts, once under the links: proven sites only, one viewer per network a day.
    expect(
      within(links).getAllByText(/A website is named once a page on it has loaded the player/),
    ).toHaveLength(1);
    // The expired link says so and offers nothing to copy.
    expect(within(links).getByText('Expired', { selector: 'span' })).toBeTruthy();
    expect(within(links).getByText(/Expired 7 Mar 2026/)).toBeTruthy();
    expect(within(links).getAllByRole('button', { name: /Copy/ })).toHaveLength(1);
  });

  it('makes an embed code for listed domains, says what is wrong, and revokes one', async () => {
    const user = userEvent.setup();
    const calls = mockApi({
      links: { links: [embed], sites: [], ownCode: { views: 0, refused: 0 } },
    });
    renderRoute('/livestreaming');
    const links = await section();
    await within(links).findByText('Farm shop website');
    await user.click(within(links).getByRole('radio', { name: 'Embed code for your website' }));
    await user.click(within(links).getByRole('button', { name: 'Make embed code' }));
    expect((await within(links).findByRole('alert')).textContent).toMatch(
      /at least one website domain/,
    );

    await user.type(
      within(links).getByLabelText('Websites it may play on'),
      'www.farm-shop.example{enter}*.farm-blog.example',
    );
    await user.click(within(links).getByRole('button', { name: 'Make embed code' }));
    await waitFor(() =>
      expect(
        calls.filter((call) => call.path === '/api/livestreaming/links' && call.body).at(-1)?.body,
      ).toEqual({
        camera_id: iccid,
        kind: 'embed',
        allowed_domains: ['www.farm-shop.example', '*.farm-blog.example'],
      }),
    );
    expect(toast.success).toHaveBeenCalledWith('New one: made');

    await user.click(within(links).getByRole('button', { name: 'Revoke' }));
    await waitFor(() =>
      expect(calls.find((call) => call.path === '/api/livestreaming/links/revoke')?.body).toEqual({
        camera_id: iccid,
        link_id: embed.id,
      }),
    );
  });

  it('makes a link that works for a number of days', async () => {
    const user = userEvent.setup();
    const calls = mockApi({ links: { links: [], sites: [], ownCode: { views: 0, refused: 0 } } });
    renderRoute('/livestreaming');
    const links = await section();
    expect(await within(links).findByText('No public links yet.')).toBeTruthy();
    const days = within(links).getByLabelText('Works for (days)');
    await user.clear(days);
    await user.type(days, '14');
    await user.type(within(links).getByLabelText('Name (optional)'), 'For the vet');
    await user.click(within(links).getByRole('button', { name: 'Make link' }));
    await waitFor(() =>
      expect(
        calls.find((call) => call.path === '/api/livestreaming/links' && call.body)?.body,
      ).toEqual({
        camera_id: iccid,
        kind: 'link',
        label: 'For the vet',
        days: 14,
      }),
    );
  });

  it('says when the links cannot be loaded', async () => {
    mockApi({ links: 'error' });
    renderRoute('/livestreaming');
    const links = await section();
    expect((await within(links).findByRole('alert')).textContent).toBe(
      'Set up the camera for livestreaming first',
    );
  });

  it('shows a viewer the links without the means to change them', async () => {
    mockApi({ links: withLinks, access: memberAccess('viewer', { cameraIds: [iccid] }) });
    renderRoute('/livestreaming');
    const links = await section();
    await within(links).findByText('Farm shop website');
    expect(within(links).getByRole('button', { name: 'Copy code' })).toBeTruthy();
    expect(within(links).queryByRole('button', { name: 'Revoke' })).toBeNull();
    expect(within(links).queryByRole('form', { name: 'New public link' })).toBeNull();
  });
});
