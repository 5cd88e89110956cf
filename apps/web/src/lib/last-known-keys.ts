import type { QueryKey } from '@tanstack/react-query';

/** Query keys whose answers the device keeps (decision 119), by their first parts. */
export const persistedKeyPrefixes: readonly QueryKey[] = [
  ['auth', 'user-data'],
  ['cameras', 'plans'],
  ['cameras', 'sim-info'],
  ['cameras', 'data-usage'],
  ['cameras', 'router-info'],
  ['invoices'],
  // Which camera an invoices page is about (its title and frame, decision 111).
  ['billing', 'account'],
];

/** As long as a session may sit idle (DESIGN §4): older than that, it is not worth showing. */
export const lastKnownMaxAgeMs = 7 * 24 * 3600 * 1000;

export const hasPrefix = (key: QueryKey, prefix: QueryKey) =>
  prefix.every((part, index) => key[index] === part);

export const isPersistedQueryKey = (key: QueryKey): boolean =>
  persistedKeyPrefixes.some((prefix) => hasPrefix(key, prefix));

/** When this page started: answers older than that came from the device, not this visit. */
export const pageStartedAt = Date.now();

/**
 * A local storage entry that is there while the device keeps a session's answers
 * (keep-on-device.ts writes and deletes it with them). Without it there is nothing to restore, and
 * a page loads the saving code after its first screen instead of beside it (decision 175).
 */
export const keptStateMarkerKey = 'farmcam-last-known';

/** Whether this device may keep answers to restore; true when storage cannot be read. */
export function mayHaveKeptState(): boolean {
  try {
    return window.localStorage.getItem(keptStateMarkerKey) !== null;
  } catch {
    return true;
  }
}
