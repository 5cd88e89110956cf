import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { earlyStarts, earlyStartScript } from '../app/early-start.ts';
import { jsonResponse, mockFetch, requestHeaders } from '../test/test-utils.tsx';
import { ApiError, apiRequest } from './api-client.ts';
import { authStore, tokenStorageKey } from './auth-store.ts';
import { earlyAnswerFreshMs, earlyAnswersGlobal, takeEarlyAnswer } from './early-answers.ts';
import { toast } from './toast.tsx';

type Started = {
  token: string;
  at: number;
  answers: Record<string, Promise<{ status: number; text: string }>>;
};
const globals = window as unknown as Record<string, Started | undefined>;

function leaveEarly(token: string, answers: Started['answers'], at = Date.now()) {
  globals[earlyAnswersGlobal] = { token, at, answers };
}

afterEach(() => {
  delete globals[earlyAnswersGlobal];
  authStore.clear();
});

describe('takeEarlyAnswer (decision 118)', () => {
  it('gives an answer once, for its own path and the token it was asked with', async () => {
    const answer = Promise.resolve({ status: 200, text: '{}' });
    leaveEarly('t1', { '/api/cameras/plansV2': answer });
    expect(takeEarlyAnswer('/api/cameras/plansV2', 't2')).toBeUndefined();
    expect(takeEarlyAnswer('/api/auth/user-data', 't1')).toBeUndefined();
    expect(takeEarlyAnswer('/api/cameras/plansV2', null)).toBeUndefined();
    expect(takeEarlyAnswer('/api/cameras/plansV2', 't1')).toBe(answer);
    expect(takeEarlyAnswer('/api/cameras/plansV2', 't1')).toBeUndefined();
  });

  it('does not give an answer started too long ago', () => {
    const at = Date.now();
    leaveEarly('t1', { '/api/a': Promise.resolve({ status: 200, text: '{}' }) }, at);
    expect(takeEarlyAnswer('/api/a', 't1', at + earlyAnswerFreshMs + 1)).toBeUndefined();
  });
});

describe('apiRequest with an early answer', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'error').mockImplementation(() => undefined);
  });

  it('uses it instead of the network, once', async () => {
    authStore.signIn('session-token');
    leaveEarly('session-token', {
      '/api/cameras/plansV2': Promise.resolve({ status: 200, text: '{"plans":[1]}' }),
    });
    const fetchMock = mockFetch(() => jsonResponse(200, { plans: [2] }));
    await expect(apiRequest('/api/cameras/plansV2')).resolves.toEqual({ plans: [1] });
    expect(fetchMock).not.toHaveBeenCalled();
    await expect(apiRequest('/api/cameras/plansV2')).resolves.toEqual({ plans: [2] });
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('answers its failures as the network would: a 401 expires the session', async () => {
    authStore.signIn('session-token');
    leaveEarly('session-token', {
      '/api/auth/user-data': Promise.resolve({
        status: 401,
        text: '{"code":"UNAUTHORIZED","message":"Signed out"}',
      }),
    });
    mockFetch(() => jsonResponse(200, {}));
    const error = await apiRequest('/api/auth/user-data').catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect(authStore.getState().token).toBeNull();
  });

  it('turns a failed early fetch into the no-connection error', async () => {
    authStore.signIn('session-token');
    const failed = Promise.reject(new TypeError('Failed to fetch'));
    failed.catch(() => undefined);
    leaveEarly('session-token', { '/api/auth/user-data': failed });
    const error = await apiRequest('/api/auth/user-data').catch((reason: unknown) => reason);
    expect((error as ApiError).status).toBe('FETCH_ERROR');
  });

  it('is not used for another session, a query string or a write', async () => {
    authStore.signIn('session-token');
    const early = { status: 200, text: '{"early":true}' };
    leaveEarly('someone-else', { '/api/a': Promise.resolve(early) });
    const fetchMock = mockFetch(() => jsonResponse(200, { early: false }));
    await expect(apiRequest('/api/a')).resolves.toEqual({ early: false });
    leaveEarly('session-token', {
      '/api/b': Promise.resolve(early),
      '/api/c': Promise.resolve(early),
    });
    await expect(apiRequest('/api/b', { query: { q: '1' } })).resolves.toEqual({ early: false });
    await expect(apiRequest('/api/c', { method: 'POST', body: {} })).resolves.toEqual({
      early: false,
    });
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });
});

