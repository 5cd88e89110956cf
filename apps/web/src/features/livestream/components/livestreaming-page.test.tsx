import type { LivestreamCamera, LivestreamSummary } from '@farmcam/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { toast } from '../../../lib/toast.tsx';
import { jsonResponse, mockFetch, ownerAccess, renderRoute } from '../../../test/test-utils.tsx';

const livestream: LivestreamSummary = {
  publicId: 'ls_abcdefghijklmnopqrstuv',
  embedCode: '<iframe src="http://localhost/embed/ls_abcdefghijklmnopqrstuv"></iframe>',
  embedUrl: 'http://localhost/embed/ls_abcdefghijklmnopqrstuv',
  quality: 'SD',
  durationSeconds: 30,
  includeAudio: true,
  scheduleHours: [9, 10, 11, 12, 13, 14, 15, 16, 17],
  scheduleDays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'],
  schedule: 'hours=9,10,11,12,13,14,15,16,17;days=MONDAY,TUESDAY,WEDNESDAY,THURSDAY,FRIDAY',
  isActive: true,
  disabledReason: null,
  isConfigured: true,
  latestClipAt: '2026-03-10T09:00:20Z',
  nextRecordingAt: '2026-03-10T10:00:00Z',
  recordingFailures: 2,
  lastFailure: { at: '2026-03-09T15:00:00Z', error: 'The camera refused the connection' },
  lastSeenOnSiteAt: null,
  switchOffAt: '2026-03-19T12:00:00Z',
  viewsByDay: Array.from({ length: 14 }, (_, index) => ({
    day: new Date(Date.UTC(2026, 1, 25 + index)).toISOString().slice(0, 10),
    views: index === 13 ? 3 : 0,
  })),
};

const camera = (overrides: Partial<LivestreamCamera>): LivestreamCamera => ({
  SIM_ICCID: '8944110000000001030',
  nicknameInDatabase: 'Farmyard',
  SubStatus: 'active',
  stripeSubscription: { productName: 'Heavy Streaming' },
  dataAllowanceGb: 50,
  livestream,
  ...overrides,
});

function mockApi(options: { showcase: object; cameras?: LivestreamCamera[]; demoCamera?: object }) {
  const calls: { path: string; body: unknown }[] = [];
  let isActive = true;
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
            access: ownerAccess(),
          },
        });
      case '/api/livestreaming/showcase':
        return jsonResponse(200, options.showcase);
      case '/api/livestreaming/demo-camera':
        return jsonResponse(200, options.demoCamera ?? { problem: null, packages: [] });
      case '/api/livestreaming/cameras':
        return jsonResponse(200, {
          cameras: (options.cameras ?? [camera({})]).map((entry) =>
            entry.livestream ? { ...entry, livestream: { ...entry.livestream, isActive } } : entry,
          ),
          supportEmail: 'support@farmcam.example',
        });
      case '/api/livestreaming/links':
        return jsonResponse(200, {
          links: [],
          sites: [
            { linkId: null, siteHost: 'www.hillside-farm-shop.example', views: 4, refused: 0 },
          ],
          ownCode: { views: 4, refused: 0 },
        });
      case '/api/livestreaming/set-active':
        isActive = JSON.parse(String(init.body)).is_active;
        return jsonResponse(200, {
          success: true,
          message: 'ok',
          data: { ...livestream, isActive },
        });
      default:
        return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
    }
  });
  return calls;
}

