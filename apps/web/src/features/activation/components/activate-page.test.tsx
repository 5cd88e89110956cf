import { act, cleanup, render, screen, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from '../../../lib/router/index.ts';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { routes as appRoutes } from '../../../app/router.tsx';
import { authStore } from '../../../lib/auth-store.ts';
import { queryClient } from '../../../lib/query-client.ts';
import { toast } from '../../../lib/toast.tsx';
import {
  jsonResponse,
  mockFetch,
  ownerAccess,
  renderRoute,
  requestHeaders,
} from '../../../test/test-utils.tsx';
import { customerSecretErrorMessage } from '../pricing-table-setup.ts';
import { ActivatePage } from './activate-page.tsx';

const iccid = '8944110000000009017';
const config = {
  provider: 'local',
  publishable_key: null,
  fallback_pricing_tables: { uk: 'local_uk', other: 'local_ie' },
  support_email: 'help@farmcam.test',
  setup_guide_url: 'https://guide.test/setup',
};

const plan = (tier: string, interval: 'month' | 'year', amount: number, currency = 'gbp') => ({
  price_id: `price_${tier}_${interval}_uk`,
  product_id: `prod_${tier}`,
  product_name: `${tier[0]!.toUpperCase()}${tier.slice(1)} Streaming`,
  tier,
  unit_amount: amount,
  currency,
  interval,
  data_allowance_gb: tier === 'heavy' ? 50 : 5,
  metadata: tier === 'heavy' ? { Hours: '120', Provider: 'multi-network' } : {},
  features:
    tier === 'heavy'
      ? [
          '50 GB of data a month',
          'Livestreaming to your website, 120 hours a month',
          'Multi-network SIM',
        ]
      : ['5 GB of data a month'],
});

const pricingTable = (id: string) => ({
  id,
  region: id.includes('_ie') ? 'ie' : 'uk',
  is_solar: id.endsWith('_solar'),
  currency: id.includes('_ie') ? 'eur' : 'gbp',
  plans: [plan('light', 'month', 1200), plan('light', 'year', 12000), plan('heavy', 'month', 3500)],
});

type Handler = (url: URL, init: RequestInit) => Response | Promise<Response> | undefined;

/** The server as the wizard sees it; a test overrides single answers with `handler`. */
function serve(handler: Handler = () => undefined) {
  return mockFetch((url, init) => {
    const answer = handler(url, init);
    if (answer) return answer;
    switch (url.pathname) {
      case '/api/activation/config':
        return jsonResponse(200, config);
      case '/api/activation/validate-activation-code':
      case '/api/activation/validate-iccid':
      case '/api/activation/validate':
        return jsonResponse(200, { success: true, message: 'SIM validated', iccid });
      case '/api/activation/check-solar-sim':
        return jsonResponse(200, { is_solar_sim: false, pricing_table_id: 'local_uk' });
      case '/api/activation/log-price-table':
        return jsonResponse(200, { success: true });
      case '/api/auth/user-data':
        return jsonResponse(200, {
          data: {
            email: 'signed.in@farm.test',
            role: 'customer',
            customerId: 'c1',
            impersonation: null,
            access: ownerAccess(),
          },
        });
      default:
        if (url.pathname.startsWith('/api/activation/pricing-tables/')) {
          return jsonResponse(200, pricingTable(url.pathname.split('/').at(-1)!));
        }
        return jsonResponse(404, { code: 'NOT_FOUND', message: `No route ${url.pathname}` });
    }
  });
}

const bodyOf = (init: RequestInit | undefined) =>
  JSON.parse(String(init?.body)) as Record<string, unknown>;
const callsTo = (fetchMock: ReturnType<typeof serve>, path: string) =>
  fetchMock.mock.calls.filter(
    ([url]) => new URL(String(url), window.location.origin).pathname === path,
  );

const nextButton = () => screen.getByRole('button', { name: 'Next' });
const stepTitle = (name: string) => screen.findByRole('heading', { level: 2, name });

beforeEach(() => {
  vi.spyOn(toast, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.useRealTimers();
  sessionStorage.clear();
});

describe('activation wizard: steps and transitions', () => {
  it('walks a new visitor through the five steps with a 4-letter code', async () => {
    const user = userEvent.setup();
    const fetchMock = serve();
    const { router } = renderRoute('/activate');

    expect(await stepTitle('Your e-mail')).toBeDefined();
    expect(screen.getByText('Step 1 of 5')).toBeDefined();
    expect(nextButton()).toHaveProperty('disabled', true);
    await user.type(screen.getByLabelText('E-mail address'), 'new@farm.test');
    await user.click(nextButton());

    expect(await stepTitle('How to find your SIM')).toBeDefined();
    const searchOf = () => Object.fromEntries(new URLSearchParams(router.state.location.search));
    expect(searchOf()).toEqual({ step: '1', email: 'new@farm.test', location: 'uk' });
    expect(nextButton()).toHaveProperty('disabled', true);
    await user.click(screen.getByRole('radio', { name: /4-digit code/ }));
    await user.click(nextButton());

    expect(await stepTitle('Enter the code')).toBeDefined();
    const field = screen.getByRole('textbox', { name: 'Activation code' });
    await user.type(field, 'kq1t');
    expect(field).toHaveProperty('value', 'KQT');
    expect(nextButton()).toHaveProperty('disabled', true);
    await user.type(field, 'xy');
    expect(field).toHaveProperty('value', 'KQTX');
    expect(searchOf()).toEqual({
      step: '2',
      email: 'new@farm.test',
      location: 'uk',
      code_type: '4-digits',
      code: 'KQTX',
    });
    await user.click(nextButton());

    const modal = await screen.findByRole('dialog', { name: 'SIM Validated' });
    expect(within(modal).getByText('8944 1100 0000 0009 017')).toBeDefined();
    const continueButton = within(modal).getByRole('button', { name: 'Continue' });
    expect(continueButton).toHaveProperty('disabled', true);
    await user.click(within(modal).getByRole('checkbox', { name: /9017/ }));
    await user.click(continueButton);

    expect(await stepTitle('Select Region')).toBeDefined();
    await user.click(screen.getByRole('button', { name: 'Ireland' }));
    expect(screen.getByRole('button', { name: 'Ireland', pressed: true })).toBeDefined();

    expect(await stepTitle('Choose plan')).toBeDefined();
    expect(await screen.findByRole('heading', { name: 'Heavy Streaming' })).toBeDefined();
    expect(searchOf().location).toBe('ie');
    expect(bodyOf(callsTo(fetchMock, '/api/activation/validate-activation-code')[0]![1])).toEqual({
      activationCode: 'KQTX',
    });
    expect(bodyOf(callsTo(fetchMock, '/api/activation/check-solar-sim')[0]![1])).toEqual({
      iccid,
      location: 'ie',
    });
    expect(bodyOf(callsTo(fetchMock, '/api/activation/log-price-table')[0]![1])).toEqual({
      'client-reference-id': iccid,
      'customer-email': 'new@farm.test',
      'customer-session-client-secret': null,
      pricing_table_id: 'local_uk',
    });
    // Every look-up carries the tab's wizard session, for the per-session guessing limit.
    const session = requestHeaders(callsTo(fetchMock, '/api/activation/validate')[0]![1]).get(
      'x-activation-session',
    );
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      requestHeaders(callsTo(fetchMock, '/api/activation/validate-activation-code')[0]![1]).get(
        'x-activation-session',
      ),
    ).toBe(session);
  });

  it("moves focus to a step's title as the step is drawn, so nothing typed at once goes astray", async () => {
    const user = userEvent.setup();
    serve();
    renderRoute('/activate');
    await user.type(await screen.findByLabelText('E-mail address'), 'new@farm.test');
    await user.click(nextButton());
    await stepTitle('How to find your SIM');
    await user.click(screen.getByRole('radio', { name: /4-digit code/ }));
    // Where focus is when the code field first exists, with a plain click outside testing-library's
    // act (which would run every effect first): a person could tap the field from then on.
    const focusedWhenDrawn = new Promise<Element | null>((resolve) => {
      const observer = new MutationObserver(() => {
        if (!screen.queryByRole('textbox', { name: 'Activation code' })) return;
        observer.disconnect();
        resolve(document.activeElement);
      });
      observer.observe(document.body, { childList: true, subtree: true });
    });
    nextButton().click();
    expect((await focusedWhenDrawn)?.textContent).toBe('Enter the code');
  });

  it('waits 100 ms on the region step before showing the plans', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    serve();
    renderRoute(`/activate?email=a%40b.co&code_type=20-digits&code=${iccid}`);
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    expect(await stepTitle('Select Region')).toBeDefined();
    vi.useRealTimers();
    vi.useFakeTimers();
    screen.getByRole('button', { name: 'United Kingdom' }).click();
    vi.advanceTimersByTime(99);
    expect(screen.queryByRole('heading', { name: 'Choose plan' })).toBeNull();
    vi.advanceTimersByTime(1);
    vi.useRealTimers();
    expect(await stepTitle('Choose plan')).toBeDefined();
  });

  it('resumes from the query: step 0 goes straight to the code step, which is filled in', async () => {
    const user = userEvent.setup();
    serve();
    renderRoute('/activate?email=back%40farm.test&code_type=4-digits&code=kqtx&location=ie');
    expect(await screen.findByLabelText('E-mail address')).toHaveProperty(
      'value',
      'back@farm.test',
    );
    await user.click(nextButton());
    expect(await stepTitle('Enter the code')).toBeDefined();
    expect(screen.getByRole('textbox', { name: 'Activation code' })).toHaveProperty(
      'value',
      'KQTX',
    );
  });

  it('keeps the code of a link without code_type (the shape says which it is)', async () => {
    const user = userEvent.setup();
    serve();
    renderRoute('/activate?email=a%40b.co&code=kqtx');
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    expect(await stepTitle('Enter the code')).toBeDefined();
    expect(screen.getByRole('textbox', { name: 'Activation code' })).toHaveProperty(
      'value',
      'KQTX',
    );
  });

  it('has a Next button on the region step that keeps the chosen region', async () => {
    const user = userEvent.setup();
    serve();
    renderRoute(`/activate?email=a%40b.co&code_type=20-digits&code=${iccid}&location=ie`);
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    expect(await stepTitle('Select Region')).toBeDefined();
    expect(screen.getByRole('button', { name: 'Ireland', pressed: true })).toBeDefined();
    await user.click(nextButton());
    expect(await stepTitle('Choose plan')).toBeDefined();
  });

  it('refuses an e-mail without the dot part', async () => {
    const user = userEvent.setup();
    serve();
    renderRoute('/activate');
    await user.type(await screen.findByLabelText('E-mail address'), 'farmer@example');
    await user.click(nextButton());
    expect(
      screen.getByRole('textbox', {
        name: 'E-mail address',
        description: 'Please enter a valid email',
      }),
    ).toBeDefined();
    expect(screen.getByRole('heading', { level: 2, name: 'Your e-mail' })).toBeDefined();
  });

  it('Back buttons return a step each', async () => {
    const user = userEvent.setup();
    serve();
    renderRoute(`/activate?email=a%40b.co&code_type=20-digits&code=${iccid}`);
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    expect(await stepTitle('Select Region')).toBeDefined();
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(await stepTitle('Enter the code')).toBeDefined();
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(await stepTitle('How to find your SIM')).toBeDefined();
    // Switching the code type clears the code that was entered.
    await user.click(screen.getByRole('radio', { name: /4-digit code/ }));
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(await stepTitle('Your e-mail')).toBeDefined();
    // A code type now exists, so step 0 goes straight to the (cleared) code step.
    await user.click(nextButton());
    expect(await stepTitle('Enter the code')).toBeDefined();
    expect(screen.getByRole('textbox', { name: 'Activation code' })).toHaveProperty('value', '');
  });

  it('opens the help modal on where to find the code', async () => {
    const user = userEvent.setup();
    serve();
    renderRoute('/activate?email=a%40b.co&code_type=4-digits');
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Where do I find my code?' }));
    const help = await screen.findByRole('dialog', { name: 'Where to find your code' });
    expect(within(help).getByRole('heading', { name: /Virtual SIM/ })).toBeDefined();
    expect(within(help).getByRole('heading', { name: /Physical SIM/ })).toBeDefined();
    expect(
      within(help)
        .getByRole('link', { name: /APN settings/ })
        .getAttribute('href'),
    ).toMatch(/apn-settings$/);
  });
});

