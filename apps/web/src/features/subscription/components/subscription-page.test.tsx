import type { AccountAccess } from '@farmcam/contract';
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { plansQueryOptions } from '../../dashboard/api/get-plans.ts';
import { invoicesQueryOptions } from '../../invoices/api/fetch-invoices.ts';
import { toast } from '../../../lib/toast.tsx';
import {
  billingAccountAnswer,
  jsonResponse,
  memberAccess,
  mockFetch,
  ownerAccess,
  renderRoute,
} from '../../../test/test-utils.tsx';

const plan = (overrides: Record<string, unknown>) => ({
  product_id: 'prod_light',
  product_name: 'Light Streaming',
  unit_amount: 1200,
  currency: 'gbp',
  recurring: { interval: 'month' },
  subscribed: false,
  upgrade_data: false,
  upgrade_value: false,
  change: 'same',
  data_allowance_gb: 5,
  amountSaved: 0,
  metadata: {},
  features: ['5 GB of data a month'],
  ...overrides,
});

const heavyFeatures = [
  '50 GB of data a month',
  'Livestreaming to your website, 120 hours a month',
  'Multi-network SIM',
];

const plans = [
  plan({ id: 'price_light_month_uk', subscribed: true }),
  plan({
    id: 'price_light_year_uk',
    unit_amount: 12000,
    recurring: { interval: 'year' },
    upgrade_value: true,
    amountSaved: 2400,
  }),
  plan({
    id: 'price_heavy_month_uk',
    product_name: 'Heavy Streaming',
    unit_amount: 3500,
    upgrade_data: true,
    change: 'upgrade',
    data_allowance_gb: 50,
    metadata: { Hours: '120', Provider: 'multi-network' },
    features: heavyFeatures,
  }),
];

/** The same plans seen from a camera on Heavy: Light is a downgrade. */
const plansFromHeavy = [
  plan({ id: 'price_light_month_uk', change: 'downgrade' }),
  plan({
    id: 'price_heavy_month_uk',
    product_name: 'Heavy Streaming',
    unit_amount: 3500,
    subscribed: true,
    data_allowance_gb: 50,
    metadata: { Hours: '120', Provider: 'multi-network' },
    features: heavyFeatures,
  }),
];

