import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { authStore } from '../../lib/auth-store.ts';
import { queryClient } from '../../lib/query-client.ts';
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
});
