import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, requestHeaders } from '../test/test-utils.tsx';
import { cancelPause } from '../components/billing/api/cancel-pause.ts';
import { createPortalSession } from '../components/billing/api/create-portal-session.ts';
import { pauseSubscription } from '../components/billing/api/pause-subscription.ts';
import { createCustomerSecret } from '../features/activation/api/create-customer-secret.ts';
import { renewSubscription } from '../features/pricing/api/renew-subscription.ts';
import { changePlan } from '../features/subscription/api/change-plan.ts';
import {
  ApiError,
  apiRequest,
  errorMessage,
  idempotencyKeyFor,
  newIdempotencyKey,
  offlineActionMessage,
  onSessionExpired,
  requestTimeoutMs,
  serverErrorMessage,
  sessionExpiredMessage,
  unauthorizedMessage,
} from './api-client.ts';
import { authStore } from './auth-store.ts';
import { toast } from './toast.tsx';

async function failureOf(request: Promise<unknown>): Promise<ApiError> {
  const error = await request.then(
    () => expect.fail('the request should have failed'),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('apiRequest', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'error').mockImplementation(() => undefined);
  });

  it('sends JSON with the session token and resolves with the parsed answer', async () => {
    authStore.signIn('session-token');
    const fetchMock = mockFetch(() => jsonResponse(200, { ok: true }));

    await expect(
      apiRequest('/api/things', { method: 'POST', body: { name: 'Barn' }, query: { q: 'a b' } }),
    ).resolves.toEqual({ ok: true });

    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/things?q=a+b');
    expect(init?.method).toBe('POST');
    expect(init?.body).toBe('{"name":"Barn"}');
    expect(requestHeaders(init).get('Authorization')).toBe('Bearer session-token');
    expect(requestHeaders(init).get('Content-Type')).toBe('application/json');
  });

  it('sends no Authorization header when signed out or when told not to', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, {}));
    await apiRequest('/api/a');
    authStore.signIn('session-token');
    await apiRequest('/api/b', { token: null });

    for (const [, init] of fetchMock.mock.calls) {
      expect(requestHeaders(init).has('Authorization')).toBe(false);
    }
  });

  it('resolves with undefined for an empty answer such as 204', async () => {
    mockFetch(() => new Response(null, { status: 204 }));
    await expect(apiRequest('/api/auth/logout', { method: 'POST' })).resolves.toBeUndefined();
  });

  it('on 401 clears the session, reports it and tells the app to go to /', async () => {
    authStore.signIn('expired-token');
    const sessionExpired = vi.fn();
    const unsubscribe = onSessionExpired(sessionExpired);
    mockFetch(() => jsonResponse(401, { code: 'UNAUTHENTICATED', message: 'Session expired' }));

    const error = await failureOf(apiRequest('/api/cameras/plansV2'));
    unsubscribe();

    expect(error.status).toBe(401);
    expect(error.isReported).toBe(true);
    expect(authStore.getState().token).toBeNull();
    expect(sessionExpired).toHaveBeenCalledTimes(1);
    expect(toast.error).toHaveBeenCalledWith(sessionExpiredMessage, expect.anything());
  });

  it('leaves a 401 to calls that handle their own errors, such as the login calls', async () => {
    authStore.signIn('session-token');
    mockFetch(() => jsonResponse(401, { code: 'BAD_CREDENTIALS', message: 'Wrong password' }));

    const error = await failureOf(
      apiRequest('/api/auth/admin-login', { hasOwnErrorHandling: true }),
    );

    expect(error.isReported).toBe(false);
    expect(errorMessage(error)).toBe('Wrong password');
    expect(authStore.getState().token).toBe('session-token');
    expect(toast.error).not.toHaveBeenCalled();
  });

  it('ignores a 401 for a token that is no longer the session', async () => {
    authStore.signIn('old-token');
    let answer: (response: Response) => void = () => undefined;
    mockFetch(() => new Promise<Response>((resolve) => (answer = resolve)));

    const request = apiRequest('/api/cameras/plansV2');
    authStore.signIn('new-token');
    answer(jsonResponse(401, { code: 'UNAUTHENTICATED', message: 'Session expired' }));

    expect((await failureOf(request)).isReported).toBe(false);
    expect(authStore.getState().token).toBe('new-token');
  });

  it('does not say "Session expired" to someone who never signed in', async () => {
    authStore.clear();
    const sessionExpired = vi.fn();
    const unsubscribe = onSessionExpired(sessionExpired);
    mockFetch(() => jsonResponse(401, { code: 'UNAUTHENTICATED', message: 'Please sign in.' }));

    const error = await failureOf(apiRequest('/api/cameras/plansV2'));
    unsubscribe();

    expect(error.isReported).toBe(false);
    expect(errorMessage(error)).toBe('Please sign in.');
    expect(sessionExpired).not.toHaveBeenCalled();
    expect(toast.error).not.toHaveBeenCalled();
  });

  it.each([
    [403, unauthorizedMessage],
    [500, serverErrorMessage],
    [503, serverErrorMessage],
  ])('on %i shows "%s"', async (status, message) => {
    authStore.signIn('session-token');
    mockFetch(() => jsonResponse(status, { code: 'X', message: 'details' }));

    const error = await failureOf(apiRequest('/api/cameras/plansV2'));

    expect(error.status).toBe(status);
    expect(error.isReported).toBe(true);
    expect(toast.error).toHaveBeenCalledWith(message, expect.anything());
    expect(authStore.getState().token).toBe('session-token');
  });

  it('leaves other 4xx answers to the screen', async () => {
    mockFetch(() => jsonResponse(429, { code: 'RATE_LIMITED', message: 'Try again in 60 s' }));
    const error = await failureOf(apiRequest('/api/auth/request-login', { method: 'POST' }));
    expect(error.status).toBe(429);
    expect(error.isReported).toBe(false);
    expect(toast.error).not.toHaveBeenCalled();
  });

  it('classifies a failed connection as FETCH_ERROR', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))),
    );
    expect((await failureOf(apiRequest('/api/a'))).status).toBe('FETCH_ERROR');
  });

  it('classifies a successful answer that is not JSON as PARSING_ERROR', async () => {
    mockFetch(() => new Response('<html>proxy page</html>', { status: 200 }));
    expect((await failureOf(apiRequest('/api/a'))).status).toBe('PARSING_ERROR');
  });

  describe('time-out', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('gives up after 70 seconds with TIMEOUT_ERROR', async () => {
      mockFetch(
        (_url, init) =>
          new Promise<Response>((_resolve, reject) => {
            init.signal?.addEventListener('abort', () =>
              reject(new DOMException('Aborted', 'AbortError')),
            );
          }),
      );
      let isSettled = false;
      const failure = failureOf(apiRequest('/api/slow')).finally(() => (isSettled = true));

      await vi.advanceTimersByTimeAsync(requestTimeoutMs - 1);
      expect(isSettled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);

      expect(requestTimeoutMs).toBe(70_000);
      expect((await failure).status).toBe('TIMEOUT_ERROR');
    });
  });
});

