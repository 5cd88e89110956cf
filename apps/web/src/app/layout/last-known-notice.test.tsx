import { onlineManager, QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api-client.ts';
import { pageStartedAt } from '../../lib/persisted-queries.ts';
import { LastKnownNotice, lastKnownText, updatedAgoText } from './last-known-notice.tsx';

const minute = 60_000;

describe('what the notice says', () => {
  const now = Date.parse('2026-11-27T14:30:00Z');

  it('says how long ago an answer kept on the device was fetched', () => {
    expect(updatedAgoText(now - 5 * minute, now)).toBe('Updated 5 minutes ago');
    expect(updatedAgoText(now - 20_000, now)).toBe('Updated just now');
    expect(updatedAgoText(now - 125 * minute, now)).toBe('Updated 2 hours 5 minutes ago');
  });

  it('says plainly when there is no connection, with the time in the UK', () => {
    // 14:02 UTC in November is 14:02 in London; in July it is 15:02.
    expect(
      lastKnownText({ kind: 'offline', updatedAt: Date.parse('2026-11-27T14:02:00Z') }, now),
    ).toBe('You are offline: showing what we knew at 14:02.');
    const july = Date.parse('2026-07-01T14:30:00Z');
    expect(
      lastKnownText({ kind: 'offline', updatedAt: Date.parse('2026-07-01T14:02:00Z') }, july),
    ).toBe('You are offline: showing what we knew at 15:02.');
    expect(
      lastKnownText({ kind: 'offline', updatedAt: Date.parse('2026-11-25T09:15:00Z') }, now),
    ).toBe('You are offline: showing what we knew on 25 Nov 2026, 09:15.');
    expect(lastKnownText({ kind: 'offline', updatedAt: null }, now)).toBe(
      'You are offline: this page loads when the signal is back.',
    );
    expect(lastKnownText({ kind: 'current' }, now)).toBeNull();
  });
});

describe('LastKnownNotice', () => {
  afterEach(() => onlineManager.setOnline(true));

  /** The camera list on show, its answer kept from `updatedAt`, its refresh as `fetch` does. */
  function renderWithPlans(updatedAt: number, fetch: () => Promise<unknown>) {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    client.setQueryData(['cameras', 'plans'], { cameras: [] }, { updatedAt });
    function Page() {
      useQuery({ queryKey: ['cameras', 'plans'], queryFn: fetch, staleTime: 0 });
      return <LastKnownNotice />;
    }
    render(
      <QueryClientProvider client={client}>
        <Page />
      </QueryClientProvider>,
    );
  }

  it('shows the age of what the device kept while the network answers, then nothing', async () => {
    let answer: (value: unknown) => void = () => undefined;
    renderWithPlans(pageStartedAt - 5 * minute, () => new Promise((resolve) => (answer = resolve)));
    expect(await screen.findByText('Updated 5 minutes ago')).toBeDefined();
    answer({ cameras: [] });
    await expect.poll(() => screen.getByRole('status', { hidden: true }).hidden).toBe(true);
  });

  it('says the page shows what it knew when the network does not answer', async () => {
    const keptAt = pageStartedAt - 5 * minute;
    renderWithPlans(keptAt, () =>
      Promise.reject(new ApiError('FETCH_ERROR', undefined, false, 'no connection')),
    );
    expect(
      await screen.findByText(/^You are offline: showing what we knew (at|on) .+\.$/),
    ).toBeDefined();
  });

  it('says so at once when the device knows it is offline', async () => {
    onlineManager.setOnline(false);
    renderWithPlans(pageStartedAt - 5 * minute, () => Promise.resolve({ cameras: [] }));
    expect(await screen.findByText(/^You are offline: showing what we knew/)).toBeDefined();
  });
});
