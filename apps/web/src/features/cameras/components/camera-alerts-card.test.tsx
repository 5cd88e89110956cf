import type {
  AccountAccess,
  CameraAlertSettingsResponse,
  MyCameraAlertsResponse,
  SimInfoResponse,
} from '@farmcam/contract';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silenceText } from '../../../components/camera-watch/silence-banner.tsx';
import { authStore } from '../../../lib/auth-store.ts';
import {
  jsonResponse,
  memberAccess,
  mockFetch,
  ownerAccess,
  renderRoute,
} from '../../../test/test-utils.tsx';

vi.mock('./usage-chart.tsx', () => ({ default: () => null }));

const iccid = '8944110000001021009';
const simInfo: SimInfoResponse = {
  nickname: 'Lambing shed',
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
const silentSettings: CameraAlertSettingsResponse = {
  silenceHours: 6,
  dataAlertPercent: 80,
  pauseDataAtAllowance: false,
  noClipHours: null,
  canChange: true,
  unavailableReason: null,
  silence: { since: '2026-03-10T07:12:00.000Z', hours: 8 },
};

function mockApi(
  access: AccountAccess,
  settings: CameraAlertSettingsResponse,
  mine: MyCameraAlertsResponse,
) {
  return mockFetch((url, init) => {
    const user = { email: access.personEmail, role: 'customer', impersonation: null, access };
    if (url.pathname === '/api/auth/user-data') return jsonResponse(200, { data: user });
    if (url.pathname === `/api/cameras/sim-info/${iccid}`) return jsonResponse(200, simInfo);
    if (url.pathname === `/api/cameras/router-info/${iccid}`) {
      return jsonResponse(200, { routerInfo: null, updatedAt: null, unavailableReason: null });
    }
    if (url.pathname === `/api/data-usage/${iccid}`) return jsonResponse(200, { dailyGB: {} });
    if (url.pathname === `/api/cameras/alert-settings/${iccid}`) {
      if (init?.method === 'PUT') {
        return jsonResponse(200, { ...settings, ...JSON.parse(String(init.body)) });
      }
      return jsonResponse(200, settings);
    }
    if (url.pathname === '/api/team/me/camera-alerts') {
      if (init?.method === 'PUT') return jsonResponse(200, JSON.parse(String(init.body)));
      return jsonResponse(200, mine);
    }
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
}

const bodiesOf = (fetchMock: ReturnType<typeof mockFetch>, path: string) =>
  fetchMock.mock.calls
    .filter(([url, init]) => String(url).endsWith(path) && init?.method === 'PUT')
    .map(([, init]) => JSON.parse(String(init?.body)));

describe('Camera alerts', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('says how long the camera has been silent, in the words of the banner', () => {
    expect(silenceText(silentSettings.silence!, new Date('2026-03-10T15:20:00Z'))).toBe(
      'No data from this camera for 8 hours (since 07:12). Check its power and signal.',
    );
    expect(
      silenceText({ since: '2026-03-08T23:05:00Z', hours: 40 }, new Date('2026-03-10T15:20:00Z')),
    ).toBe(
      'No data from this camera for 40 hours (since 23:05 on 8 March 2026). Check its power and signal.',
    );
  });

  it('shows the silence banner and lets the owner change the alerts', async () => {
    authStore.signIn('token');
    const fetchMock = mockApi(ownerAccess(), silentSettings, { cameraAlerts: true, isOwner: true });
    renderRoute(`/camera/${iccid}`);

    const text = await screen.findByText(/No data from this camera for 8 hours/);
    expect(text.closest('[role="status"]')?.textContent).toMatch(
      /^No data from this camera for 8 hours \(since 07:12 on 10 March 2026\)\. Check its power and signal\.$/,
    );

    const form = await screen.findByRole('form', { name: 'Camera alerts' });
    const silence = within(form).getByLabelText('E-mail when the camera sends no data');
    expect((silence as HTMLSelectElement).value).toBe('6');
    expect(
      within(silence)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual([
      'Off',
      'After 1 hour',
      'After 2 hours',
      'After 3 hours',
      'After 6 hours',
      'After 12 hours',
      'After 24 hours',
      'After 48 hours',
    ]);
    fireEvent.change(silence, { target: { value: '12' } });
    fireEvent.change(
      within(form).getByLabelText("E-mail when this much of the plan's data is used"),
      {
        target: { value: '' },
      },
    );
    fireEvent.click(
      within(form).getByLabelText("Pause the camera's data when the plan's data is used up"),
    );
    fireEvent.change(within(form).getByLabelText('E-mail when the livestream delivers no clip'), {
      target: { value: '3' },
    });
    fireEvent.click(within(form).getByRole('button', { name: 'Save alerts' }));
    await waitFor(() =>
      expect(bodiesOf(fetchMock, `/api/cameras/alert-settings/${iccid}`)).toEqual([
        { silenceHours: 12, dataAlertPercent: null, pauseDataAtAllowance: true, noClipHours: 3 },
      ]),
    );
    expect(screen.getByText(/Alert e-mails go to you as the account owner/)).toBeDefined();
  });

  it('shows a viewer the alerts without a form, and their own e-mail choice', async () => {
    authStore.signIn('token');
    const fetchMock = mockApi(
      memberAccess('viewer', { cameraIds: [iccid] }),
      { ...silentSettings, canChange: false, silence: null },
      { cameraAlerts: false, isOwner: false },
    );
    renderRoute(`/camera/${iccid}`);
    const mine = await screen.findByLabelText('E-mail me these alerts for the cameras I can see');
    expect(screen.queryByRole('form', { name: 'Camera alerts' })).toBeNull();
    expect(screen.getByText('After 6 hours')).toBeDefined();
    expect(screen.queryByText(/No data from this camera/)).toBeNull();
    fireEvent.click(mine);
    await waitFor(() =>
      expect(bodiesOf(fetchMock, '/api/team/me/camera-alerts')).toEqual([{ cameraAlerts: true }]),
    );
  });
});
