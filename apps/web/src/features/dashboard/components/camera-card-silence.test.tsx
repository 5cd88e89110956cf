import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from '../../../lib/router/index.ts';
import { describe, expect, it } from 'vitest';
import { buildCamera } from '../testing/build-camera.ts';
import { CameraCard } from './camera-card.tsx';

const abilities = {
  manageCameras: true,
  manageBilling: true,
  activateSims: true,
  manageTeam: true,
  viewActivity: true,
};

const renderCard = (camera = buildCamera()) =>
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

describe('a silent camera on the dashboard', () => {
  it('carries the banner the server decided, as a status', () => {
    renderCard(
      buildCamera({
        nicknameInDatabase: 'Lambing shed',
        silence: { since: '2026-03-10T07:12:00.000Z', hours: 8 },
      }),
    );
    const card = screen.getByRole('article', { name: 'Lambing shed' });
    const status = card.querySelector('[role="status"]');
    expect(status?.textContent).toMatch(
      /^No data from this camera for 8 hours \(since 07:12 on 10 March 2026\)\. Check its power and signal\.$/,
    );
  });

  it('has no banner while the camera is heard', () => {
    renderCard(buildCamera({ nicknameInDatabase: 'Top gate' }));
    expect(screen.queryByText(/No data from this camera/)).toBeNull();
  });
});
