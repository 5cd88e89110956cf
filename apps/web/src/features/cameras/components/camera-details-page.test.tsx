import type { SimInfoResponse } from '@farmcam/contract';
import { act, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, mockFetch, ownerAccess, renderRoute } from '../../../test/test-utils.tsx';

// Chart.js needs a real canvas; the chart's own options are checked in the browser (e2e).
vi.mock('./usage-chart.tsx', () => ({
  default: ({ dailyGB }: { dailyGB: Record<string, number> }) => (
    <div role="img" aria-label="usage chart">
      {Object.keys(dailyGB).length} days
    </div>
  ),
}));

const iccid = '8944110000001011001';
const customer = {
  email: 'demo@example.com',
  role: 'customer',
  customerId: '7d4f6a59-3c4e-4f7f-9a55-0c1f2f9a1b11',
  impersonation: null,
  access: ownerAccess(),
};
const activeSim: SimInfoResponse = {
  nickname: 'Top gate',
  simInfo: {
    connectionDate: '2025-08-01T00:00:00.000Z',
    isActive: true,
    isBarred: false,
    physicalId: iccid,
    terminateDate: null,
    state: 'active',
    statusWords: { currentlyActive: 'Yes', disabledByProvider: 'No', note: null },
  },
};

function mockCameraApi(
  simInfo: SimInfoResponse | (() => Response | Promise<Response>),
  dailyGB: Record<string, number>,
  todaySoFar: string | null = null,
  liveView?: () => Response | Promise<Response>,
) {
  return mockFetch((url) => {
    if (url.pathname === '/api/auth/user-data') return jsonResponse(200, { data: customer });
    if (url.pathname === `/api/live-view/${iccid}` && liveView) return liveView();
    if (url.pathname === `/api/cameras/sim-info/${iccid}`) {
      return typeof simInfo === 'function' ? simInfo() : jsonResponse(200, simInfo);
    }
    if (url.pathname === `/api/cameras/router-info/${iccid}`) {
      if (typeof simInfo !== 'function' && simInfo.simInfo.isBarred) {
        return jsonResponse(200, {
          routerInfo: null,
          updatedAt: null,
          unavailableReason:
            'The network provider has disabled this SIM, so the router cannot be seen. Please contact support.',
        });
      }
      if (typeof simInfo !== 'function' && !simInfo.simInfo.isActive) {
        return jsonResponse(200, {
          routerInfo: null,
          updatedAt: null,
          unavailableReason: 'This SIM has been terminated, so the router cannot be seen.',
        });
      }
      return jsonResponse(200, {
        routerInfo: {
          'Cameras Network Name': 'Farmcam-1001',
          'Network Provider': 'Vodafone UK',
          'Signal Strength': 'Good',
          'Signal Strength (dBm)': -86,
        },
        updatedAt: '2026-03-10T11:45:00.000Z',
        unavailableReason: null,
      });
    }
    if (url.pathname === `/api/data-usage/${iccid}`) {
      return jsonResponse(200, { dailyGB, todaySoFar });
    }
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
}

/**
 * happy-dom's IntersectionObserver never reports; this one lets a test scroll the chart's place
 * into view. Chart.js loads only then (decision 083).
 */
function fakeIntersectionObserver() {
  const observers = new Set<IntersectionObserverCallback>();
  vi.stubGlobal(
    'IntersectionObserver',
    class {
      constructor(private readonly callback: IntersectionObserverCallback) {}
      observe() {
        observers.add(this.callback);
      }
      disconnect() {
        observers.delete(this.callback);
      }
    },
  );
  return {
    scrollIntoView: () =>
      act(() => {
        for (const callback of [...observers]) {
          callback(
            [{ isIntersecting: true } as IntersectionObserverEntry],
            {} as IntersectionObserver,
          );
        }
      }),
  };
}

const calledPaths = (fetchMock: ReturnType<typeof mockFetch>) =>
  fetchMock.mock.calls.map(([url]) => new URL(String(url), window.location.origin));

const definitions = (card: HTMLElement) =>
  Object.fromEntries(
    within(card)
      .getAllByRole('term')
      .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
  );

describe('Camera details', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('fetches, then shows the SIM and router cards and this month’s usage', async () => {
    // The page asks for the month it is rendered in: a fixed day, so a run at midnight at the
    // end of a month cannot see two different months (only Date is faked; timers run).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 2, 10, 12));
    authStore.signIn('token');
    const viewport = fakeIntersectionObserver();
    let answerSimInfo = () => {};
    const simInfoAnswered = new Promise<void>((resolve) => (answerSimInfo = resolve));
    const fetchMock = mockCameraApi(
      () => simInfoAnswered.then(() => jsonResponse(200, activeSim)),
      { '2026-03-01': 0.21, '2026-03-02': 0.35 },
      '2026-03-02',
    );
    renderRoute(`/camera/${iccid}`);
    expect(await screen.findByText('Fetching info...')).toBeDefined();
    // The route's loader asked for this month's usage beside the SIM, not after it (decision 083).
    expect(calledPaths(fetchMock).map((url) => url.pathname)).toContain(`/api/data-usage/${iccid}`);
    answerSimInfo();

    const simCard = (await screen.findByRole('heading', { name: 'SIM information' })).closest(
      'section',
    )!;
    expect(definitions(simCard)).toEqual({
      'Activation date': '1 August 2025',
      'Currently active': 'Yes',
      'Disabled by the provider': 'No',
      'SIM number': iccid,
    });
    const routerCard = (await screen.findByText('Farmcam-1001')).closest('section')!;
    expect(definitions(routerCard)).toEqual({
      'Local network name': 'Farmcam-1001',
      'Network in use': 'Vodafone UK',
      'Signal strength': 'Good',
      'Signal strength (dBm)': '-86',
    });
    expect(screen.getByText('Top gate')).toBeDefined();
    // One date style and one rounding in the card; today's figure is "so far" (decision 143).
    expect(await screen.findByText('0.56 GB used from 1 Mar to 2 Mar (so far)')).toBeDefined();
    const rows = within(screen.getByRole('table', { name: 'Data used per day, in GB' }))
      .getAllByRole('row')
      .map((row) => row.textContent);
    expect(rows).toEqual(['DayGB', '1 Mar0.21', '2 Mar (so far)0.35']);
    // The chart (Chart.js) is not loaded until its place comes near the screen.
    expect(screen.queryByRole('img', { name: 'usage chart' })).toBeNull();
    viewport.scrollIntoView();
    expect((await screen.findByRole('img', { name: 'usage chart' })).textContent).toBe('2 days');
    expect(screen.getByRole('link', { name: /Back/ })).toHaveProperty('pathname', '/dashboard');

    const usageCall = calledPaths(fetchMock).find((url) =>
      url.pathname.startsWith('/api/data-usage'),
    );
    expect(Object.fromEntries(usageCall!.searchParams)).toEqual({
      startDate: '2026-03-01',
      endDate: '2026-03-31',
    });
  });

  it('shows the page with Watch live, not before it: its late answer pushed the cards down', async () => {
    authStore.signIn('token');
    let answerLiveView = () => {};
    const liveViewAnswered = new Promise<void>((resolve) => (answerLiveView = resolve));
    const fetchMock = mockCameraApi(activeSim, {}, null, () =>
      liveViewAnswered.then(() =>
        jsonResponse(200, {
          iccid,
          canWatch: false,
          reason: 'Live view is turned off for this camera.',
          action: null,
          isEnabled: false,
          canChangeSetting: false,
          viewersNow: 0,
          allowance: {
            hoursIncluded: null,
            secondsUsed: 0,
            secondsLeft: null,
            dataAllowanceBytes: null,
            dataUsedBytes: 0,
            dataLeftBytes: null,
          },
          still: null,
        }),
      ),
    );
    renderRoute(`/camera/${iccid}`);
    expect(await screen.findByText('Fetching info...')).toBeDefined();
    // The SIM is in; the page still waits for whether the camera can be watched live.
    await vi.waitFor(() =>
      expect(calledPaths(fetchMock).map((url) => url.pathname)).toContain(
        `/api/cameras/sim-info/${iccid}`,
      ),
    );
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.queryByRole('heading', { name: 'SIM information' })).toBeNull();
    expect(screen.getByText('Fetching info...')).toBeDefined();

    answerLiveView();
    expect(await screen.findByRole('heading', { name: 'SIM information' })).toBeDefined();
    expect(screen.getByText('Live view is turned off for this camera.')).toBeDefined();
    expect(screen.queryByText('Checking live view…')).toBeNull();
  });

  it('does not wait for Watch live once its first try has failed', async () => {
    authStore.signIn('token');
    mockCameraApi(activeSim, {}, null, () =>
      jsonResponse(503, { code: 'UNAVAILABLE', message: 'Please try again in a minute.' }),
    );
    renderRoute(`/camera/${iccid}`);
    // The section retries on its own; the rest of the page is there meanwhile.
    expect(await screen.findByRole('heading', { name: 'SIM information' })).toBeDefined();
  });

  it('says when a switched-off SIM went off, in words that agree, and offers a new SIM', async () => {
    authStore.signIn('token');
    const fetchMock = mockCameraApi(
      {
        nickname: 'Old dairy',
        simInfo: {
          ...activeSim.simInfo,
          isActive: false,
          terminateDate: '2026-01-01T00:00:00.000Z',
          state: 'terminated',
          statusWords: {
            currentlyActive: 'No: switched off on 1 January 2026',
            disabledByProvider: 'No: it was switched off when its plan ended',
            note: 'This SIM was switched off on 1 January 2026, when its plan ended. A switched-off SIM cannot be switched on again: activate a new SIM to keep watching this place.',
          },
        },
      },
      {},
    );
    renderRoute(`/camera/${iccid}`);
    const simCard = (await screen.findByRole('heading', { name: 'SIM information' })).closest(
      'section',
    )!;
    expect(definitions(simCard)).toMatchObject({
      'Currently active': 'No: switched off on 1 January 2026',
      'Disabled by the provider': 'No: it was switched off when its plan ended',
      'Terminate date': '1 January 2026',
    });
    expect(within(simCard).getByRole('status').textContent).toMatch(
      /^This SIM was switched off on 1 January 2026/,
    );
    expect(
      (await within(simCard).findByRole('link', { name: 'Activate a new SIM' })).getAttribute(
        'href',
      ),
    ).toBe('/activate');
    // The router card says why in the server's words, which agree with the SIM card.
    expect(
      await screen.findByText('This SIM has been terminated, so the router cannot be seen.'),
    ).toBeDefined();
    expect(await screen.findByText('No data usage recorded for this period yet.')).toBeDefined();
    expect(calledPaths(fetchMock).length).toBeGreaterThan(0);
  });

  it('says the router cannot be seen because the SIM is barred, agreeing with the SIM card', async () => {
    authStore.signIn('token');
    mockCameraApi(
      {
        ...activeSim,
        simInfo: {
          ...activeSim.simInfo,
          isBarred: true,
          statusWords: {
            currentlyActive: 'Yes, but it cannot connect while disabled',
            disabledByProvider: 'Yes: please contact support',
            note: null,
          },
        },
      },
      {},
    );
    renderRoute(`/camera/${iccid}`);
    const simCard = (await screen.findByRole('heading', { name: 'SIM information' })).closest(
      'section',
    )!;
    expect(definitions(simCard)['Currently active']).toBe(
      'Yes, but it cannot connect while disabled',
    );
    expect(definitions(simCard)['Disabled by the provider']).toBe('Yes: please contact support');
    expect(
      await screen.findByText(/^The network provider has disabled this SIM, so the router/),
    ).toBeDefined();
    expect(screen.queryByText(/shown while the SIM is active/)).toBeNull();
  });

  it("says so for a camera that is not the customer's", async () => {
    authStore.signIn('token');
    mockCameraApi(() => jsonResponse(404, { code: 'NOT_FOUND', message: 'Camera not found' }), {});
    renderRoute(`/camera/${iccid}`);
    expect(await screen.findByRole('heading', { name: 'Camera not found' })).toBeDefined();
    expect(screen.getByRole('link', { name: 'Back to your cameras' })).toHaveProperty(
      'pathname',
      '/dashboard',
    );
  });
});
