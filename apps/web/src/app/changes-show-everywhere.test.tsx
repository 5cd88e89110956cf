import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../lib/auth-store.ts';
import { queryClient } from '../lib/query-client.ts';
import { toast } from '../lib/toast.tsx';
import { farmCameras, serveFakeFarm } from '../test/fake-farm.ts';
import { renderRoute } from '../test/test-utils.tsx';

/**
 * A change made on one screen shows on every other at once, with the app's own query client
 * (issue 24 item 2, decision 112): each test first lets the other screen cache the old answer,
 * makes the change, then opens that screen and finds the new one, never the old, and again after
 * a reload (a new cache) from the server.
 */
const { topGate } = farmCameras;

beforeEach(() => {
  authStore.signIn('owner-token');
  vi.spyOn(toast, 'success').mockImplementation(() => undefined);
  vi.spyOn(toast, 'error').mockImplementation(() => undefined);
});

/** Opens a path in the running app, as a click on one of its links does. */
async function go(router: ReturnType<typeof renderRoute>['router'], path: string) {
  await act(() => router.navigate(path));
}

/** A full reload: nothing cached, the app started again on `path`. */
function reload(view: ReturnType<typeof renderRoute>, path: string) {
  view.unmount();
  queryClient.clear();
  return renderRoute(path);
}

const pageTitle = () => screen.getByRole('heading', { level: 1 });