describe('activation wizard: the optional coverage check', () => {
  it('opens in the region step with the postcode the visitor came with, and keeps new ones in the query', async () => {
    const user = userEvent.setup();
    serve();
    const seen: string[] = [];
    function FakeCoverageCheck(props: {
      initialPostcode?: string;
      onPostcodeChange?: (postcode: string) => void;
    }) {
      seen.push(props.initialPostcode ?? '');
      return (
        <button type="button" onClick={() => props.onPostcodeChange?.('TA11AA')}>
          Check another postcode
        </button>
      );
    }
    const routes = [
      { path: '/activate', element: <ActivatePage coverageCheck={FakeCoverageCheck} /> },
    ];
    const { router } = renderRoute(
      `/activate?postcode=EX363LH&email=a%40b.co&code_type=20-digits&code=${iccid}`,
      routes,
    );
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    expect(await stepTitle('Select Region')).toBeDefined();
    expect(
      screen.getByText(/Check the signal where the camera will go/).closest('details')?.open,
    ).toBe(true);
    expect(seen).toContain('EX363LH');
    await user.click(screen.getByRole('button', { name: 'Check another postcode' }));
    expect(new URLSearchParams(router.state.location.search).get('postcode')).toBe('TA11AA');
  });
});

describe('activation wizard: validation failures', () => {
  it('shows the server’s message in a red box with "Try 20-digit method", which switches and clears', async () => {
    const user = userEvent.setup();
    serve((url) =>
      url.pathname === '/api/activation/validate-activation-code'
        ? jsonResponse(404, {
            code: 'NOT_FOUND',
            message: 'We don’t recognise this activation code.',
          })
        : undefined,
    );
    const { router } = renderRoute('/activate?email=a%40b.co&code_type=4-digits&code=ZZZZ');
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('We don’t recognise this activation code.');
    await user.click(within(alert).getByRole('button', { name: 'Try 20-digit method' }));
    const field = await screen.findByRole('textbox', { name: 'SIM number (ICCID)' });
    expect(field).toHaveProperty('value', '');
    expect(Object.fromEntries(new URLSearchParams(router.state.location.search))).toEqual({
      step: '2',
      email: 'a@b.co',
      code_type: '20-digits',
      location: 'uk',
    });
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('warns, without blocking, about an ICCID whose check digit fails', async () => {
    const user = userEvent.setup();
    serve();
    renderRoute('/activate?email=a%40b.co&code_type=20-digits');
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    const field = await screen.findByRole('textbox', { name: 'SIM number (ICCID)' });
    await user.type(field, '8944-1100 0000 0009 018');
    expect(field).toHaveProperty('value', '8944110000000009018');
    expect(screen.getByRole('status').textContent).toMatch(
      /last digit does not pass the usual check/,
    );
    expect(nextButton()).toHaveProperty('disabled', false);
    await user.clear(field);
    await user.type(field, iccid);
    expect(screen.queryByText(/last digit does not pass/)).toBeNull();
  });

  it('returns to the code step with the server’s words when the SIM was sold meanwhile', async () => {
    const user = userEvent.setup();
    serve((url) =>
      url.pathname === '/api/activation/validate'
        ? jsonResponse(409, { code: 'CONFLICT', message: 'This SIM is already active.' })
        : undefined,
    );
    renderRoute(`/activate?email=a%40b.co&code_type=20-digits&code=${iccid}`);
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'United Kingdom' }));
    expect(await stepTitle('Enter the code')).toBeDefined();
    expect((await screen.findByRole('alert')).textContent).toContain('This SIM is already active.');
  });
});

