import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from '../../../lib/router/index.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch } from '../../../test/test-utils.tsx';
import { camerasInEveryState } from '../testing/build-camera.ts';
import { CameraCard } from './camera-card.tsx';

const abilities = {
  manageCameras: true,
  manageBilling: true,
  activateSims: true,
  manageTeam: true,
  viewActivity: true,
};

const renderCard = (camera: Parameters<typeof CameraCard>[0]['camera']) =>
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

afterEach(() => vi.restoreAllMocks());

describe("an overdue camera's unpaid bill (decision 113)", () => {
  it("keeps the spec's sentence and adds the server's amount, date and cause beside it", () => {
    renderCard(camerasInEveryState().pastDue!);
    const card = screen.getByRole('article', { name: 'Fuel tank' });
    expect(
      within(card).getByText(
        'Overdue payments on account. Please pay now or your Streaming Plan will be terminated.',
      ),
    ).toBeDefined();
    expect(card.textContent).toContain(
      '£20.00 unpaid since 1 March 2026. Your card ending 4242 expired in March 2025: update it to pay £20.00.',
    );
  });

  it('says nothing more when the server sent no cause', () => {
    renderCard(camerasInEveryState().overdue!);
    const card = screen.getByRole('article', { name: 'Bottom field' });
    expect(card.textContent).not.toContain('unpaid since');
  });

  it('Pay now opens the billing page to pay, in a new tab', async () => {
    const tab = { opener: {}, location: { href: '' }, close: vi.fn() };
    vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
    const fetchMock = mockFetch((url) =>
      url.pathname === '/api/billing/create-portal-session'
        ? jsonResponse(200, { url: 'http://localhost/billing-engine/portal/bps_1' })
        : jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' }),
    );
    renderCard(camerasInEveryState().pastDue!);
    await userEvent.click(screen.getByRole('button', { name: 'Pay now for Fuel tank' }));
    await vi.waitFor(() =>
      expect(tab.location.href).toBe('http://localhost/billing-engine/portal/bps_1'),
    );
    const [url] = fetchMock.mock.calls[0]!;
    const query = new URL(String(url), 'http://localhost').searchParams;
    expect(query.get('purpose')).toBe('pay');
    expect(query.get('customerId')).toMatch(/^cus_test/);
    expect(tab.opener).toBeNull();
  });
});
