import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { afterAnswersPainted } from './after-paint.ts';
import { authStore } from './auth-store.ts';
import { keepOnDevice } from './keep-on-device.ts';
import { keptStateMarkerKey, mayHaveKeptState } from './last-known-keys.ts';
import { keepLastKnownState } from './persisted-queries.ts';

vi.mock('./keep-on-device.ts', () => ({ keepOnDevice: vi.fn(() => Promise.resolve()) }));
vi.mock('./after-paint.ts', () => ({ afterAnswersPainted: vi.fn(() => () => undefined) }));

/** The callback keepLastKnownState left for after the first screen, if it left one. */
const waitingForFirstScreen = () => vi.mocked(afterAnswersPainted).mock.calls.at(-1)?.[1];

describe('when the saving and restoring code loads (decision 175)', () => {
  beforeEach(() => {
    // happy-dom has no IndexedDB; the code under test only asks whether there is one.
    vi.stubGlobal('indexedDB', {});
    authStore.clear();
    window.localStorage.clear();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it('loads at once when the device keeps answers to restore', async () => {
    authStore.signIn('session-one');
    window.localStorage.setItem(keptStateMarkerKey, '1');
    keepLastKnownState(new QueryClient());
    await vi.waitFor(() => expect(keepOnDevice).toHaveBeenCalledTimes(1));
    expect(afterAnswersPainted).not.toHaveBeenCalled();
  });

  it('waits for the first screen when there is nothing to restore', async () => {
    authStore.signIn('session-one');
    keepLastKnownState(new QueryClient());
    expect(afterAnswersPainted).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(keepOnDevice).not.toHaveBeenCalled();
    waitingForFirstScreen()?.();
    await vi.waitFor(() => expect(keepOnDevice).toHaveBeenCalledTimes(1));
  });

  it('waits for the first screen of whoever signs in later, and loads nothing for a visitor', async () => {
    keepLastKnownState(new QueryClient());
    expect(afterAnswersPainted).not.toHaveBeenCalled();
    authStore.signIn('session-two');
    expect(afterAnswersPainted).toHaveBeenCalledTimes(1);
    waitingForFirstScreen()?.();
    await vi.waitFor(() => expect(keepOnDevice).toHaveBeenCalledTimes(1));
  });

  it('counts storage it cannot read as possibly keeping answers', () => {
    expect(mayHaveKeptState()).toBe(false);
    window.localStorage.setItem(keptStateMarkerKey, '1');
    expect(mayHaveKeptState()).toBe(true);
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new Error('SecurityError');
    });
    expect(mayHaveKeptState()).toBe(true);
  });
});
