import type { LiveViewHeartbeatResponse } from '@farmcam/contract';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, mockFetch } from '../../../test/test-utils.tsx';
import LivePlayer from './live-player.tsx';

const iccid = '8944110000000001030';
const viewerId = '11111111-2222-4333-8444-555555555555';
const session = {
  viewerId,
  playlistUrl: '/api/live-view/play/token-token-token-token/index.m3u8',
  heartbeatSeconds: 5,
  stillWatchingAfterSeconds: 600,
};

const beat = (overrides: Partial<LiveViewHeartbeatResponse> = {}): LiveViewHeartbeatResponse => ({
  state: 'live',
  reason: null,
  viewersNow: 1,
  bytesThisView: 3_400_000,
  secondsThisView: 42,
  isStillWatchingDue: false,
  allowance: {
    hoursIncluded: 120,
    secondsUsed: 3600,
    secondsLeft: 119 * 3600,
    dataAllowanceBytes: 50e9,
    dataUsedBytes: 30e9,
    dataLeftBytes: 20e9,
  },
  ...overrides,
});

function renderPlayer(answers: LiveViewHeartbeatResponse[]) {
  authStore.signIn('token');
  const bodies: unknown[] = [];
  const methods: string[] = [];
  mockFetch((url, init) => {
    methods.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    if (url.pathname.endsWith('/heartbeat')) {
      bodies.push(JSON.parse(String(init?.body)));
      return jsonResponse(200, answers.length > 1 ? answers.shift()! : answers[0]!);
    }
    return new Response(null, { status: 204 });
  });
  const onStop = vi.fn();
  const view = render(
    <LivePlayer
      iccid={iccid}
      cameraName="Farmyard"
      session={session}
      onStop={onStop}
      onWatchAgain={() => undefined}
    />,
  );
  return { bodies, methods, onStop, view };
}

describe('the live player', () => {
  // Unmounted first: leaving on unmount is a call, and it must reach the mocked fetch.
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('shows what the view costs, and asks "Still watching?" when the server says so', async () => {
    const user = userEvent.setup();
    const { bodies } = renderPlayer([beat({ isStillWatchingDue: true }), beat()]);
    expect(await screen.findByText('3.4 MB')).toBeTruthy();
    expect(screen.getByText('20.0 GB')).toBeTruthy();
    expect(screen.getByText('119 h')).toBeTruthy();
    await user.click(await screen.findByRole('button', { name: 'Keep watching' }));
    expect(bodies.at(-1)).toEqual({ stillWatching: true });
  });

  it('says why a view ended, what it used, and leaves when stopped', async () => {
    const user = userEvent.setup();
    const { methods, onStop } = renderPlayer([
      beat({
        state: 'ended',
        reason: 'The account owner turned live view off for this camera.',
      }),
    ]);
    expect(
      await screen.findByText('The account owner turned live view off for this camera.'),
    ).toBeTruthy();
    expect(screen.getByText(/You watched for 42 s and it used 3.4 MB of data/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(onStop).toHaveBeenCalled();
    // An ended view is not left again: the server already closed it.
    expect(methods.filter((call) => call.startsWith('DELETE'))).toEqual([]);
  });

  it('stops watching with Stop watching, telling the server', async () => {
    const user = userEvent.setup();
    const { methods, onStop } = renderPlayer([beat({ state: 'starting' })]);
    expect(await screen.findByText('Connecting to the camera…')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Stop watching' }));
    expect(onStop).toHaveBeenCalled();
    expect(methods).toContain(`DELETE /api/live-view/${iccid}/viewers/${viewerId}`);
  });
});