describe('with no connection', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'error').mockImplementation(() => undefined);
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
  });

  it('says at once that an action needs a connection, sends it once and keeps nothing to send later', async () => {
    const fetchMock = mockFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    const error = await failureOf(
      apiRequest('/api/things', { method: 'POST', body: {}, idempotencyKey: 'web-1' }),
    );
    expect(error.status).toBe('FETCH_ERROR');
    // Told here, so the screen does not add its own toast (toastFailure).
    expect(error.isReported).toBe(true);
    expect(toast.error).toHaveBeenCalledWith(offlineActionMessage, { toastId: 'offline-action' });
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('leaves a read to the page, which shows what the device last knew', async () => {
    mockFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    const error = await failureOf(apiRequest('/api/things'));
    expect(error.isReported).toBe(false);
    expect(toast.error).not.toHaveBeenCalled();
  });
});

describe('errorMessage', () => {
  const failure = (data: unknown) => new ApiError(400, data, false, 'test');

  it("uses the answer's message when it is a string", () => {
    expect(errorMessage(failure({ code: 'X', message: 'That link has expired' }), 'fb')).toBe(
      'That link has expired',
    );
  });

  it('falls back to the given text, then to a generic one', () => {
    expect(errorMessage(failure({ message: 42 }), 'Fallback')).toBe('Fallback');
    expect(errorMessage(failure('plain text'))).toBe('An error occurred');
    expect(errorMessage(new Error('boom'))).toBe('An error occurred');
  });
});