describe('activation wizard: the plan step', () => {
  async function reachPlans(
    query = `email=a%40b.co&code_type=20-digits&code=${iccid}`,
    region = 'United Kingdom',
  ) {
    const user = userEvent.setup();
    renderRoute(`/activate?${query}`);
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: region }));
    return user;
  }

  it('falls back to the region’s table when the solar check fails', async () => {
    const fetchMock = serve((url) =>
      url.pathname === '/api/activation/check-solar-sim'
        ? jsonResponse(503, { code: 'X', message: 'down' })
        : undefined,
    );
    await reachPlans(undefined, 'Ireland');
    expect(await screen.findByRole('heading', { name: 'Heavy Streaming' })).toBeDefined();
    expect(callsTo(fetchMock, '/api/activation/pricing-tables/local_ie').length).toBeGreaterThan(0);
    expect(callsTo(fetchMock, '/api/activation/pricing-tables/local_uk')).toHaveLength(0);
    expect(console.warn).toHaveBeenCalled();
  });

  it('opens the hosted checkout for the chosen plan', async () => {
    const assign = vi.spyOn(window.location, 'assign').mockImplementation(() => undefined);
    const fetchMock = serve((url) =>
      url.pathname === '/api/activation/checkout'
        ? jsonResponse(200, { url: 'http://portal.test/billing-engine/checkout/cs_1' })
        : undefined,
    );
    const user = await reachPlans();
    await user.click(await screen.findByRole('radio', { name: 'Annually' }));
    expect(screen.queryByRole('heading', { name: 'Heavy Streaming' })).toBeNull();
    await user.click(
      screen.getByRole('button', { name: /Subscribe to Light Streaming, £120\.00 per year/ }),
    );
    await vi.waitFor(() =>
      expect(assign).toHaveBeenCalledWith('http://portal.test/billing-engine/checkout/cs_1'),
    );
    expect(bodyOf(callsTo(fetchMock, '/api/activation/checkout')[0]![1])).toEqual({
      pricing_table_id: 'local_uk',
      price_id: 'price_light_year_uk',
      client_reference_id: iccid,
      customer_email: 'a@b.co',
      customer_session_client_secret: null,
    });
    assign.mockRestore();
  });

  it('pre-fills a signed-in customer’s e-mail and gives the table a customer session', async () => {
    authStore.signIn('a-session-token-that-is-long-enough');
    const fetchMock = serve((url) => {
      if (url.pathname === '/api/activation/billing-customer')
        return jsonResponse(200, { customer_id: 'cus_new' });
      if (url.pathname === '/api/billing/create-customer-secret')
        return jsonResponse(200, { secret: 'cuss_secret_1' });
      return undefined;
    });
    const user = userEvent.setup();
    renderRoute(`/activate?code_type=20-digits&code=${iccid}`);
    await vi.waitFor(() =>
      expect(screen.getByLabelText('E-mail address')).toHaveProperty(
        'value',
        'signed.in@farm.test',
      ),
    );
    await user.click(nextButton());
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'United Kingdom' }));
    expect(await screen.findByRole('heading', { name: 'Heavy Streaming' })).toBeDefined();
    expect(bodyOf(callsTo(fetchMock, '/api/billing/create-customer-secret')[0]![1])).toEqual({
      customerId: 'cus_new',
    });
    expect(
      bodyOf(callsTo(fetchMock, '/api/activation/log-price-table')[0]![1])[
        'customer-session-client-secret'
      ],
    ).toBe('cuss_secret_1');
  });

  it('toasts "Error fetching customer secret" and still shows the table', async () => {
    authStore.signIn('a-session-token-that-is-long-enough');
    serve((url) =>
      url.pathname === '/api/activation/billing-customer'
        ? jsonResponse(503, { code: 'X', message: 'down' })
        : undefined,
    );
    await reachPlans();
    expect(await screen.findByRole('heading', { name: 'Heavy Streaming' })).toBeDefined();
    expect(toast.error).toHaveBeenCalledWith(customerSecretErrorMessage, expect.anything());
  });
});

