import { describe, expect, it } from 'vitest';
import { authStore, createAuthStore, staffTokenStorageKey, tokenStorageKey } from './auth-store.ts';
import { queryClient } from './query-client.ts';

describe('auth store', () => {
  it('restores the token kept in local storage at load', () => {
    window.localStorage.setItem(tokenStorageKey, 'kept-token');
    window.localStorage.setItem(staffTokenStorageKey, 'kept-staff-token');

    expect(createAuthStore().getState()).toEqual({
      token: 'kept-token',
      staffToken: 'kept-staff-token',
    });
  });

  it('starts signed out when nothing is stored', () => {
    expect(createAuthStore().getState()).toEqual({ token: null, staffToken: null });
  });

  it('stores a signed-in token in state and under "token", and removes it on clear', () => {
    const store = createAuthStore();
    store.signIn('session-token');
    expect(store.getState().token).toBe('session-token');
    expect(window.localStorage.getItem('token')).toBe('session-token');

    store.clear();
    expect(store.getState().token).toBeNull();
    expect(window.localStorage.getItem('token')).toBeNull();
  });

  it('parks the staff token during impersonation and restores it afterwards', () => {
    const store = createAuthStore();
    store.signIn('staff-token');

    store.startImpersonation('customer-scoped-token');
    expect(store.getState()).toEqual({ token: 'customer-scoped-token', staffToken: 'staff-token' });
    expect(window.localStorage.getItem('staffToken')).toBe('staff-token');

    store.endImpersonation();
    expect(store.getState()).toEqual({ token: 'staff-token', staffToken: null });
    expect(window.localStorage.getItem('staffToken')).toBeNull();
  });

  it('clears both tokens, so no credential stays in storage', () => {
    const store = createAuthStore();
    store.signIn('staff-token');
    store.startImpersonation('customer-scoped-token');

    store.clear();
    expect(window.localStorage.length).toBe(0);
  });

  it('notifies subscribers only when the state changes', () => {
    const store = createAuthStore();
    let notifications = 0;
    store.subscribe(() => (notifications += 1));

    store.signIn('a');
    store.signIn('a');
    store.clear();
    expect(notifications).toBe(2);
  });

  it('empties the API cache whenever the session changes, so no answer outlives its session', () => {
    authStore.signIn('customer-token');
    queryClient.setQueryData(['auth', 'user-data'], { email: 'farmer@example.com' });

    authStore.clear();
    expect(queryClient.getQueryData(['auth', 'user-data'])).toBeUndefined();
  });
});
