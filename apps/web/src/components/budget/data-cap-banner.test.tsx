import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from '../../lib/router/index.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../lib/auth-store.ts';
import { buildCamera } from '../../features/dashboard/testing/build-camera.ts';
import { CameraCard } from '../../features/dashboard/components/camera-card.tsx';
import { jsonResponse, mockFetch } from '../../test/test-utils.tsx';

const owner = {
  manageCameras: true,
  manageBilling: true,
  activateSims: true,
  manageTeam: true,
  viewActivity: true,
};
const viewer = { ...owner, manageCameras: false, manageBilling: false, manageTeam: false };

const costNote =
  'Resuming adds nothing to your bill: the Light Streaming plan has no charge for data used over its 5 GB.';
const pausedCamera = () =>
  buildCamera({
    nicknameInDatabase: 'Farmyard',
    dataCap: { stoppedAt: '2026-03-10T12:00:00.000Z', canResume: true, costNote },
  });

const renderCard = (camera = pausedCamera(), abilities = owner) =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter>
        <CameraCard
          camera={camera}
          onRename={() => {}}
          supportEmail="help@example.com"
          abilities={abilities}
        />
      </MemoryRouter>
    </QueryClientProvider>,
  );

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('a camera whose data is paused at its allowance (decision 095)', () => {
  it('says so with the cost sentence the server gave, and offers the resume', () => {
    renderCard();
    expect(screen.getByText('Data paused: Farmyard used its 5 GB this month.')).toBeTruthy();
    expect(screen.getByText(costNote)).toBeTruthy();
    const button = screen.getByRole('button', {
      name: 'Resume until the end of the month for Farmyard',
    });
    expect(button.getAttribute('aria-describedby')).toBeTruthy();
  });

  it('resumes with one click', async () => {
    authStore.signIn('token');
    const fetchMock = mockFetch((url, init) => {
      if (url.pathname === '/api/cameras/data-cap/8944000000000000001/resume') {
        expect(init.method).toBe('POST');
        return jsonResponse(200, { resumedAt: '2026-03-10T12:05:00.000Z' });
      }
      return jsonResponse(404, { code: 'NOT_FOUND', message: 'No' });
    });
    const camera = pausedCamera();
    renderCard({ ...camera, SIM_ICCID: '8944000000000000001' });
    await userEvent.click(
      screen.getByRole('button', { name: 'Resume until the end of the month for Farmyard' }),
    );
    await waitFor(() =>
      expect(fetchMock.mock.calls.some(([input]) => String(input).includes('/resume'))).toBe(true),
    );
  });

  it('shows viewers the banner without the button', () => {
    renderCard(pausedCamera(), viewer);
    expect(screen.getByText('Data paused: Farmyard used its 5 GB this month.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Resume until the end of the month/ })).toBeNull();
  });

  it('has no banner while data flows', () => {
    renderCard(buildCamera({ nicknameInDatabase: 'Top gate' }));
    expect(screen.queryByText(/Data paused/)).toBeNull();
  });
});