describe('thank-you page (/order-confirmation)', () => {
  const orders = (url: URL) =>
    url.pathname === '/api/activation/orders/ord_123'
      ? jsonResponse(200, { order: 'ord_123', product: 'Heavy Streaming', status: 'activated' })
      : undefined;

  it('shows the order and product the server knows, the message and the links', async () => {
    serve(orders);
    // The product in the address is not shown: the server's is (docs/decisions/027).
    renderRoute('/order-confirmation?order=ord_123&product=Evil%20Text');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Thank you for your order' }),
    ).toBeDefined();
    expect(
      await screen.findByText('Your Multi-network Streaming plan has been activated.'),
    ).toBeDefined();
    expect(screen.getByText('ord_123')).toBeDefined();
    expect(screen.getByText('Heavy Streaming')).toBeDefined();
    expect(screen.queryByText(/Evil Text/)).toBeNull();
    expect(screen.getByText(/come online within a few hours/).textContent).toMatch(/power-cycle/);
    expect(screen.getByRole('link', { name: 'Go to dashboard' }).getAttribute('href')).toBe('/');
    expect(screen.getByRole('link', { name: 'Activate another camera' }).getAttribute('href')).toBe(
      '/activate',
    );
    await vi.waitFor(() =>
      expect(screen.getByRole('link', { name: /Camera setup guide/ }).getAttribute('href')).toBe(
        'https://guide.test/setup',
      ),
    );
    expect(screen.getByRole('link', { name: 'help@farmcam.test' }).getAttribute('href')).toBe(
      'mailto:help@farmcam.test',
    );
  });

  it('says "not found" for an order that does not exist, never "activated"', async () => {
    serve();
    renderRoute('/order-confirmation?order=ord_nothing&product=Heavy');
    expect(await screen.findByText('We could not find this order.')).toBeDefined();
    expect(screen.queryByText(/has been activated/)).toBeNull();
    expect(screen.queryByText('Heavy')).toBeNull();
  });

  it('does not echo a Stripe session id from the address', async () => {
    serve();
    renderRoute('/order-confirmation?session_id=cs_test_%3Cb%3Ehi');
    expect(
      await screen.findByText('Your Multi-network Streaming plan has been activated.'),
    ).toBeDefined();
    expect(screen.queryByText(/cs_test/)).toBeNull();
  });

  it('leaves out what the query does not give', async () => {
    serve();
    renderRoute('/order-confirmation');
    expect(
      await screen.findByText('Your Multi-network Streaming plan has been activated.'),
    ).toBeDefined();
    expect(screen.queryByText('Order')).toBeNull();
    expect(screen.queryByText('Plan')).toBeNull();
  });
});

