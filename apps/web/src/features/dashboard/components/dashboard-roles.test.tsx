import type { AccountAccess } from '@farmcam/contract';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import {
  jsonResponse,
  memberAccess,
  mockFetch,
  ownerAccess,
  renderRoute,
} from '../../../test/test-utils.tsx';
import { buildCamera, buildPlans } from '../testing/build-camera.ts';

/**
 * The cards hide what the signed-in person may not do, as user-data's access.can and the cards'
 * own flags say (decision 093); the server refuses it anyway.
 */
function serveDashboard(access: AccountAccess) {
  authStore.signIn('token');
  // What the server's withRoleActions gives a role that may not change cameras, and
  // withMemberBillingWords one that may not pay (decision 170).
  const forRole = access.can.manageCameras
    ? {}
    : { canPause: false, canManagePlan: false, canCancelPause: false, canRenew: false };
  const cameras = [
    buildCamera({ nicknameInDatabase: 'Top gate', canPause: true, ...forRole }),
    buildCamera({
      SIM_ICCID: '8944000000000000999',
      nicknameInDatabase: 'Bottom field',
      SubStatus: 'overdue',
      labelDashboard: 'overdue',
      cardState: 'overdue',
      canPause: false,
      canPayNow: access.can.manageBilling,
      ...forRole,
    }),
  ];
  mockFetch((url) => {
    if (url.pathname === '/api/auth/user-data') {
      return jsonResponse(200, {
        data: {
          email: access.personEmail,
          role: 'customer',
          customerId: 'c1',
          impersonation: null,
          access,
        },
      });
    }
    if (url.pathname === '/api/cameras/plansV2') return jsonResponse(200, buildPlans(cameras));
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
  renderRoute('/dashboard');
}

const card = async (name: string) => (await screen.findByRole('article', { name })) as HTMLElement;

describe('Dashboard by role', () => {
  it('offers the owner every action', async () => {
    serveDashboard(ownerAccess());
    const topGate = await card('Top gate');
    await within(topGate).findByRole('button', { name: 'Edit name of Top gate' });
    expect(within(topGate).getByRole('link', { name: 'Manage plan for Top gate' })).toBeDefined();
    expect(within(topGate).getByRole('link', { name: 'Invoices for Top gate' })).toBeDefined();
    expect(
      within(await card('Bottom field')).getByRole('button', { name: /Pay now/ }),
    ).toBeDefined();
    expect(screen.getByRole('link', { name: 'Activate a camera' })).toBeDefined();
  });

  it('offers a Manager the cameras but not payments, invoices or activation', async () => {
    serveDashboard(memberAccess('manager'));
    const topGate = await card('Top gate');
    await within(topGate).findByRole('button', { name: 'Edit name of Top gate' });
    expect(within(topGate).getByRole('link', { name: 'Manage plan for Top gate' })).toBeDefined();
    expect(within(topGate).getByRole('button', { name: /Pause subscription/ })).toBeDefined();
    expect(within(topGate).queryByRole('link', { name: 'Invoices for Top gate' })).toBeNull();
    expect(
      within(await card('Bottom field')).queryByRole('button', { name: /Pay now/ }),
    ).toBeNull();
    expect(screen.queryByRole('link', { name: 'Activate a camera' })).toBeNull();
  });

  it('offers a Viewer nothing to change, only More info', async () => {
    serveDashboard(memberAccess('viewer'));
    const topGate = await card('Top gate');
    await screen.findByRole('region', { name: 'Signed in' });
    expect(within(topGate).queryByRole('button', { name: /Edit name/ })).toBeNull();
    expect(within(topGate).queryByRole('link', { name: /Manage plan/ })).toBeNull();
    expect(within(topGate).queryByRole('link', { name: /Invoices/ })).toBeNull();
    expect(within(topGate).getByRole('link', { name: 'More info for Top gate' })).toBeDefined();
    expect(
      within(await card('Bottom field')).queryByRole('button', { name: /Pay now/ }),
    ).toBeNull();
  });

  it("titles a member's page for whose cameras they are, without the owner's billing (decision 141)", async () => {
    serveDashboard(memberAccess('viewer'));
    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'Cameras shared by farmer@example.com',
      }),
    ).toBeDefined();
    await waitFor(() => expect(document.title).toMatch(/^Cameras shared by farmer@example.com/));
    expect(screen.getByRole('heading', { name: 'Shared cameras (2)' })).toBeDefined();
    expect(screen.getByRole('heading', { name: 'Data this month' })).toBeDefined();
    expect(screen.queryByRole('heading', { name: 'Streaming Plans' })).toBeNull();
    expect(screen.queryByText(/your combined plan/)).toBeNull();
    expect(within(await card('Top gate')).queryByText('Billed Monthly')).toBeNull();
  });

  it("keeps the owner's own words for the owner", async () => {
    serveDashboard(ownerAccess());
    expect(await screen.findByRole('heading', { level: 1, name: 'Account' })).toBeDefined();
    expect(await screen.findByRole('heading', { name: 'My cameras (2)' })).toBeDefined();
    expect(screen.getByRole('heading', { name: 'Streaming Plans' })).toBeDefined();
    expect(within(await card('Top gate')).getByText('Billed Monthly')).toBeDefined();
  });
});
