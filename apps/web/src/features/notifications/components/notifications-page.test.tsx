import type { NotificationSettingsResponse } from '@farmcam/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, memberAccess, mockFetch, renderRoute } from '../../../test/test-utils.tsx';

const viewer = {
  email: 'vet@example.com',
  role: 'customer',
  customerId: 'c1',
  impersonation: null,
  access: memberAccess('viewer'),
};

function settings(overrides: Partial<NotificationSettingsResponse> = {}) {
  return {
    choices: [
      {
        kind: 'camera-silence',
        title: 'Camera silent, and back again',
        description: 'A camera has sent no data and no report for the hours set on it.',
        isUrgentByDefault: true,
        email: false,
        push: false,
        sms: false,
        overridesQuietHours: true,
      },
    ],
    quietHours: null,
    phone: null,
    pendingPhone: null,
    push: { isAvailable: true, publicKey: 'BPublicKey', devices: [] },
    sms: { isAvailable: true, dailyLimit: 10, sentToday: 0 },
    recentFailures: [],
    cameras: [{ iccid: '8944000000000000001', name: 'Top gate' }],
    canReceiveBillingAlerts: false,
    ...overrides,
  } satisfies NotificationSettingsResponse;
}

/** Answers the frame's questions and the settings with `answer`; records what was sent. */
function serve(answer: (call: number) => Response | Promise<Response>) {
  authStore.signIn('viewer-token');
  let calls = 0;
  const sent: { method: string; body: unknown }[] = [];
  mockFetch((url, init) => {
    if (url.pathname === '/api/auth/user-data') return jsonResponse(200, { data: viewer });
    if (url.pathname === '/api/cameras/plansV2') {
      return jsonResponse(200, { overallSummary: { overallPercentageLeft: 100 }, cameras: [] });
    }
    if (url.pathname === '/api/notifications/settings') {
      if (init.method === 'PUT') {
        const body = JSON.parse(String(init.body)) as unknown;
        sent.push({ method: 'PUT', body });
        return jsonResponse(200, settings());
      }
      calls += 1;
      return answer(calls);
    }
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
  });
  return sent;
}

describe('Notifications page', () => {
  it('says it is loading while the settings are on their way', async () => {
    serve(() => new Promise<Response>(() => {}));
    renderRoute('/notifications');
    expect(await screen.findByText('Loading your notifications…')).toBeDefined();
  });

  it('says why it could not load once its retries are spent, and Try again asks again', async () => {
    // A 5xx is asked twice more by itself (lib/query-client) before the page gives up.
    serve((call) =>
      call <= 3
        ? jsonResponse(503, { code: 'DATABASE_UNAVAILABLE', message: 'Unavailable' })
        : jsonResponse(200, settings()),
    );
    renderRoute('/notifications');
    const tryAgain = await screen.findByRole('button', { name: 'Try again' }, { timeout: 8000 });
    // A server's trouble is said as the app says every 5xx (lib/api-client).
    expect(screen.getByText('Server error, please try again later').getAttribute('role')).toBe(
      'alert',
    );
    await userEvent.click(tryAgain);
    expect(await screen.findByRole('form', { name: 'How alerts reach you' })).toBeDefined();
  }, 15_000);

  it('names each alert as a group of labelled channels, and saves what is ticked', async () => {
    const sent = serve(() => jsonResponse(200, settings()));
    renderRoute('/notifications');
    const silence = await screen.findByRole('group', { name: 'Camera silent, and back again' });
    const push = within(silence).getByRole('checkbox', { name: 'Push' });
    // The kind's sentence describes each of its channels to a screen reader.
    const describedBy = push.getAttribute('aria-describedby')!;
    expect(document.getElementById(describedBy)?.textContent).toBe(
      'A camera has sent no data and no report for the hours set on it.',
    );
    expect(
      (
        within(silence).getByRole('checkbox', {
          name: /^Urgent: push and text during quiet hours/,
        }) as HTMLInputElement
      ).checked,
    ).toBe(true);
    await userEvent.click(push);
    await userEvent.click(within(silence).getByRole('checkbox', { name: 'Text' }));
    await userEvent.click(screen.getByRole('button', { name: 'Save notifications' }));
    expect(await screen.findByText('Notifications saved')).toBeDefined();
    expect(sent).toEqual([
      {
        method: 'PUT',
        body: {
          choices: [
            {
              kind: 'camera-silence',
              email: false,
              push: true,
              sms: true,
              overridesQuietHours: true,
            },
          ],
          quietHours: null,
        },
      },
    ]);
  });

  it('says plainly what is not there: push and texts switched off, no cameras, alerts that failed', async () => {
    serve(() =>
      jsonResponse(
        200,
        settings({
          push: { isAvailable: false, publicKey: null, devices: [] },
          sms: { isAvailable: false, dailyLimit: 10, sentToday: 0 },
          cameras: [],
          recentFailures: [
            {
              at: '2026-07-01T14:05:00.000Z',
              channel: 'sms',
              title: 'Top gate has gone silent',
              reason: 'The phone was switched off or out of signal for too long.',
            },
          ],
        }),
      ),
    );
    renderRoute('/notifications');
    expect(
      await screen.findByText('Push notifications are not switched on for this portal yet.'),
    ).toBeDefined();
    expect(
      screen.getByText('Text messages are not switched on for this portal yet.'),
    ).toBeDefined();
    expect(screen.getByText('You have no cameras yet.')).toBeDefined();
    const failure = screen.getByText('Top gate has gone silent').closest('li');
    expect(failure?.textContent).toMatch(
      /^Top gate has gone silent \(text, .+\): The phone was switched off or out of signal for too long\.$/,
    );
  });
});