describe('activation wizard: browser history', () => {
  const toCodeStepThenRegion = async (user: ReturnType<typeof userEvent.setup>) => {
    await user.type(await screen.findByLabelText('E-mail address'), 'new@farm.test');
    await user.click(nextButton());
    await user.click(await screen.findByRole('radio', { name: /20-digit ICCID/ }));
    await user.click(nextButton());
    await user.type(await screen.findByRole('textbox', { name: 'SIM number (ICCID)' }), iccid);
    await user.click(nextButton());
    expect(await stepTitle('Select Region')).toBeDefined();
  };

  it('makes each step a history entry: Back and Forward move between steps', async () => {
    const user = userEvent.setup();
    serve();
    const { router } = renderRoute('/activate');
    await toCodeStepThenRegion(user);

    await act(() => router.navigate(-1));
    expect(await stepTitle('Enter the code')).toBeDefined();
    expect(screen.getByRole('textbox', { name: 'SIM number (ICCID)' })).toHaveProperty(
      'value',
      iccid,
    );
    await act(() => router.navigate(-1));
    expect(await stepTitle('How to find your SIM')).toBeDefined();
    expect(screen.getByRole('radio', { name: /20-digit ICCID/, checked: true })).toBeDefined();
    await act(() => router.navigate(-1));
    expect(await stepTitle('Your e-mail')).toBeDefined();
    expect(screen.getByLabelText('E-mail address')).toHaveProperty('value', 'new@farm.test');

    // Forward goes through the same steps, up to the region step (its SIM is kept in the entry).
    await act(() => router.navigate(1));
    expect(await stepTitle('How to find your SIM')).toBeDefined();
    await act(() => router.navigate(1));
    await act(() => router.navigate(1));
    expect(await stepTitle('Select Region')).toBeDefined();
    await user.click(nextButton());
    expect(await stepTitle('Choose plan')).toBeDefined();
  });

  it('the Back button and the browser’s Back agree', async () => {
    const user = userEvent.setup();
    serve();
    const { router } = renderRoute('/activate');
    await toCodeStepThenRegion(user);
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(await stepTitle('Enter the code')).toBeDefined();
    // The Back button went back in history, so Forward returns to the region step.
    await act(() => router.navigate(1));
    expect(await stepTitle('Select Region')).toBeDefined();
  });

  it('a reload stays on the step; without the validated SIM it stands on the code step', async () => {
    serve();
    renderRoute(`/activate?step=1&email=a%40b.co`);
    expect(await stepTitle('How to find your SIM')).toBeDefined();
    cleanup();
    const { router } = renderRoute(`/activate?step=3&email=a%40b.co&code=${iccid}`);
    expect(await stepTitle('Enter the code')).toBeDefined();
    expect(new URLSearchParams(router.state.location.search).get('step')).toBe('2');
  });

  it('a reload of the region step keeps it, the entry holding the validated SIM', async () => {
    serve();
    const router = createMemoryRouter(appRoutes, {
      initialEntries: [
        {
          pathname: '/activate',
          search: `?step=3&email=a%40b.co&code_type=20-digits&code=${iccid}`,
          state: { wizardEntry: { iccid, from: 2 } },
        },
      ],
    });
    render(
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    expect(await stepTitle('Select Region')).toBeDefined();
  });
});
