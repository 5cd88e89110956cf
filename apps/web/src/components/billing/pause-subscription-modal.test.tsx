import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { serverErrorMessage } from '../../lib/api-client.ts';
import { authStore } from '../../lib/auth-store.ts';
import { queryClient } from '../../lib/query-client.ts';
import { toast } from '../../lib/toast.tsx';
import { jsonResponse, mockFetch } from '../../test/test-utils.tsx';
import { PauseSubscriptionModal } from './pause-subscription-modal.tsx';

describe('Pause subscription modal', () => {
  it('keeps Pause disabled until a date is chosen, then confirms with the danger button', async () => {
    authStore.signIn('customer-token');
    const fetchMock = mockFetch((url) => {
      if (url.pathname === '/api/pause/pause-dates/cus_1') {
        return jsonResponse(200, {
          pause_options: {
            message: 'Your plan will be paused from 1 April 2026.',
            pause_from: '2026-04-01',
            resume_dates: ['2026-05-01', '2026-06-01'],
            customer_id: 'cus_1',
            current_pause: null,
          },
        });
      }
      if (url.pathname === '/api/pause/pause-subscription') {
        return jsonResponse(200, {
          success: true,
          message: 'ok',
          pause: { start_date: '2026-04-01', end_date: '2026-06-01' },
        });
      }
      return jsonResponse(404, {});
    });
    const onPaused = vi.fn();
    const onClose = vi.fn();
    render(
      <QueryClientProvider client={queryClient}>
        <PauseSubscriptionModal
          billingCustomerId="cus_1"
          isOpen
          onClose={onClose}
          onPaused={onPaused}
        />
      </QueryClientProvider>,
    );
    const user = userEvent.setup();
    const pause = await screen.findByRole('button', { name: 'Pause' });
    expect((pause as HTMLButtonElement).disabled).toBe(true);
    await user.click(screen.getByRole('radio', { name: '1 June 2026' }));
    expect((pause as HTMLButtonElement).disabled).toBe(false);
    await user.click(pause);
    expect(screen.getByText(/Pause this plan from/)).toBeDefined();
    await user.click(screen.getByRole('button', { name: 'Yes, pause subscription' }));
    await vi.waitFor(() => expect(onPaused).toHaveBeenCalled());
    expect(onClose).toHaveBeenCalled();
    const call = fetchMock.mock.calls.find(([url]) =>
      String(url).endsWith('/api/pause/pause-subscription'),
    );
    expect(JSON.parse(String(call![1]!.body))).toEqual({
      customer_id: 'cus_1',
      resume_date: '2026-06-01',
    });
  });

  it('is titled Pause subscription with the camera named in the body', async () => {
    authStore.signIn('customer-token');
    mockFetch(() =>
      jsonResponse(200, {
        pause_options: {
          message: 'Your plan will be paused from 1 April 2026.',
          pause_from: '2026-04-01',
          resume_dates: ['2026-05-01'],
          customer_id: 'cus_1',
          current_pause: null,
        },
      }),
    );
    render(
      <QueryClientProvider client={queryClient}>
        <PauseSubscriptionModal
          billingCustomerId="cus_1"
          cameraName="Top gate"
          isOpen
          onClose={() => {}}
          onPaused={() => {}}
        />
      </QueryClientProvider>,
    );
    expect(screen.getByRole('dialog', { name: 'Pause subscription' })).toBeDefined();
    expect(await screen.findByText('Top gate')).toBeDefined();
  });

  it('changing the date of a pause not started yet says it is scheduled and preselects its date', async () => {
    authStore.signIn('customer-token');
    queryClient.clear();
    mockFetch(() =>
      jsonResponse(200, {
        pause_options: {
          message: 'Your plan will be paused from 1 April 2026.',
          pause_from: '2026-04-01',
          resume_dates: ['2026-05-01', '2026-06-01', '2026-07-01'],
          customer_id: 'cus_2',
          current_pause: { start_date: '2026-04-01', end_date: '2026-06-01', state: 'scheduled' },
        },
      }),
    );
    render(
      <QueryClientProvider client={queryClient}>
        <PauseSubscriptionModal
          billingCustomerId="cus_2"
          isOpen
          onClose={() => {}}
          onPaused={() => {}}
        />
      </QueryClientProvider>,
    );
    expect(
      await screen.findByText('Pause scheduled from 1 April 2026 until 1 June 2026.'),
    ).toBeDefined();
    expect(screen.queryByText(/Currently paused/)).toBeNull();
    const june = screen.getByRole('radio', { name: '1 June 2026' }) as HTMLInputElement;
    expect(june.checked).toBe(true);
    expect((screen.getByRole('button', { name: 'Pause' }) as HTMLButtonElement).disabled).toBe(
      false,
    );
    await userEvent.setup().click(screen.getByRole('radio', { name: '1 July 2026' }));
    expect(june.checked).toBe(false);
  });

  it('shows one toast for a server failure, not the client one and its own stacked', async () => {
    authStore.signIn('customer-token');
    queryClient.clear();
    const errorToast = vi.spyOn(toast, 'error').mockImplementation(() => undefined);
    mockFetch((url) =>
      url.pathname === '/api/pause/pause-subscription'
        ? jsonResponse(500, { code: 'INTERNAL', message: 'Something went wrong on our side.' })
        : jsonResponse(200, {
            pause_options: {
              message: 'Your plan will be paused from 1 April 2026.',
              pause_from: '2026-04-01',
              resume_dates: ['2026-05-01'],
              customer_id: 'cus_3',
              current_pause: null,
            },
          }),
    );
    const onClose = vi.fn();
    render(
      <QueryClientProvider client={queryClient}>
        <PauseSubscriptionModal
          billingCustomerId="cus_3"
          isOpen
          onClose={onClose}
          onPaused={() => {}}
        />
      </QueryClientProvider>,
    );
    const user = userEvent.setup();
    await user.click(await screen.findByRole('radio', { name: '1 May 2026' }));
    await user.click(screen.getByRole('button', { name: 'Pause' }));
    await user.click(screen.getByRole('button', { name: 'Yes, pause subscription' }));
    await vi.waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(errorToast.mock.calls).toEqual([[serverErrorMessage, { toastId: 'server-error' }]]);
    errorToast.mockRestore();
  });
});