function mockBillingApi(
  options: {
    switchStatus?: number;
    fromHeavy?: boolean;
    switchRefusal?: string;
    pauseRefusal?: string;
    access?: AccountAccess;
  } = {},
) {
  return mockFetch((url, init) => {
    const account = billingAccountAnswer(url);
    if (account) return account;
    if (url.pathname === '/api/auth/user-data') {
      return jsonResponse(200, {
        data: {
          email: 'farmer@example.com',
          role: 'customer',
          customerId: 'c1',
          impersonation: null,
          access: options.access ?? ownerAccess(),
        },
      });
    }
    if (url.pathname === '/api/subscriptions/fetch-eligible-plans/cus_1') {
      return jsonResponse(200, {
        eligible_plans: options.fromHeavy ? plansFromHeavy : plans,
        subscription_status: 'active',
        can_switch: !options.switchRefusal,
        switch_refusal: options.switchRefusal ?? null,
        can_pause: !options.pauseRefusal,
        pause_refusal: options.pauseRefusal ?? null,
      });
    }
    if (url.pathname === '/api/billing/all-payment-methods/cus_1') {
      return jsonResponse(200, {
        payment_methods: [
          {
            id: 'pm_1',
            card_brand: 'mastercard',
            last4: '4444',
            exp_month: 3,
            exp_year: 2025,
            is_expired: true,
            is_default: true,
          },
          {
            id: 'pm_2',
            card_brand: 'amex',
            last4: '0005',
            exp_month: 12,
            exp_year: 2030,
            is_expired: false,
            is_default: false,
          },
        ],
      });
    }
    if (url.pathname === '/api/pause/check-active-pause/cus_1') {
      return jsonResponse(200, { has_active_pause: false, state: null, pause: null });
    }
    if (url.pathname === '/api/subscriptions/preview-change/cus_1') {
      return jsonResponse(200, {
        plan: options.fromHeavy ? plansFromHeavy[0] : plans[2],
        amount_due: options.fromHeavy ? 0 : 1595,
        credit: options.fromHeavy ? 1150 : 0,
        currency: 'gbp',
        lines: [],
      });
    }
    if (url.pathname === '/api/subscriptions/change-plan' && init.method === 'POST') {
      return options.switchStatus === 422
        ? jsonResponse(422, { code: 'UNPROCESSABLE', message: 'Your card was declined.' })
        : jsonResponse(200, {
            success: true,
            message: 'ok',
            subscription: { id: 's', price_id: 'price_heavy_month_uk', status: 'active' },
            invoice: null,
          });
    }
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
}

describe('Manage plan', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'success').mockImplementation(() => undefined);
    vi.spyOn(toast, 'error').mockImplementation(() => undefined);
  });

  it('shows a Manager the plans and the pause, but neither cards nor payment details', async () => {
    authStore.signIn('manager-token');
    const fetchMock = mockBillingApi({ access: memberAccess('manager') });
    renderRoute('/subscription/cus_1');

    expect(await screen.findByRole('button', { name: 'Pause subscription' })).toBeDefined();
    expect((await screen.findAllByRole('button', { name: /Switch plan/ })).length).toBeGreaterThan(
      0,
    );
    expect(screen.getByRole('heading', { name: 'Pause' })).toBeDefined();
    expect(screen.queryByRole('button', { name: 'Update payment details' })).toBeNull();
    expect(screen.queryByText(/4444/)).toBeNull();
    // Not even asked for: the server would refuse, and the client would toast it.
    expect(
      fetchMock.mock.calls.some(([url]) =>
        String(url).includes('/api/billing/all-payment-methods'),
      ),
    ).toBe(false);
  });

  it('shows the plans with their badges and the cards with brand, last 4 and expiry', async () => {
    authStore.signIn('customer-token');
    mockBillingApi();
    renderRoute('/subscription/cus_1');
    expect(await screen.findByText('Current plan')).toBeDefined();
    expect(screen.getByText('Upgrade for better value')).toBeDefined();
    expect(screen.getByText('Upgrade for more data')).toBeDefined();
    expect(screen.getByText('£35.00')).toBeDefined();
    // Every card says its data allowance; the Heavy one its livestreaming hours too.
    expect(screen.getAllByText('5 GB of data a month')).toHaveLength(2);
    expect(screen.getByText('50 GB of data a month')).toBeDefined();
    // The features are the server's words, only those (decision 110).
    expect(
      within(screen.getByRole('list', { name: 'Heavy Streaming includes' }))
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(heavyFeatures);
    expect(screen.getAllByRole('list', { name: 'Light Streaming includes' })[0]!.textContent).toBe(
      '5 GB of data a month',
    );
    // Only the other plans can be switched to.
    expect(await screen.findAllByRole('button', { name: 'Switch plan' })).toHaveLength(2);
    expect(await screen.findByText('Mastercard')).toBeDefined();
    expect(screen.getByText('Visa')).toBeDefined();
    expect(screen.getByText('Expired')).toBeDefined();
    expect(screen.getByText('Expires 03/2025')).toBeDefined();
  });

  it('confirms with name, price, interval and the charge, then switches', async () => {
    authStore.signIn('customer-token');
    const fetchMock = mockBillingApi();
    renderRoute('/subscription/cus_1');
    const user = userEvent.setup();
    const buttons = await screen.findAllByRole('button', { name: 'Switch plan' });
    await user.click(buttons[1]!);
    const dialog = await screen.findByRole('dialog', { name: 'Switch plan confirmation' });
    expect(within(dialog).getByText('Heavy Streaming')).toBeDefined();
    expect(
      within(dialog).getByText('Upgrade to Heavy Streaming: 50 GB of data a month.'),
    ).toBeDefined();
    expect(within(dialog).getByText('Monthly')).toBeDefined();
    expect(await within(dialog).findByText('£15.95')).toBeDefined();
    // The spec's Yes says what it does, with the preview's amount (decision 115).
    await user.click(within(dialog).getByRole('button', { name: 'Yes, switch and pay £15.95' }));
    await vi.waitFor(() =>
      expect(toast.success).toHaveBeenCalledWith('Plan switched successfully'),
    );
    const call = fetchMock.mock.calls.find(([url]) =>
      String(url).endsWith('/api/subscriptions/change-plan'),
    );
    expect(JSON.parse(String(call![1]!.body))).toEqual({
      customerId: 'cus_1',
      newPlanId: 'price_heavy_month_uk',
    });
  });

  it('offers no switch the server would refuse, and says why (a scheduled pause)', async () => {
    authStore.signIn('customer-token');
    // The subscription is active: only the server's answer says the switch is barred.
    mockBillingApi({ switchRefusal: 'Cancel the scheduled pause before switching plan.' });
    renderRoute('/subscription/cus_1');
    expect(
      await screen.findByText('Cancel the scheduled pause before switching plan.'),
    ).toBeDefined();
    const buttons = await screen.findAllByRole('button', { name: 'Switch plan' });
    expect(buttons).toHaveLength(2);
    for (const button of buttons) expect((button as HTMLButtonElement).disabled).toBe(true);
  });

  it('offers no pause the server would refuse, and says why (an annual or overdue plan)', async () => {
    authStore.signIn('customer-token');
    const refusal = 'Annual plans are paid for the year ahead, so they cannot be paused.';
    mockBillingApi({ pauseRefusal: refusal });
    renderRoute('/subscription/cus_1');
    // The reason is on the page and read with the button (decision 170).
    const reason = await screen.findByText(refusal);
    const pause = screen.getByRole('button', { name: 'Pause subscription' });
    expect((pause as HTMLButtonElement).disabled).toBe(true);
    expect(pause.getAttribute('aria-describedby')).toBe(reason.id);
  });

  it('offers the pause when the server would accept it', async () => {
    authStore.signIn('customer-token');
    mockBillingApi();
    renderRoute('/subscription/cus_1');
    const pause = await screen.findByRole('button', { name: 'Pause subscription' });
    await vi.waitFor(() => expect((pause as HTMLButtonElement).disabled).toBe(false));
    expect(pause.getAttribute('aria-describedby')).toBeNull();
  });

  it('calls a smaller plan a downgrade, with the credit it leaves', async () => {
    authStore.signIn('customer-token');
    mockBillingApi({ fromHeavy: true });
    renderRoute('/subscription/cus_1');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Switch plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'Switch plan confirmation' });
    expect(
      within(dialog).getByText(
        'Downgrade to Light Streaming: 5 GB of data a month, less than your current plan.',
      ),
    ).toBeDefined();
    expect(
      await within(dialog).findByText(/a credit of £11\.50 goes to your next invoice/),
    ).toBeDefined();
    expect(within(dialog).queryByText(/upgrade/i)).toBeNull();
    expect(within(dialog).queryByText(/pay the difference/)).toBeNull();
    expect(
      within(dialog).getByRole('button', { name: 'Yes, switch: nothing to pay now' }),
    ).toBeDefined();
  });

  it('tells why a switch failed', async () => {
    authStore.signIn('customer-token');
    mockBillingApi({ switchStatus: 422 });
    renderRoute('/subscription/cus_1');
    const user = userEvent.setup();
    await user.click((await screen.findAllByRole('button', { name: 'Switch plan' }))[1]!);
    const dialog = await screen.findByRole('dialog', { name: 'Switch plan confirmation' });
    await within(dialog).findByText('£15.95');
    await user.click(within(dialog).getByRole('button', { name: /^Yes/ }));
    await vi.waitFor(() =>
      expect(toast.error).toHaveBeenCalledWith('Failed to switch plan: Your card was declined.'),
    );
  });

  it('refetches plans and cards when the tab is shown again (back from the provider’s tab)', async () => {
    authStore.signIn('customer-token');
    const fetchMock = mockBillingApi();
    renderRoute('/subscription/cus_1');
    expect(await screen.findByText('Mastercard')).toBeDefined();
    const callsTo = (path: string) =>
      fetchMock.mock.calls.filter(([url]) => String(url).endsWith(path)).length;
    const plansBefore = callsTo('/fetch-eligible-plans/cus_1');
    const cardsBefore = callsTo('/all-payment-methods/cus_1');

    // What the browser sends when the farmer returns to this tab; the answers are still fresh.
    act(() => {
      window.dispatchEvent(new Event('visibilitychange'));
    });
    await vi.waitFor(() => {
      expect(callsTo('/fetch-eligible-plans/cus_1')).toBe(plansBefore + 1);
      expect(callsTo('/all-payment-methods/cus_1')).toBe(cardsBefore + 1);
    });
    // The invoices and the camera list do the same.
    expect(invoicesQueryOptions('cus_1').refetchOnWindowFocus).toBe('always');
    expect(plansQueryOptions.refetchOnWindowFocus).toBe('always');
  });
});