describe('Livestreaming page', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'success').mockImplementation(() => undefined);
    authStore.signIn('customer-token');
  });

  it('explains the feature, plays the live demo and offers the setup', async () => {
    mockApi({
      showcase: {
        url: 'http://localhost/media/clips/showcase/a.mp4?expires=1&signature=s',
        recordedAt: '2026-03-10T11:00:00Z',
        isRecording: false,
      },
      cameras: [],
    });
    renderRoute('/livestreaming');
    expect(await screen.findByRole('heading', { name: 'Benefits' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'How it works' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Requirements' })).toBeTruthy();
    const demo = await screen.findByTestId('livestream-demo');
    expect(demo.getAttribute('src')).toBe(
      'http://localhost/media/clips/showcase/a.mp4?expires=1&signature=s',
    );
    expect(screen.getByText(/recorded 11:00 UK time/)).toBeTruthy();
    const setupVideo = screen.getByLabelText('Video: setting up a livestream in the portal');
    expect(setupVideo.getAttribute('src')).toBe('/media/livestream-setup.mp4');
    expect(setupVideo.querySelector('track')?.getAttribute('kind')).toBe('captions');
    for (const link of screen.getAllByRole('link', { name: 'Set Up Livestream' })) {
      expect(link.getAttribute('href')).toBe('/livestreaming/setup');
    }
    // No livestream yet: no management section.
    expect(screen.queryByRole('heading', { name: 'Your livestreams' })).toBeNull();
  });

  it('says when the demo is being recorded, or not available', async () => {
    mockApi({ showcase: { url: null, recordedAt: null, isRecording: true }, cameras: [] });
    renderRoute('/livestreaming');
    expect(await screen.findByText(/Recording a fresh clip from our demo camera/)).toBeTruthy();
  });

  it('says plainly when the demo camera cannot run on this server, here and in the setup', async () => {
    const problem =
      "The demo camera cannot run on this server: GStreamer's clockoverlay is missing (install gstreamer1.0-x).";
    const demoCamera = { problem, packages: ['gstreamer1.0-x'] };
    mockApi({ showcase: { url: null, recordedAt: null, isRecording: true }, demoCamera });
    const page = renderRoute('/livestreaming');
    expect(await screen.findByText(problem)).toBeTruthy();
    // No endless "recording a fresh clip" while the camera cannot run.
    expect(screen.getByText('The live demo is not available right now.')).toBeTruthy();
    page.unmount();

    renderRoute('/livestreaming/setup');
    expect(await screen.findByText(problem)).toBeTruthy();
  });

  it('shows no notice while the demo camera can run', async () => {
    mockApi({ showcase: { url: null, recordedAt: null, isRecording: true }, cameras: [] });
    renderRoute('/livestreaming');
    expect(await screen.findByText(/Recording a fresh clip from our demo camera/)).toBeTruthy();
    expect(screen.queryByText(/cannot run on this server/)).toBeNull();
  });

  it('shows each livestream with its clips, failures and views, and switches it off and on', async () => {
    const user = userEvent.setup();
    const calls = mockApi({ showcase: { url: null, recordedAt: null, isRecording: false } });
    renderRoute('/livestreaming');
    expect(await screen.findByText('The live demo is not available right now.')).toBeTruthy();
    const section = await screen.findByRole('region', { name: 'Your livestreams' });
    expect(within(section).getByText('Farmyard')).toBeTruthy();
    expect(within(section).getByText('Active')).toBeTruthy();
    expect(
      within(section).getByText(/09:00–17:00, Monday to Friday · 30 s SD with audio/),
    ).toBeTruthy();
    expect(within(section).getByText(/The camera refused the connection/)).toBeTruthy();
    expect(within(section).getByText('3 views in the last 14 days')).toBeTruthy();
    expect(within(section).getByText('Not yet')).toBeTruthy();
    expect(within(section).getByRole('link', { name: 'Edit schedule' }).getAttribute('href')).toBe(
      '/livestreaming/setup?camera=8944110000000001030',
    );

    await user.click(within(section).getByRole('button', { name: 'Switch off' }));
    await waitFor(() =>
      expect(calls.find((call) => call.path === '/api/livestreaming/set-active')?.body).toEqual({
        camera_id: '8944110000000001030',
        is_active: false,
      }),
    );
    expect(await within(section).findByRole('button', { name: 'Switch on' })).toBeTruthy();
    expect(toast.success).toHaveBeenCalledWith('Farmyard: livestream switched off');
  });

  it('Manage livestream: one camera that already streams, its schedule, code and links, titled', async () => {
    const quiet = {
      ...livestream,
      viewsByDay: livestream.viewsByDay.map((day) => ({ ...day, views: 0 })),
    };
    mockApi({
      showcase: { url: null, recordedAt: null, isRecording: false },
      cameras: [camera({ livestream: quiet })],
    });
    renderRoute('/livestreaming/manage/8944110000000001030');
    expect(
      await screen.findByRole('heading', { name: 'Manage livestream — Farmyard' }),
    ).toBeTruthy();
    expect(screen.getByText(/09:00–17:00, Monday to Friday/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy Code' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Edit schedule' }).getAttribute('href')).toBe(
      '/livestreaming/setup?camera=8944110000000001030',
    );
    // Not the set-up wizard over a working stream.
    expect(screen.queryByRole('button', { name: 'Set Up Camera' })).toBeNull();
    // No views: a sentence, not fourteen empty bars (they read as a dashed line).
    expect(screen.getByText(/No views in the last 14 days yet/)).toBeTruthy();
    expect(screen.queryByText(/views in the last 14 days$/)).toBeNull();
    // The per-site table wraps a site's name only between its parts.
    const table = await screen.findByRole('table', { name: /Viewers per site/ });
    const site = within(table).getAllByRole('rowheader')[0]!;
    expect(site.textContent).toBe('www.hillside-farm-shop.example');
    expect(site.querySelectorAll('wbr')).toHaveLength(2);
  });

  it('Manage livestream for a camera without one says so and offers the set-up', async () => {
    mockApi({
      showcase: { url: null, recordedAt: null, isRecording: false },
      cameras: [camera({ livestream: null })],
    });
    renderRoute('/livestreaming/manage/8944110000000001030');
    expect(await screen.findByText('Farmyard has no livestream set up yet.')).toBeTruthy();
    expect(
      screen.getByRole('link', { name: 'Set up a livestream for Farmyard' }).getAttribute('href'),
    ).toBe('/livestreaming/setup?camera=8944110000000001030');
    renderRoute('/livestreaming/manage/8944110000000009999');
    expect(
      await screen.findByText(/This camera is not one of yours with a Heavy Streaming plan/),
    ).toBeTruthy();
  });

  it("the set-up wizard's list sends a camera that streams to its Manage livestream page", async () => {
    mockApi({ showcase: { url: null, recordedAt: null, isRecording: false } });
    renderRoute('/livestreaming/setup');
    const manage = await screen.findByRole('link', { name: 'Manage livestream for Farmyard' });
    expect(manage.getAttribute('href')).toBe('/livestreaming/manage/8944110000000001030');
    // The link is beside the choice, not part of its name.
    expect(
      screen.getByRole('radio', { name: /Farmyard/ }).closest('label')?.textContent,
    ).not.toMatch(/Manage livestream/);
  });
});