describe('Idempotency-Key on billing writes', () => {
  const keyOf = (init: RequestInit | undefined) => requestHeaders(init).get('Idempotency-Key');

  it('sends the key it is given, and none without one', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, {}));
    await apiRequest('/api/pay', { method: 'POST', body: {}, idempotencyKey: 'web-key-0001' });
    await apiRequest('/api/read');
    expect(keyOf(fetchMock.mock.calls[0]![1])).toBe('web-key-0001');
    expect(keyOf(fetchMock.mock.calls[1]![1])).toBeNull();
  });

  it('gives one intent one key and a new intent a new key, in the server’s alphabet', () => {
    const intent = { customerId: 'cus_1', newPlanId: 'price_heavy' };
    const key = idempotencyKeyFor(intent);
    expect(idempotencyKeyFor(intent)).toBe(key);
    expect(idempotencyKeyFor({ ...intent })).not.toBe(key);
    expect(key).toMatch(/^[A-Za-z0-9_:.-]{8,200}$/);
    expect(newIdempotencyKey()).not.toBe(newIdempotencyKey());
  });

  it('sends a write that got no answer once more with the same key', async () => {
    let calls = 0;
    const fetchMock = mockFetch(() => {
      calls += 1;
      if (calls === 1) throw new TypeError('Failed to fetch');
      return jsonResponse(200, { success: true });
    });
    await expect(
      apiRequest('/api/subscriptions/change-plan', {
        method: 'POST',
        body: {},
        idempotencyKey: 'web-retry-0001',
      }),
    ).resolves.toEqual({ success: true });
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(fetchMock.mock.calls.map(([, init]) => keyOf(init))).toEqual([
      'web-retry-0001',
      'web-retry-0001',
    ]);
  });

  it('never repeats a write without a key, nor one the server answered', async () => {
    const unanswered = mockFetch(() => {
      throw new TypeError('Failed to fetch');
    });
    await failureOf(apiRequest('/api/auth/logout', { method: 'POST' }));
    expect(unanswered).toHaveBeenCalledTimes(1);
    const refused = mockFetch(() => jsonResponse(409, { code: 'CONFLICT', message: 'Busy' }));
    await failureOf(
      apiRequest('/api/pause/pause-subscription', {
        method: 'POST',
        body: {},
        idempotencyKey: 'web-refused-0001',
      }),
    );
    expect(refused).toHaveBeenCalledTimes(1);
  });

  it('each billing write of the screens sends one', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, { url: 'http://x', secret: 's' }));
    const body = { customerId: 'cus_1', newPlanId: 'price_heavy_month_uk' };
    await changePlan(body);
    await changePlan(body);
    await pauseSubscription({ customer_id: 'cus_1', resume_date: '2026-12-01' });
    await cancelPause({ customer_id: 'cus_1' });
    await renewSubscription({ customerId: 'cus_1', iccid: '8944110000000001105', priceId: 'p' });
    await createPortalSession('cus_1');
    await createCustomerSecret('cus_1');
    const keys = fetchMock.mock.calls.map(([, init]) => keyOf(init));
    expect(keys.every((key) => key !== null)).toBe(true);
    // The same intent (the same variables, as a retried mutation passes them) keeps its key.
    expect(keys[0]).toBe(keys[1]);
    expect(new Set(keys.slice(1)).size).toBe(keys.length - 1);
  });
});
