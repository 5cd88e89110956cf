import type { TimelapseDay, TimelapsesResponse } from '@farmcam/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, mockFetch } from '../../../test/test-utils.tsx';
import { DailyTimelapseSection, emptyTimelapseText } from './daily-timelapse-section.tsx';

const iccid = '8944110000001031005';

const readyDay = (day: string, sizeBytes = 412_000): TimelapseDay => ({
  day,
  status: 'ready',
  clipCount: 10,
  frameCount: 20,
  durationMs: 5000,
  sizeBytes,
  videoUrl: `https://portal.test/media/clips/timelapses/${day}.mp4?expires=1&signature=s`,
  downloadUrl: `https://portal.test/media/clips/timelapses/${day}.mp4?expires=1&download=Farmyard-${day}-timelapse.mp4&signature=d`,
  downloadName: `Farmyard-${day}-timelapse.mp4`,
  problem: null,
});

function renderSection(answer: TimelapsesResponse | Response) {
  authStore.signIn('token');
  mockFetch((url) =>
    url.pathname === `/api/cameras/timelapses/${iccid}`
      ? answer instanceof Response
        ? answer
        : jsonResponse(200, answer)
      : jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' }),
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <DailyTimelapseSection iccid={iccid} />
    </QueryClientProvider>,
  );
}

describe('Daily timelapse section', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('plays the latest day, lists every day with its download, and says it costs no data', async () => {
    const user = userEvent.setup();
    renderSection({
      hasLivestream: true,
      retentionDays: 30,
      timelapses: [
        readyDay('2026-11-23', 1_450_000),
        {
          ...readyDay('2026-11-22'),
          status: 'empty',
          videoUrl: null,
          downloadUrl: null,
          downloadName: null,
          clipCount: 0,
        },
        {
          ...readyDay('2026-11-21'),
          status: 'failed',
          videoUrl: null,
          downloadUrl: null,
          downloadName: null,
          problem: 'The timelapse for this day could not be made on our side.',
        },
        readyDay('2026-11-20'),
      ],
    });
    expect(await screen.findByRole('heading', { name: 'Daily timelapse' })).toBeDefined();
    expect(screen.getByText(/uses no extra mobile data/)).toBeDefined();
    expect(screen.getByText(/kept for 30 days/)).toBeDefined();
    const player = screen.getByLabelText<HTMLVideoElement>('Timelapse of 23 November 2026');
    expect(player.tagName).toBe('VIDEO');
    expect(player.controls).toBe(true);
    expect(player.hasAttribute('playsinline')).toBe(true);
    expect(player.getAttribute('src')).toContain('2026-11-23.mp4');

    const days = within(screen.getByRole('list'));
    expect(days.getAllByRole('listitem')).toHaveLength(4);
    const download = days.getByRole('link', {
      name: 'Download the timelapse of 23 November 2026 (1.5 MB)',
    });
    expect(download.getAttribute('href')).toContain('download=Farmyard-2026-11-23-timelapse.mp4');
    expect(download.getAttribute('download')).toBe('Farmyard-2026-11-23-timelapse.mp4');
    expect(days.getByText('No clips recorded that day')).toBeDefined();
    expect(
      days.getByText('The timelapse for this day could not be made on our side.'),
    ).toBeDefined();

    // Another day plays in the same player.
    await user.click(days.getByRole('button', { name: 'Watch the timelapse of 20 November 2026' }));
    expect(
      screen.getByLabelText<HTMLVideoElement>('Timelapse of 20 November 2026').getAttribute('src'),
    ).toContain('2026-11-20.mp4');
  });

  it('a camera with a livestream but no timelapse yet says when they appear', async () => {
    renderSection({ hasLivestream: true, retentionDays: 30, timelapses: [] });
    expect(await screen.findByText(emptyTimelapseText)).toBeDefined();
    expect(screen.queryByRole('list')).toBeNull();
  });

  it('a camera without a livestream shows nothing', async () => {
    const { container } = renderSection({
      hasLivestream: false,
      retentionDays: 30,
      timelapses: [],
    });
    await vi.waitFor(() => expect(vi.mocked(fetch)).toHaveBeenCalled());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(container.textContent).toBe('');
  });

  it('says when the list could not be loaded, with a retry', async () => {
    renderSection(
      jsonResponse(503, { code: 'PROVIDER_UNAVAILABLE', message: 'Please try again later.' }),
    );
    expect(await screen.findByRole('alert')).toBeDefined();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeDefined();
  });
});
