import type { LiveViewStatusResponse } from '@farmcam/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from '../../../lib/router/index.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, mockFetch } from '../../../test/test-utils.tsx';
import { LiveViewSection } from './live-view-section.tsx';

const iccid = '8944110000000001030';

const status = (overrides: Partial<LiveViewStatusResponse> = {}): LiveViewStatusResponse => ({
  iccid,
  canWatch: true,
  reason: null,
  action: null,
  isEnabled: true,
  canChangeSetting: true,
  viewersNow: 0,
  allowance: {
    hoursIncluded: 120,
    secondsUsed: 3600,
    secondsLeft: 119 * 3600,
    dataAllowanceBytes: 50e9,
    dataUsedBytes: 30e9,
    dataLeftBytes: 20e9,
  },
  still: null,
  ...overrides,
});

function renderSection(handler: (url: URL, init?: RequestInit) => Response) {
  authStore.signIn('token');
  const calls: { url: URL; init?: RequestInit }[] = [];
  mockFetch((url, init) => {
    calls.push({ url, init });
    return handler(url, init);
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <LiveViewSection iccid={iccid} cameraName="Farmyard" />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return calls;
}

describe('Watch live', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('offers Watch live with what is left of the Hours and the data', async () => {
    renderSection(() => jsonResponse(200, status({ viewersNow: 2 })));
    expect(
      (await screen.findByRole<HTMLButtonElement>('button', { name: 'Watch live' })).disabled,
    ).toBe(false);
    expect(screen.getByText('119 h of 120 h')).toBeTruthy();
    expect(screen.getByText('20.0 GB')).toBeTruthy();
    expect(screen.getByText('2 people are watching now')).toBeTruthy();
    expect(screen.getByLabelText<HTMLInputElement>('Live view on for this camera').checked).toBe(
      true,
    );
  });

  it("says why not and what to do, in the server's words", async () => {
    renderSection(() =>
      jsonResponse(
        200,
        status({
          canWatch: false,
          reason:
            'This camera is on Light Streaming, which has no hours of live view. Heavy Streaming includes 120 hours of live view a month.',
          action: { label: 'Change to Heavy Streaming', path: '/subscription/cus_1' },
          canChangeSetting: false,
        }),
      ),
    );
    expect(await screen.findByText(/Heavy Streaming includes 120 hours/)).toBeTruthy();
    expect(
      screen.getByRole('link', { name: 'Change to Heavy Streaming' }).getAttribute('href'),
    ).toBe('/subscription/cus_1');
    expect(screen.queryByRole('button', { name: 'Watch live' })).toBeNull();
    expect(screen.queryByLabelText('Live view on for this camera')).toBeNull();
  });

  it('shows a refusal to start, and the owner turns live view off', async () => {
    const user = userEvent.setup();
    const calls = renderSection((url) => {
      if (url.pathname.endsWith('/watch')) {
        return jsonResponse(503, {
          code: 'PROVIDER_UNAVAILABLE',
          message: 'Live view is busy: every place for a live camera is taken just now.',
        });
      }
      if (url.pathname.endsWith('/setting')) return jsonResponse(200, { isEnabled: false });
      return jsonResponse(200, status());
    });
    await user.click(await screen.findByRole('button', { name: 'Watch live' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/Live view is busy/);
    await user.click(screen.getByLabelText('Live view on for this camera'));
    const setting = calls.find((call) => call.url.pathname.endsWith('/setting'));
    expect(setting?.init?.method).toBe('PUT');
    expect(JSON.parse(String(setting?.init?.body))).toEqual({ isEnabled: false });
  });
});
