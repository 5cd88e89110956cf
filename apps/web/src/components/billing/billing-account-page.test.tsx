import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { authStore } from '../../lib/auth-store.ts';
import {
  billingAccountAnswer,
  jsonResponse,
  mockFetch,
  ownerAccess,
  renderRoute,
} from '../../test/test-utils.tsx';

/**
 * Manage plan and Invoices say which camera they are about, as the renewal page does, and an
 * account nobody found gets one message and a way back, with nothing to press under it
 * (issue 24 item 3, decision 111).
 */
function serveAccount(account: Record<string, unknown> = {}) {
  authStore.signIn('customer-token');
  return mockFetch((url) => {
    const answer = billingAccountAnswer(url, account);
    if (answer) return answer;
    if (url.pathname === '/api/auth/user-data') {
      return jsonResponse(200, {
        data: {
          email: 'demo@example.com',
          role: 'customer',
          customerId: 'c1',
          impersonation: null,
          access: ownerAccess('demo@example.com'),
        },
      });
    }
    if (url.pathname === '/api/subscriptions/fetch-eligible-plans/cus_1') {
      return jsonResponse(200, {
        eligible_plans: [],
        subscription_status: 'active',
        can_switch: true,
        switch_refusal: null,
        can_pause: true,
        pause_refusal: null,
      });
    }
    if (url.pathname === '/api/billing/all-payment-methods/cus_1') {
      return jsonResponse(200, { payment_methods: [] });
    }
    if (url.pathname === '/api/pause/check-active-pause/cus_1') {
      return jsonResponse(200, { has_active_pause: false, state: null, pause: null });
    }
    if (url.pathname === '/api/invoices/fetch-invoices/cus_1') {
      return jsonResponse(200, { invoices: [], credit_balance: 0, currency: 'gbp' });
    }
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
}

const calledPaths = (fetchMock: ReturnType<typeof mockFetch>) =>
  fetchMock.mock.calls.map(([url]) => new URL(String(url), window.location.origin).pathname);

describe('pages about a billing account', () => {
  it('titles Manage plan and Invoices with the camera and its SIM', async () => {
    serveAccount();
    renderRoute('/subscription/cus_1');
    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'Manage plan — Fuel tank (SIM …1071)',
      }),
    ).toBeDefined();
    expect(await screen.findByRole('button', { name: 'Update payment details' })).toBeDefined();
    expect(document.title).toBe('Manage plan — Fuel tank (SIM …1071) · Farmcam Portal');
  });

  it('names a camera without a nickname by its SIM', async () => {
    serveAccount({ camera: { iccid: '8944110000000001071', nickname: null } });
    renderRoute('/invoices/cus_1');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Invoices — Camera 1071 (SIM …1071)' }),
    ).toBeDefined();
    expect(await screen.findByText('No invoices yet.')).toBeDefined();
  });

  it.each(['/subscription/cus_other', '/invoices/cus_other'])(
    'says once that %s is not found, with a way back and no buttons',
    async (path) => {
      const fetchMock = serveAccount();
      renderRoute(path);
      expect(
        await screen.findByRole('heading', { level: 1, name: 'Billing account not found' }),
      ).toBeDefined();
      const main = screen.getByRole('main');
      expect(within(main).getAllByRole('alert')).toHaveLength(1);
      expect(within(main).getByRole('alert').textContent).toMatch(
        /^There is no camera with this billing account on your login/,
      );
      expect(within(main).getByRole('link', { name: 'Back to your cameras' })).toBeDefined();
      expect(within(main).queryAllByRole('button')).toEqual([]);
      // Nothing else was asked about an account nobody found.
      expect(calledPaths(fetchMock).filter((called) => called.includes('cus_other'))).toEqual([
        '/api/billing/account/cus_other',
      ]);
    },
  );

  it('offers a switched-off camera no plans, only what to do instead', async () => {
    const refusal =
      "This camera's SIM was switched off on 1 January 2026, so its plan can no longer be changed or paused. Activate a new SIM to keep watching this place.";
    const fetchMock = serveAccount({
      camera: { iccid: '8944110000000001097', nickname: 'Old dairy' },
      can_manage_plan: false,
      manage_plan_refusal: refusal,
    });
    renderRoute('/subscription/cus_1');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Manage plan — Old dairy (SIM …1097)' }),
    ).toBeDefined();
    expect(screen.getByRole('status').textContent).toBe(refusal);
    expect(
      (await screen.findByRole('link', { name: 'Activate a new SIM' })).getAttribute('href'),
    ).toBe('/activate');
    expect(screen.queryByRole('button', { name: /Switch plan|Pause|Update payment/ })).toBeNull();
    expect(calledPaths(fetchMock)).not.toContain('/api/subscriptions/fetch-eligible-plans/cus_1');
  });
});
