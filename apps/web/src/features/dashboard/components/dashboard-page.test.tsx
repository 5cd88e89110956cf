import type { PlansResponse } from '@farmcam/contract';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { queryClient } from '../../../lib/query-client.ts';
import { toast } from '../../../lib/toast.tsx';
import { jsonResponse, mockFetch, ownerAccess, renderRoute } from '../../../test/test-utils.tsx';
import { plansQueryKey } from '../api/get-plans.ts';
import { cardsRenderedMark, firstScreenCards } from './camera-grid.tsx';
import { buildCamera, buildPlans, camerasInEveryState } from '../testing/build-camera.ts';

const customer = {
  email: 'demo@example.com',
  role: 'customer',
  customerId: '7d4f6a59-3c4e-4f7f-9a55-0c1f2f9a1b11',
  impersonation: null,
  access: ownerAccess(),
};

/** The API with a given plans answer (or a function giving one per call). */
function mockPortalApi(plans: PlansResponse | (() => PlansResponse | Response)) {
  return mockFetch((url, init) => {
    if (url.pathname === '/api/auth/user-data') return jsonResponse(200, { data: customer });
    if (url.pathname === '/api/cameras/plansV2') {
      const answer = typeof plans === 'function' ? plans() : plans;
      return answer instanceof Response ? answer : jsonResponse(200, answer);
    }
    if (url.pathname === '/api/cameras/update-nickname' && init.method === 'POST') {
      const body = JSON.parse(String(init.body)) as { nickname: string };
      return jsonResponse(200, {
        success: true,
        message: 'Camera name updated successfully',
        nickname: body.nickname,
      });
    }
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
}

const cardOf = async (name: string) =>
  (await screen.findByRole('article', { name })) as HTMLElement;
const plansCalls = (fetchMock: ReturnType<typeof mockFetch>) =>
  fetchMock.mock.calls.filter(([url]) => String(url).includes('/api/cameras/plansV2')).length;

describe('Dashboard', () => {
  it('a camera that already streams offers Manage livestream, not the set-up wizard', async () => {
    authStore.signIn('token');
    const streaming = buildCamera({
      SIM_ICCID: '8944110000000001048',
      nicknameInDatabase: 'Calving pen',
      canLivestream: true,
      livestreamAction: 'manage',
      isLivestreaming: true,
    });
    const notYet = buildCamera({
      SIM_ICCID: '8944110000000001030',
      nicknameInDatabase: 'Farmyard',
      canLivestream: true,
      livestreamAction: 'set-up',
    });
    mockPortalApi(buildPlans([streaming, notYet]));
    renderRoute('/dashboard');
    const calvingPen = await cardOf('Calving pen');
    expect(
      within(calvingPen).getByRole('link', { name: 'Manage livestream for Calving pen' }),
    ).toHaveProperty('pathname', '/livestreaming/manage/8944110000000001048');
    expect(within(calvingPen).queryByRole('link', { name: /Setup Livestreaming/ })).toBeNull();
    const farmyard = await cardOf('Farmyard');
    expect(
      within(farmyard).getByRole('link', { name: 'Setup Livestreaming for Farmyard' }),
    ).toBeDefined();
    expect(within(farmyard).queryByRole('link', { name: /Manage livestream/ })).toBeNull();
  });

  it('shows the combined plan to one decimal with the reset note', async () => {
    authStore.signIn('token');
    mockPortalApi(buildPlans([buildCamera()], 57.25));
    renderRoute('/dashboard');
    const bar = await screen.findByRole('progressbar', { name: 'Combined plan remaining' });
    expect(bar.getAttribute('aria-valuetext')).toBe('57.3% remaining');
    expect(screen.getByText('57.3%').closest('p')?.textContent).toBe(
      '57.3% of your combined plan remaining',
    );
    expect(screen.getByText('Plans reset on the 1st of each month')).toBeDefined();
  });

  it('says which cameras the combined figures count and which they leave out (decision 143)', async () => {
    authStore.signIn('token');
    const plans = buildPlans([buildCamera()], 61.25);
    plans.overallSummary = {
      ...plans.overallSummary,
      totalUsageGB: 88.934,
      totalAllowanceGB: 145,
      countedPlans: 7,
      notCounted: { paused: 1, withoutPlan: 1, switchedOff: 1 },
    };
    mockPortalApi(plans);
    renderRoute('/dashboard');
    expect(
      await screen.findByText(
        '88.93 GB of 145 GB used this month. Counts 7 cameras with a paid plan; not counted: 1 paused, 1 without a plan, 1 switched off.',
      ),
    ).toBeDefined();
  });

  it('shows each card state with its text, chip, plan, billing and usage', async () => {
    authStore.signIn('token');
    const cameras = camerasInEveryState();
    mockPortalApi(buildPlans(Object.values(cameras)));
    renderRoute('/dashboard');

    const active = await cardOf('Top gate');
    expect(within(active).getByText('Active')).toBeDefined();
    expect(within(active).getByText(cameras.active!.SIM_ICCID)).toBeDefined();
    expect(within(active).getByText('Light Streaming')).toBeDefined();
    expect(within(active).getByText('Billed Monthly')).toBeDefined();
    expect(within(active).getByText('1.23 GB')).toBeDefined();
    // One rounding rule on the dashboard: shares to one decimal, GB to two (decision 143).
    expect(within(active).getByText(/24.7% of the 5 GB plan/)).toBeDefined();
    expect(within(active).getByRole('link', { name: 'More info for Top gate' })).toHaveProperty(
      'pathname',
      `/camera/${cameras.active!.SIM_ICCID}`,
    );
    expect(within(active).getByRole('link', { name: 'Manage plan for Top gate' })).toHaveProperty(
      'pathname',
      `/subscription/${cameras.active!.STRIPE_CUSTOMER_ID}`,
    );
    expect(within(active).getByRole('link', { name: 'Invoices for Top gate' })).toHaveProperty(
      'pathname',
      `/invoices/${cameras.active!.STRIPE_CUSTOMER_ID}`,
    );
    expect(within(active).queryByRole('link', { name: /Setup Livestreaming/ })).toBeNull();

    const heavy = await cardOf('Farmyard');
    expect(within(heavy).getByText('Heavy Streaming')).toBeDefined();
    expect(within(heavy).getByText('Billed Annually')).toBeDefined();
    expect(within(heavy).getByText(/on course for 61.4 GB by month end/)).toBeDefined();
    expect(
      within(heavy).getByRole('link', { name: 'Setup Livestreaming for Farmyard' }),
    ).toHaveProperty('pathname', '/livestreaming/setup');
    // The link chooses this card's camera on the setup page.
    expect(
      within(heavy)
        .getByRole('link', { name: 'Setup Livestreaming for Farmyard' })
        .getAttribute('href'),
    ).toMatch(/^\/livestreaming\/setup\?camera=\d{19,20}$/);
    // Annual plans cannot be paused: the card says why instead of offering Pause.
    expect(within(heavy).queryByRole('button', { name: /Pause subscription/ })).toBeNull();
    expect(within(heavy).getByText(/Annual plans are paid for the year ahead/)).toBeDefined();
    expect(
      within(active).getByRole('button', { name: 'Pause subscription for Top gate' }),
    ).toBeDefined();

    const paused = await cardOf('Grain store');
    expect(within(paused).getByText('Paused')).toBeDefined();
    expect(paused.textContent).toContain('Streaming plan paused until 1 May 2026.');
    expect(paused.textContent).toContain(
      'can be restarted at the start of any month: get in touch before the 25th',
    );
    expect(
      within(paused).getByRole('link', { name: 'Contact support about Grain store' }),
    ).toHaveProperty('href', 'mailto:support@farmcam.test');

    const scheduled = await cardOf('Holiday cottage');
    expect(within(scheduled).getByText('Pause scheduled')).toBeDefined();
    expect(scheduled.textContent).toContain('Pause scheduled from 1 April 2026 until 1 June 2026.');

    const overdueText =
      'Overdue payments on account. Please pay now or your Streaming Plan will be terminated.';
    for (const [name, chip] of [
      ['Fuel tank', 'Past due'],
      ['Bottom field', 'Overdue'],
    ]) {
      const card = await cardOf(name!);
      expect(within(card).getByText(chip!)).toBeDefined();
      expect(within(card).getByText(overdueText)).toBeDefined();
    }

    const terminated = await cardOf('Old dairy');
    expect(within(terminated).getByText('Terminated')).toBeDefined();
    expect(
      within(terminated).getByText(/^Streaming plan cancelled and SIM deactivated\./),
    ).toBeDefined();
    // A switched-off SIM has no plan to manage (decision 111): when it went off, and a new SIM
    // instead; its invoices stay. A plan that no longer bills says no interval.
    expect(terminated.textContent).toContain('The SIM was switched off on 1 January 2026.');
    expect(within(terminated).queryByRole('link', { name: /Manage plan/ })).toBeNull();
    expect(
      within(terminated).getByRole('link', { name: 'Activate a new SIM for Old dairy' }),
    ).toBeDefined();
    expect(within(terminated).getByRole('link', { name: 'Invoices for Old dairy' })).toBeDefined();
    expect(within(terminated).queryByText(/Billed/)).toBeNull();

    // A running plan on a terminated SIM (not a docs/requirements.md#states state): Attention, support, no livestream.
    const oldBarn = await cardOf('Old barn');
    expect(within(oldBarn).getByText('Attention')).toBeDefined();
    expect(oldBarn.textContent).toContain('switched off by the network');
    expect(
      within(oldBarn).getByRole('link', { name: 'Contact support about Old barn' }),
    ).toBeDefined();
    expect(within(oldBarn).queryByRole('link', { name: /Setup Livestreaming/ })).toBeNull();
    expect(within(oldBarn).queryByText(/Billed/)).toBeNull();

    const unsubscribed = await cardOf('Machinery shed');
    expect(within(unsubscribed).getByText('Attention')).toBeDefined();
    expect(
      within(unsubscribed).getByText(
        'No active subscription found, please renew immediately or your Streaming Plan will be terminated.',
      ),
    ).toBeDefined();
    expect(
      within(unsubscribed).getByRole('link', { name: 'Renew subscription for Machinery shed' }),
    ).toHaveProperty(
      'pathname',
      `/pricing/${cameras.noSubscription!.SIM_ICCID}/${cameras.noSubscription!.STRIPE_CUSTOMER_ID}`,
    );
    expect(within(unsubscribed).queryByText(/Billed/)).toBeNull();
    expect(
      within(unsubscribed).getByRole('link', { name: 'Manage plan for Machinery shed' }),
    ).toBeDefined();

    const noPlan = await cardOf(`Camera ${cameras.noPlan!.SIM_ICCID.slice(-4)}`);
    expect(within(noPlan).getByText('No Plan')).toBeDefined();
    expect(within(noPlan).queryByText(/Billed/)).toBeNull();
    expect(within(noPlan).queryByRole('link', { name: /Invoices/ })).toBeNull();

    const barred = await cardOf('Barred one');
    expect(within(barred).getByText('Barred')).toBeDefined();
    expect(barred.textContent).toContain('The network provider has disabled this SIM.');
  });

  it('builds the cards of the first screen first, then the rest, and marks the grid done once', async () => {
    authStore.signIn('token');
    const cameras = Array.from({ length: firstScreenCards + 4 }, (_, index) =>
      buildCamera({
        SIM_ICCID: `89441100000000020${String(index).padStart(2, '0')}`,
        nicknameInDatabase: `Camera ${index + 1}`,
      }),
    );
    mockPortalApi(buildPlans(cameras));
    performance.clearMarks(cardsRenderedMark);
    let cardsInFirstRender: number | null = null;
    const seen = new MutationObserver(() => {
      const count = document.querySelectorAll('article').length;
      if (cardsInFirstRender === null && count > 0) cardsInFirstRender = count;
    });
    seen.observe(document.body, { childList: true, subtree: true });
    renderRoute('/dashboard');
    await cardOf(`Camera ${cameras.length}`);
    seen.disconnect();
    expect(cardsInFirstRender).toBe(firstScreenCards);
    expect(screen.getAllByRole('article')).toHaveLength(cameras.length);
    const marked = () =>
      (performance.getEntriesByName(cardsRenderedMark) as PerformanceMark[]).map(
        (mark) => (mark.detail as { cards: number }).cards,
      );
    await waitFor(() => expect(marked()).toEqual([cameras.length]));
  });

  it("follows a card's links inside the app", async () => {
    authStore.signIn('token');
    const camera = buildCamera({ nicknameInDatabase: 'Top gate' });
    mockPortalApi(buildPlans([camera]));
    const { router } = renderRoute('/dashboard');
    await userEvent.click(await screen.findByRole('link', { name: 'More info for Top gate' }));
    await vi.waitFor(() =>
      expect(router.state.location.pathname).toBe(`/camera/${camera.SIM_ICCID}`),
    );
  });

  it('points a customer without cameras to /activate', async () => {
    authStore.signIn('token');
    mockPortalApi(buildPlans([], 100));
    renderRoute('/dashboard');
    expect(await screen.findByText('You have no cameras yet.')).toBeDefined();
    expect(screen.getByRole('link', { name: 'Activate a camera' })).toHaveProperty(
      'pathname',
      '/activate',
    );
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('explains where the activation code is', async () => {
    authStore.signIn('token');
    mockPortalApi(buildPlans([], 100));
    renderRoute('/dashboard');
    await userEvent.click(
      await screen.findByRole('button', { name: 'Where do I find my activation code?' }),
    );
    const dialog = screen.getByRole('dialog', { name: 'Where to find your activation code' });
    expect(within(dialog).getByRole('heading', { name: 'Virtual SIM' })).toBeDefined();
    expect(within(dialog).getByRole('heading', { name: 'Physical SIM' })).toBeDefined();
    expect(within(dialog).getByRole('link', { name: /APN settings/ })).toHaveProperty(
      'target',
      '_blank',
    );
  });

  it('shows an error with a way to try again', async () => {
    authStore.signIn('token');
    let isFailing = true;
    mockPortalApi(() =>
      isFailing
        ? jsonResponse(404, { code: 'NOT_FOUND', message: 'Something is missing' })
        : buildPlans([buildCamera({ nicknameInDatabase: 'Back again' })]),
    );
    renderRoute('/dashboard');
    expect((await screen.findByRole('alert')).textContent).toBe('Something is missing');
    isFailing = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await cardOf('Back again')).toBeDefined();
  });

  describe('renaming a camera', () => {
    it('keeps Update disabled while the name is empty or unchanged', async () => {
      authStore.signIn('token');
      mockPortalApi(buildPlans([buildCamera({ nicknameInDatabase: 'Top gate' })]));
      renderRoute('/dashboard');
      await userEvent.click(await screen.findByRole('button', { name: 'Edit name of Top gate' }));
      const dialog = screen.getByRole('dialog', { name: 'Update camera name' });
      const field = within(dialog).getByRole('textbox', { name: 'Camera name' });
      const update = within(dialog).getByRole('button', { name: 'Update' });
      // The name field has the focus, not the dialog's Close button.
      expect(document.activeElement).toBe(field);
      expect((field as HTMLInputElement).value).toBe('Top gate');
      expect(update.hasAttribute('disabled')).toBe(true);
      await userEvent.clear(field);
      await userEvent.type(field, '   ');
      expect(update.hasAttribute('disabled')).toBe(true);
      await userEvent.clear(field);
      await userEvent.type(field, ' Top gate ');
      expect(update.hasAttribute('disabled')).toBe(true);
      await userEvent.type(field, '2');
      expect(update.hasAttribute('disabled')).toBe(false);
      // Never cut silently at 40: the count says how many are left (decision 115).
      expect(field.hasAttribute('maxlength')).toBe(false);
    });

    it('saves, says so, and updates the cached list without reloading it', async () => {
      authStore.signIn('token');
      vi.spyOn(toast, 'success').mockImplementation(() => undefined);
      const camera = buildCamera({ nicknameInDatabase: 'Top gate' });
      const fetchMock = mockPortalApi(buildPlans([camera]));
      renderRoute('/dashboard');
      await userEvent.click(await screen.findByRole('button', { name: 'Edit name of Top gate' }));
      const loadsBefore = plansCalls(fetchMock);
      const dialog = screen.getByRole('dialog', { name: 'Update camera name' });
      const field = within(dialog).getByRole('textbox', { name: 'Camera name' });
      await userEvent.clear(field);
      await userEvent.type(field, '  North paddock {Enter}');

      expect(await cardOf('North paddock')).toBeDefined();
      expect(toast.success).toHaveBeenCalledWith('Camera name updated successfully');
      expect((dialog as HTMLDialogElement).open).toBe(false);
      const rename = fetchMock.mock.calls.find(([url]) => String(url).includes('update-nickname'));
      expect(JSON.parse(String(rename?.[1]?.body))).toEqual({
        simIccid: camera.SIM_ICCID,
        nickname: 'North paddock',
      });
      expect(plansCalls(fetchMock)).toBe(loadsBefore);
      expect(
        queryClient.getQueryData<PlansResponse>(plansQueryKey)?.cameras[0]?.nicknameInDatabase,
      ).toBe('North paddock');
    });

    it('says when it failed and keeps the dialog open with the reason', async () => {
      authStore.signIn('token');
      vi.spyOn(toast, 'error').mockImplementation(() => undefined);
      mockFetch((url) => {
        if (url.pathname === '/api/auth/user-data') return jsonResponse(200, { data: customer });
        if (url.pathname === '/api/cameras/plansV2') {
          return jsonResponse(200, buildPlans([buildCamera({ nicknameInDatabase: 'Top gate' })]));
        }
        return jsonResponse(400, {
          code: 'VALIDATION_FAILED',
          message: 'nickname: A camera name cannot contain control characters',
        });
      });
      renderRoute('/dashboard');
      await userEvent.click(await screen.findByRole('button', { name: 'Edit name of Top gate' }));
      const dialog = screen.getByRole('dialog', { name: 'Update camera name' });
      await userEvent.type(within(dialog).getByRole('textbox', { name: 'Camera name' }), 'x');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Update' }));
      await vi.waitFor(() =>
        expect(toast.error).toHaveBeenCalledWith('Failed to update camera name'),
      );
      expect(
        await within(dialog).findByText(
          'nickname: A camera name cannot contain control characters',
        ),
      ).toBeDefined();
      expect((dialog as HTMLDialogElement).open).toBe(true);
    });
  });

  describe('?refresh=true', () => {
    it('reloads with a loading state, retries an empty list after 1 s, then settles 0.5 s later', async () => {
      vi.useFakeTimers({ shouldAdvanceTime: true });
      try {
        authStore.signIn('token');
        const start = Date.now();
        const answers: { at: number; cameras: number }[] = [];
        mockPortalApi(() => {
          // A new subscription shows up a moment after the first reload.
          const at = Date.now() - start;
          const cameras = at >= 1000 ? [buildCamera({ nicknameInDatabase: 'New camera' })] : [];
          answers.push({ at, cameras: cameras.length });
          return buildPlans(cameras);
        });
        const { router } = renderRoute('/dashboard?refresh=true');
        let navigatedAt: number | undefined;
        router.subscribe((state) => {
          if (state.location.search === '') navigatedAt ??= Date.now() - start;
        });
        expect(await screen.findByText('Refreshing your cameras…')).toBeDefined();

        await act(() => vi.advanceTimersByTimeAsync(800));
        expect(answers.length).toBeGreaterThan(0);
        expect(answers.every((answer) => answer.cameras === 0)).toBe(true);
        expect(router.state.location.search).toBe('?refresh=true');

        await act(() => vi.advanceTimersByTimeAsync(1500));
        await vi.waitFor(() => expect(navigatedAt).toBeDefined());
        const firstEmpty = answers.find((answer) => answer.cameras === 0)!;
        const retry = answers.find((answer) => answer.cameras > 0)!;
        expect(retry.at - firstEmpty.at).toBeGreaterThanOrEqual(1000);
        expect(navigatedAt! - retry.at).toBeGreaterThanOrEqual(500);
        expect(router.state.location.pathname).toBe('/dashboard');
        expect(router.state.historyAction).toBe('REPLACE');
        expect(await cardOf('New camera')).toBeDefined();
      } finally {
        vi.useRealTimers();
      }
    });

    it('does not retry a list that has cameras', async () => {
      vi.useFakeTimers({ shouldAdvanceTime: true });
      try {
        authStore.signIn('token');
        const fetchMock = mockPortalApi(buildPlans([buildCamera({ nicknameInDatabase: 'Cam' })]));
        const { router } = renderRoute('/dashboard?refresh=true');
        await vi.waitFor(() => expect(plansCalls(fetchMock)).toBeGreaterThanOrEqual(1));
        const calls = plansCalls(fetchMock);
        await act(() => vi.advanceTimersByTimeAsync(500));
        await vi.waitFor(() => expect(router.state.location.search).toBe(''));
        expect(plansCalls(fetchMock)).toBe(calls);
      } finally {
        vi.useRealTimers();
      }
    });
  });
});
