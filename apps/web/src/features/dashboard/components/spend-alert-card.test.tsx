import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, mockFetch } from '../../../test/test-utils.tsx';
import { SpendAlertCard } from './spend-alert-card.tsx';

const answer = {
  amountMinor: null,
  currency: 'GBP',
  month: '2026-03',
  raisedMinor: 1200,
  upcomingMinor: 3500,
  expectedMinor: 4700,
  alertSentAt: null,
};

const renderCard = () =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SpendAlertCard />
    </QueryClientProvider>,
  );

afterEach(() => vi.unstubAllGlobals());

describe('the monthly spend alert card (decision 095)', () => {
  it("says what this month's invoices come to and saves an amount in pounds as pence", async () => {
    authStore.signIn('token');
    const puts: unknown[] = [];
    mockFetch((url, init) => {
      if (url.pathname !== '/api/account/spend-alert') return jsonResponse(404, {});
      if (init.method === 'PUT') {
        const body = JSON.parse(String(init.body)) as { amountMinor: number };
        puts.push(body);
        return jsonResponse(200, { ...answer, amountMinor: body.amountMinor });
      }
      return jsonResponse(200, answer);
    });
    renderCard();
    expect(
      await screen.findByText(/£12\.00 already invoiced and £35\.00 in renewals/),
    ).toBeTruthy();
    expect(screen.getByText('£47.00')).toBeTruthy();
    const field = screen.getByLabelText("E-mail me when this month's bill reaches (£)");
    await userEvent.type(field, '150.50');
    await userEvent.click(screen.getByRole('button', { name: 'Save spend alert' }));
    await waitFor(() => expect(puts).toEqual([{ amountMinor: 15050 }]));
  });

  it('refuses what is not an amount with a sentence, sending nothing', async () => {
    authStore.signIn('token');
    const fetchMock = mockFetch(() => jsonResponse(200, answer));
    renderCard();
    const field = await screen.findByLabelText("E-mail me when this month's bill reaches (£)");
    await userEvent.type(field, 'lots');
    await userEvent.click(screen.getByRole('button', { name: 'Save spend alert' }));
    expect(await screen.findByText(/Enter an amount in pounds, at least £1/)).toBeTruthy();
    expect(fetchMock.mock.calls.filter(([, init]) => init?.method === 'PUT')).toHaveLength(0);
  });
});