describe('a change shows everywhere at once', () => {
  it('a rename on the dashboard shows on the details, Manage plan and the team screen', async () => {
    serveFakeFarm();
    const user = userEvent.setup();
    const view = renderRoute(`/camera/${topGate.iccid}`);
    expect(await screen.findByText('Top gate')).toBeDefined();
    await go(view.router, `/subscription/${topGate.billingId}`);
    await screen.findByRole('heading', { level: 1, name: 'Manage plan — Top gate (SIM …1014)' });
    await go(view.router, '/team');
    await screen.findByRole('heading', { level: 1, name: 'Team' });

    await go(view.router, '/dashboard');
    const card = await screen.findByRole('article', { name: 'Top gate' });
    await user.click(within(card).getByRole('button', { name: 'Edit name of Top gate' }));
    const dialog = screen.getByRole('dialog', { name: 'Update camera name' });
    const field = within(dialog).getByRole('textbox', { name: /Camera name/ });
    await user.clear(field);
    await user.type(field, 'North gate');
    await user.click(within(dialog).getByRole('button', { name: 'Update' }));
    expect(await screen.findByRole('article', { name: 'North gate' })).toBeDefined();

    // The details were cached with the old name: they show the new one on arrival.
    await go(view.router, `/camera/${topGate.iccid}`);
    expect(screen.queryByText('Top gate')).toBeNull();
    expect(await screen.findByText('North gate')).toBeDefined();
    await go(view.router, `/subscription/${topGate.billingId}`);
    expect(pageTitle().textContent).not.toContain('Top gate');
    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'Manage plan — North gate (SIM …1014)',
      }),
    ).toBeDefined();

    const reloaded = reload(view, `/camera/${topGate.iccid}`);
    expect(await screen.findByText('North gate')).toBeDefined();
    reloaded.unmount();
  });

  it('a plan switched on Manage plan shows on the dashboard card', async () => {
    serveFakeFarm();
    const user = userEvent.setup();
    const view = renderRoute('/dashboard');
    const card = await screen.findByRole('article', { name: 'Top gate' });
    expect(within(card).getByText('Light Streaming')).toBeDefined();

    await go(view.router, `/subscription/${topGate.billingId}`);
    const heavy = await screen.findByRole('article', { name: 'Heavy Streaming' });
    await user.click(within(heavy).getByRole('button', { name: 'Switch plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'Switch plan confirmation' });
    const confirm = within(dialog).getByRole('button', { name: /^(Yes|Switch)/ });
    await waitFor(() => expect(confirm.hasAttribute('disabled')).toBe(false));
    await user.click(confirm);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    await go(view.router, '/dashboard');
    const shownAtOnce = screen.queryByRole('article', { name: 'Top gate' });
    if (shownAtOnce) expect(within(shownAtOnce).queryByText('Light Streaming')).toBeNull();
    const switched = await screen.findByRole('article', { name: 'Top gate' });
    expect(within(switched).getByText('Heavy Streaming')).toBeDefined();

    reload(view, '/dashboard');
    const afterReload = await screen.findByRole('article', { name: 'Top gate' });
    expect(within(afterReload).getByText('Heavy Streaming')).toBeDefined();
  });

  it('a pause made on the dashboard shows on Manage plan', async () => {
    serveFakeFarm();
    const user = userEvent.setup();
    const view = renderRoute(`/subscription/${topGate.billingId}`);
    expect(await screen.findAllByRole('button', { name: 'Switch plan' })).toHaveLength(2);

    await go(view.router, '/dashboard');
    const card = await screen.findByRole('article', { name: 'Top gate' });
    await user.click(within(card).getByRole('button', { name: /Pause subscription/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Pause subscription' });
    await user.click(await within(dialog).findByRole('radio', { name: '1 September 2026' }));
    await user.click(within(dialog).getByRole('button', { name: 'Pause' }));
    await user.click(within(dialog).getByRole('button', { name: 'Yes, pause subscription' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    await go(view.router, `/subscription/${topGate.billingId}`);
    expect(
      await screen.findByText('Pause scheduled from 1 August 2026 until 1 September 2026.'),
    ).toBeDefined();
    expect(screen.getByText('Cancel the scheduled pause before switching plan.')).toBeDefined();
    for (const button of screen.getAllByRole('button', { name: 'Switch plan' })) {
      expect(button.hasAttribute('disabled')).toBe(true);
    }

    reload(view, '/dashboard');
    const afterReload = await screen.findByRole('article', { name: 'Top gate' });
    expect(within(afterReload).getByText('Pause scheduled')).toBeDefined();
  });

  it('alerts saved on the details show there again and in the activity log', async () => {
    const farm = serveFakeFarm();
    const user = userEvent.setup();
    const view = renderRoute('/activity');
    expect(await screen.findByText(/^Nothing has happened on this account yet/)).toBeDefined();

    await go(view.router, `/camera/${topGate.iccid}`);
    const silence = await screen.findByRole('combobox', {
      name: 'E-mail when the camera sends no data',
    });
    await user.selectOptions(silence, '12');
    await user.click(screen.getByRole('button', { name: 'Save alerts' }));
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Save alerts' }).hasAttribute('disabled')).toBe(
        true,
      ),
    );

    await go(view.router, '/activity');
    expect(await screen.findByText('Changed the alerts')).toBeDefined();
    await go(view.router, `/camera/${topGate.iccid}`);
    expect(
      (
        (await screen.findByRole('combobox', {
          name: 'E-mail when the camera sends no data',
        })) as HTMLSelectElement
      ).value,
    ).toBe('12');

    const reads = farm.reads.length;
    reload(view, `/camera/${topGate.iccid}`);
    await waitFor(() =>
      expect(
        (
          screen.getByRole('combobox', {
            name: 'E-mail when the camera sends no data',
          }) as HTMLSelectElement
        ).value,
      ).toBe('12'),
    );
    expect(farm.reads.slice(reads)).toContain(`/api/cameras/alert-settings/${topGate.iccid}`);
  });

  it('a member invited on the Team screen shows in the activity log and the filters', async () => {
    serveFakeFarm();
    const user = userEvent.setup();
    const view = renderRoute('/activity');
    expect(await screen.findByText(/^Nothing has happened on this account yet/)).toBeDefined();

    await go(view.router, '/team');
    await user.type(
      await screen.findByRole('textbox', { name: /E-mail address/ }),
      'vet@example.com',
    );
    await user.click(screen.getByRole('radio', { name: /^All cameras/ }));
    await user.click(screen.getByRole('button', { name: 'Send invitation' }));
    expect(await screen.findByText('Invitation sent to vet@example.com.')).toBeDefined();

    await go(view.router, '/activity');
    expect(await screen.findByText('Invited vet@example.com as a viewer')).toBeDefined();
    // The filter of people lists the new member too (it read the team before the invitation).
    expect(
      within(await screen.findByRole('combobox', { name: /Who/ })).getByRole('option', {
        name: /vet@example\.com/,
      }),
    ).toBeDefined();

    reload(view, '/activity');
    expect(await screen.findByText('Invited vet@example.com as a viewer')).toBeDefined();
  });
});
