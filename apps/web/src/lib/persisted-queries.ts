import { onlineManager, type Query, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { ApiError } from './api-client.ts';
import { authStore } from './auth-store.ts';
import { afterAnswersPainted } from './after-paint.ts';
import {
  hasPrefix,
  isPersistedQueryKey,
  mayHaveKeptState,
  pageStartedAt,
} from './last-known-keys.ts';

export { pageStartedAt };

/**
 * What the farmer last saw, kept on the device (decision 119): the camera list, a camera's
 * details and the invoices, with who is signed in (the frame needs it), saved in IndexedDB by
 * TanStack Query's persister and shown at once on the next visit while the network answers.
 *
 * The saved copy belongs to one session: it carries a fingerprint of the session token (a token
 * is one person on one account), is restored only for that same token, and is deleted when the
 * token changes: at logout, at expiry, and when anyone signs in on the device. The token itself is
 * never written there, nor any other answer.
 */

/**
 * Restores the signed-in session's saved answers and keeps saving them (keep-on-device.ts),
 * loaded only once someone is signed in: a visitor on `/` downloads none of it. With nothing kept
 * on the device (a first visit, a new session) there is nothing to restore, and the code waits
 * until the page's first answers are painted, as the service worker does (decision 175).
 */
export function keepLastKnownState(queryClient: QueryClient): void {
  if (typeof indexedDB === 'undefined') return;
  const load = () =>
    void import('./keep-on-device.ts').then(
      ({ keepOnDevice }) => keepOnDevice(queryClient),
      (error: unknown) => console.warn('What this device knew could not be read:', error),
    );
  const loadAfterFirstScreen = () => void afterAnswersPainted(queryClient, load);
  if (authStore.getState().token !== null) {
    if (mayHaveKeptState()) load();
    else loadAfterFirstScreen();
    return;
  }
  // Whoever signs in next starts a session of their own: nothing of it is kept yet.
  const stop = authStore.subscribe(() => {
    if (authStore.getState().token === null) return;
    stop();
    loadAfterFirstScreen();
  });
}

export type LastKnownState =
  | { kind: 'current' }
  /** Answers from an earlier visit on show while the network is asked again. */
  | { kind: 'refreshing'; updatedAt: number }
  /** No network: the page shows what it last knew, or nothing yet. */
  | { kind: 'offline'; updatedAt: number | null };

const isNetworkFailure = (error: unknown) =>
  error instanceof ApiError && (error.status === 'FETCH_ERROR' || error.status === 'TIMEOUT_ERROR');

/** What the queries on show (kept ones with a mounted observer) say about freshness. */
function readLastKnownState(queryClient: QueryClient): LastKnownState {
  const shown = queryClient.getQueryCache().findAll({
    predicate: (query: Query) =>
      query.getObserversCount() > 0 &&
      isPersistedQueryKey(query.queryKey) &&
      // Who is signed in shows in the frame on every page; the page's own answers decide.
      !hasPrefix(query.queryKey, ['auth', 'user-data']),
  });
  const withData = shown.filter((query) => query.state.data !== undefined);
  const oldest = withData.length
    ? Math.min(...withData.map((query) => query.state.dataUpdatedAt))
    : null;
  // The browser's own word counts too: a page opened with no signal gets no `offline` event.
  const isOffline =
    !onlineManager.isOnline() ||
    navigator.onLine === false ||
    shown.some(
      (query) =>
        query.state.fetchStatus === 'paused' ||
        (query.state.fetchStatus === 'idle' && isNetworkFailure(query.state.error)),
    );
  if (isOffline && shown.length > 0) return { kind: 'offline', updatedAt: oldest };
  const isAsking = shown.some((query) => query.state.fetchStatus !== 'idle');
  if (oldest !== null && oldest < pageStartedAt && isAsking) {
    return { kind: 'refreshing', updatedAt: oldest };
  }
  return { kind: 'current' };
}

/** The page's freshness, following the query cache and the connection. */
export function useLastKnownState(queryClient: QueryClient): LastKnownState {
  const serialized = useSyncExternalStore(
    (listener) => {
      const stopCache = queryClient.getQueryCache().subscribe(listener);
      const stopOnline = onlineManager.subscribe(listener);
      return () => {
        stopCache();
        stopOnline();
      };
    },
    () => JSON.stringify(readLastKnownState(queryClient)),
    () => JSON.stringify({ kind: 'current' }),
  );
  return JSON.parse(serialized) as LastKnownState;
}

/** The current time, again every half minute: "Updated 5 minutes ago" keeps counting. */
export function useNow(isCounting: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!isCounting) return;
    const tick = () => setNow(Date.now());
    // At once when counting starts (the time read at mount may be old by then), then twice a minute.
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, 30_000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [isCounting]);
  return now;
}