describe('the early-start script', () => {
  // The links the script adds, kept here rather than in the document (whose loader would fetch them).
  let added: HTMLLinkElement[] = [];
  beforeEach(() => {
    added = [];
    vi.spyOn(document.head, 'appendChild').mockImplementation(<T extends Node>(node: T): T => {
      added.push(node as unknown as HTMLLinkElement);
      return node;
    });
  });

  function run(pathname: string, search = '') {
    window.history.replaceState(null, '', `${pathname}${search}`);
    const script = earlyStartScript(
      earlyStarts.map((start) => ({
        path: start.path,
        preload: [`/assets/${start.page.split('/').pop()}.js`, '/assets/page.css'],
        answers: start.answers,
      })),
      tokenStorageKey,
    );
    new Function(script)();
  }

  afterEach(() => {
    window.localStorage.clear();
    window.history.replaceState(null, '', '/');
  });

  it('on /dashboard with a session, preloads the page and asks for its first answers', async () => {
    window.localStorage.setItem(tokenStorageKey, 'session-token');
    const fetchMock = mockFetch(() => jsonResponse(200, { ok: true }));
    run('/dashboard');
    const links = added.map((link) => [link.rel, link.getAttribute('href')]);
    expect(links).toEqual([
      ['modulepreload', '/assets/dashboard-page.tsx.js'],
      ['preload', '/assets/page.css'],
    ]);
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual([
      '/api/auth/user-data',
      '/api/cameras/plansV2',
      '/api/live-view',
    ]);
    expect(requestHeaders(fetchMock.mock.calls[0]![1]).get('Authorization')).toBe(
      'Bearer session-token',
    );
    authStore.signIn('session-token');
    await expect(takeEarlyAnswer('/api/cameras/plansV2', 'session-token')).resolves.toEqual({
      status: 200,
      text: '{"ok":true}',
    });
  });

  it("puts a camera's id into the answers it asks for", () => {
    window.localStorage.setItem(tokenStorageKey, 'session-token');
    const fetchMock = mockFetch(() => jsonResponse(200, {}));
    run('/camera/8944110000000001014');
    expect(fetchMock.mock.calls.map(([url]) => url)).toContain(
      '/api/cameras/sim-info/8944110000000001014',
    );
  });

  it("asks for a billing account's page with the account, not a round trip after it", () => {
    window.localStorage.setItem(tokenStorageKey, 'session-token');
    const fetchMock = mockFetch(() => jsonResponse(200, {}));
    run('/invoices/cus_IzkOZYBfG7HRMr');
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual([
      '/api/auth/user-data',
      '/api/billing/account/cus_IzkOZYBfG7HRMr',
      '/api/invoices/fetch-invoices/cus_IzkOZYBfG7HRMr',
    ]);
    fetchMock.mockClear();
    run('/subscription/cus_IzkOZYBfG7HRMr');
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual([
      '/api/auth/user-data',
      '/api/billing/account/cus_IzkOZYBfG7HRMr',
      '/api/subscriptions/fetch-eligible-plans/cus_IzkOZYBfG7HRMr',
      '/api/pause/check-active-pause/cus_IzkOZYBfG7HRMr',
    ]);
  });

  it('leaves an id it would not write itself to the app', () => {
    window.localStorage.setItem(tokenStorageKey, 'session-token');
    const fetchMock = mockFetch(() => jsonResponse(200, {}));
    // An escaped dot would take the request up a level (/api/billing/).
    run('/invoices/%2e%2e');
    run('/camera/8944%20110');
    expect(fetchMock).not.toHaveBeenCalled();
    expect(added).toHaveLength(0);
  });

  it('does nothing signed out, on pages it does not know, or with a query string', () => {
    const fetchMock = mockFetch(() => jsonResponse(200, {}));
    run('/dashboard');
    window.localStorage.setItem(tokenStorageKey, 'session-token');
    run('/postcode');
    run('/dashboard', '?refresh=true');
    expect(fetchMock).not.toHaveBeenCalled();
    expect(added).toHaveLength(0);
    expect(globals[earlyAnswersGlobal]).toBeUndefined();
  });
});
