import { createAsyncStoragePersister } from '@tanstack/query-async-storage-persister';
import { onlineManager, type Query, type QueryClient, type QueryKey } from '@tanstack/react-query';
import { persistQueryClient } from '@tanstack/react-query-persist-client';
import { createStore, del, get, set } from 'idb-keyval';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { ApiError } from './api-client.ts';
import { authStore } from './auth-store.ts';

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

/** Query keys whose answers are kept, by their first parts. */
const persistedKeyPrefixes: readonly QueryKey[] = [
  ['auth', 'user-data'],
  ['cameras', 'plans'],
  ['cameras', 'sim-info'],
  ['cameras', 'data-usage'],
  ['cameras', 'router-info'],
  ['invoices'],
];

/** As long as a session may sit idle (DESIGN §4): older than that, it is not worth showing. */
export const lastKnownMaxAgeMs = 7 * 24 * 3600 * 1000;

const hasPrefix = (key: QueryKey, prefix: QueryKey) =>
  prefix.every((part, index) => key[index] === part);

export const isPersistedQueryKey = (key: QueryKey): boolean =>
  persistedKeyPrefixes.some((prefix) => hasPrefix(key, prefix));

/** A short, non-reversible fingerprint of the session token (cyrb53), to tell sessions apart. */
export function sessionFingerprint(token: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < token.length; index += 1) {
    const code = token.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

const storageKey = 'last-known';
let store: ReturnType<typeof createStore> | undefined;
const lastKnownStore = () => (store ??= createStore('farmcam', 'last-known'));

/** When this page started: answers older than that came from the device, not this visit. */
export const pageStartedAt = Date.now();

/**
 * Restores the signed-in session's saved answers into the query client and keeps saving them,
 * starting again whenever the session changes. Resolves when the first restore is done.
 */
export function keepLastKnownState(queryClient: QueryClient): Promise<void> {
  if (typeof indexedDB === 'undefined') return Promise.resolve();
  let currentBuster: string | null = null;
  const persister = createAsyncStoragePersister({
    storage: {
      getItem: (key) => get<string>(key, lastKnownStore()).then((value) => value ?? null),
      // A save still waiting from the session before is dropped (see serialize).
      setItem: (key, value) =>
        value === '' ? Promise.resolve() : set(key, value, lastKnownStore()),
      removeItem: (key) => del(key, lastKnownStore()),
    },
    key: storageKey,
    throttleTime: 1000,
    serialize: (client) => (client.buster === currentBuster ? JSON.stringify(client) : ''),
  });
  // Answers kept on the device stay in memory as long, or the next save would drop them.
  for (const prefix of persistedKeyPrefixes) {
    queryClient.setQueryDefaults(prefix, { gcTime: lastKnownMaxAgeMs });
  }

  let stopSaving = () => {};
  const start = (): Promise<void> => {
    stopSaving();
    const { token } = authStore.getState();
    currentBuster = token === null ? null : sessionFingerprint(token);
    if (currentBuster === null) return Promise.resolve();
    const [unsubscribe, restored] = persistQueryClient({
      queryClient,
      persister,
      buster: currentBuster,
      maxAge: lastKnownMaxAgeMs,
      dehydrateOptions: {
        // An answer stays kept after a refresh failed (offline): it is still what we knew.
        shouldDehydrateQuery: (query) =>
          query.state.data !== undefined && isPersistedQueryKey(query.queryKey),
      },
    });
    stopSaving = unsubscribe;
    return restored.catch((error: unknown) => {
      console.warn('What this device knew could not be read:', error);
    });
  };
  authStore.subscribe(() => {
    // Another session (or none): the last one's answers must not be shown to it, nor stay here.
    void persister.removeClient();
    void start();
  });
  return start();
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
