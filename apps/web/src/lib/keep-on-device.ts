/**
 * The saving and restoring half of lib/persisted-queries.ts (decision 119), in a chunk of its own:
 * TanStack Query's persister over IndexedDB (idb-keyval), for the signed-in session only.
 */
import { createAsyncStoragePersister } from '@tanstack/query-async-storage-persister';
import type { Query, QueryClient } from '@tanstack/react-query';
import { persistQueryClient, persistQueryClientSave } from '@tanstack/react-query-persist-client';
import { createStore, del, get, set } from 'idb-keyval';
import { authStore } from './auth-store.ts';
import {
  isPersistedQueryKey,
  keptStateMarkerKey,
  lastKnownMaxAgeMs,
  pageStartedAt,
  persistedKeyPrefixes,
} from './last-known-keys.ts';

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

/** The marker beside the saved answers (last-known-keys.ts); storage refused: no marker, no harm. */
function markKept(isKept: boolean): void {
  try {
    if (isKept) window.localStorage.setItem(keptStateMarkerKey, '1');
    else window.localStorage.removeItem(keptStateMarkerKey);
  } catch {
    // The next page loads this code after its first screen and restores then.
  }
}
let store: ReturnType<typeof createStore> | undefined;
const lastKnownStore = () => (store ??= createStore('farmcam', 'last-known'));

/**
 * Restores the signed-in session's saved answers into the query client and keeps saving them,
 * starting again whenever the session changes. Resolves when the first restore is done.
 */
export function keepOnDevice(queryClient: QueryClient): Promise<void> {
  let currentBuster: string | null = null;
  const persister = createAsyncStoragePersister({
    storage: {
      getItem: (key) => get<string>(key, lastKnownStore()).then((value) => value ?? null),
      // A save still waiting from the session before is dropped (see serialize).
      setItem: (key, value) =>
        value === ''
          ? Promise.resolve()
          : set(key, value, lastKnownStore()).then(() => markKept(true)),
      removeItem: (key) => {
        markKept(false);
        return del(key, lastKnownStore());
      },
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
    // Signed out (also before this chunk had loaded): nothing of the last session stays.
    if (currentBuster === null) return Promise.resolve(persister.removeClient());
    const options = {
      queryClient,
      persister,
      buster: currentBuster,
      maxAge: lastKnownMaxAgeMs,
      dehydrateOptions: {
        // An answer stays kept after a refresh failed (offline): it is still what we knew.
        shouldDehydrateQuery: (query: Query) =>
          query.state.data !== undefined && isPersistedQueryKey(query.queryKey),
      },
    };
    const [unsubscribe, restored] = persistQueryClient(options);
    stopSaving = unsubscribe;
    return restored
      .then(() => {
        // This code may arrive after the page's first answers (decision 175): those are kept
        // now, not at the next change.
        const hasNewAnswers = queryClient
          .getQueryCache()
          .findAll({ predicate: (query) => isPersistedQueryKey(query.queryKey) })
          .some(
            (query) => query.state.data !== undefined && query.state.dataUpdatedAt >= pageStartedAt,
          );
        if (hasNewAnswers) {
          persistQueryClientSave(options).catch((error: unknown) => {
            console.warn('What this page shows could not be kept on the device:', error);
          });
        }
        // What came from the device is shown at once and asked for again, however recent: a
        // reload must show what the server says now (a bill paid in another tab), not a copy.
        return queryClient.invalidateQueries({
          predicate: (query) =>
            isPersistedQueryKey(query.queryKey) && query.state.dataUpdatedAt < pageStartedAt,
        });
      })
      .catch((error: unknown) => {
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
