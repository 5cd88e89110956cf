import type { Camera } from '@farmcam/contract';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, mockFetch, ownerAccess, renderRoute } from '../../../test/test-utils.tsx';
import { buildCamera, buildPlans, camerasInEveryState } from '../testing/build-camera.ts';

function serve(cameras: Camera[]) {
  authStore.signIn('token');
  mockFetch((url) => {
    if (url.pathname === '/api/auth/user-data') {
      return jsonResponse(200, {
        data: {
          email: 'demo@example.com',
          role: 'customer',
          customerId: 'c1',
          impersonation: null,
          access: ownerAccess(),
        },
      });
    }
    if (url.pathname === '/api/cameras/plansV2') return jsonResponse(200, buildPlans(cameras));
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
}

const cardNames = () =>
  screen
    .getAllByRole('article')
    .map((card) => card.querySelector('h3')?.textContent)
    .filter(Boolean);

describe('Finding a camera on the dashboard (decision 140)', () => {
  it('lists cameras needing attention first, and says why beside the chip', async () => {
    serve(Object.values(camerasInEveryState()));
    renderRoute('/dashboard');
    await screen.findByRole('search', { name: 'Find a camera' });
    // The cards past the first screen follow once it is painted (camera-grid.tsx).
    await waitFor(() => expect(cardNames()).toHaveLength(11));
    // Most urgent first (the server's stateOrder), then by name; the two without a plan last.
    expect(cardNames().slice(0, 4)).toEqual([
      'Old barn',
      'Bottom field',
      'Fuel tank',
      'Barred one',
    ]);
    expect(cardNames().slice(4, 6)).toContain('Machinery shed');
    expect(cardNames().at(-1)).toBe('Old dairy');
    expect(screen.getByRole('status').textContent).toBe('11 cameras');
    const shed = screen.getByRole('article', { name: 'Machinery shed' });
    expect(within(shed).getByText('No plan: renew to keep it streaming')).toBeDefined();
  });

  it('searches by name or SIM digits, filters by state, orders, and keeps it all in the address', async () => {
    const cameras = Object.values(camerasInEveryState());
    serve(cameras);
    const { router } = renderRoute('/dashboard');
    const user = userEvent.setup();
    const search = await screen.findByRole('searchbox', { name: 'Find a camera' });

    await user.type(search, 'field');
    await waitFor(() => expect(cardNames()).toEqual(['Bottom field']));
    expect(screen.getByRole('status').textContent).toBe('1 of 11 cameras');
    expect(router.state.location.search).toBe('?q=field');

    await user.clear(search);
    const fuelTank = cameras.find((camera) => camera.nicknameInDatabase === 'Fuel tank')!;
    await user.type(search, fuelTank.SIM_ICCID.slice(-6));
    await waitFor(() => expect(cardNames()).toEqual(['Fuel tank']));

    await user.clear(search);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Show' }), 'Paused (1)');
    await waitFor(() => expect(cardNames()).toEqual(['Grain store']));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Order' }), 'name');
    expect(router.state.location.search).toBe('?show=paused&sort=name');
    expect(screen.getByRole('status').textContent).toBe('1 of 11 cameras');
  });

  it('opens on the choice in the address, and offers a way back when nothing matches', async () => {
    serve(Object.values(camerasInEveryState()));
    const { router } = renderRoute('/dashboard?q=dairy&show=overdue');
    const user = userEvent.setup();
    expect(
      await screen.findByText('No camera matches “dairy” among “Overdue bill”.'),
    ).toBeDefined();
    expect(screen.queryAllByRole('article')).toEqual([]);
    expect(screen.getByRole('status').textContent).toBe('0 of 11 cameras');
    expect(screen.getByRole<HTMLInputElement>('searchbox').value).toBe('dairy');

    await user.click(screen.getByRole('button', { name: 'Show all 11 cameras' }));
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(11));
    expect(router.state.location.search).toBe('');
    expect(screen.getByRole<HTMLInputElement>('searchbox').value).toBe('');
  });

  it('offers no search to a farm whose cameras fit on one screen', async () => {
    serve([buildCamera({ nicknameInDatabase: 'Top gate' }), buildCamera()]);
    renderRoute('/dashboard?show=overdue');
    await screen.findByRole('article', { name: 'Top gate' });
    expect(screen.queryByRole('search')).toBeNull();
    // The address cannot hide a camera the page offers no way to show.
    expect(screen.getAllByRole('article')).toHaveLength(2);
  });
});
