/**
 * A customer's camera list (GET /api/cameras/plansV2) kept in process memory, because the
 * dashboard is the most requested page and its answer changes rarely (docs/decisions/012).
 *
 * Correctness does not rest on the time-out: database triggers send NOTIFY camera_changes with
 * the customer's id (or '*') on every change that alters the answer, whoever makes it, in any
 * process; each process listens and drops what changed. The time-out only bounds the damage of a
 * lost notification, and the business day is part of the key (pauses start at midnight).
 *
 * A load started before an invalidation is not stored (generation counters), and concurrent
 * misses for one customer share one load.
 */
import type { DatabaseHandle } from '../../db/client.ts';

export const cameraChangesChannel = 'camera_changes';

export interface ReadCache<Value> {
  readonly isEnabled: boolean;
  /** The cached value for this key and day, or `load()`'s, remembered unless invalidated meanwhile. */
  read(key: string, day: string, load: () => Promise<Value>): Promise<Value>;
  invalidate(key: string): void;
  invalidateAll(): void;
  /** Serves nothing from memory while false (e.g. while notifications cannot be received). */
  setEnabled(isEnabled: boolean): void;
}

interface Entry<Value> {
  day: string;
  value: Value;
  storedAt: number;
}

export function createReadCache<Value>(options: {
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}): ReadCache<Value> {
  const now = options.now ?? (() => performance.now());
  const entries = new Map<string, Entry<Value>>();
  const inFlight = new Map<string, { generation: string; promise: Promise<Value> }>();
  const keyGenerations = new Map<string, number>();
  let globalGeneration = 0;
  let isEnabled = options.ttlMs > 0;

  const generationOf = (key: string) => `${globalGeneration}:${keyGenerations.get(key) ?? 0}`;

  const cache: ReadCache<Value> = {
    get isEnabled() {
      return isEnabled;
    },

    async read(key, day, load) {
      if (!isEnabled) return load();
      const entry = entries.get(key);
      if (entry && entry.day === day && now() - entry.storedAt < options.ttlMs) {
        // Least recently used goes first when full: move this one to the back.
        entries.delete(key);
        entries.set(key, entry);
        return entry.value;
      }
      const generation = generationOf(key);
      const flightKey = `${key}|${day}`;
      const running = inFlight.get(flightKey);
      if (running && running.generation === generation) return running.promise;

      const promise = load();
      inFlight.set(flightKey, { generation, promise });
      try {
        const value = await promise;
        if (isEnabled && generationOf(key) === generation) {
          entries.delete(key);
          entries.set(key, { day, value, storedAt: now() });
          if (entries.size > options.maxEntries) {
            entries.delete(entries.keys().next().value as string);
          }
        }
        return value;
      } finally {
        if (inFlight.get(flightKey)?.promise === promise) inFlight.delete(flightKey);
      }
    },

    invalidate(key) {
      entries.delete(key);
      keyGenerations.set(key, (keyGenerations.get(key) ?? 0) + 1);
    },

    invalidateAll() {
      entries.clear();
      keyGenerations.clear();
      globalGeneration += 1;
    },

    setEnabled(enabled) {
      cache.invalidateAll();
      isEnabled = enabled && options.ttlMs > 0;
    },
  };
  return cache;
}

/**
 * Drops cache entries as the database reports changes. While the listening connection is down
 * the cache serves nothing from memory. Resolves to a stop function.
 */
export async function invalidateOnCameraChanges(
  database: Pick<DatabaseHandle, 'listen'>,
  cache: ReadCache<unknown>,
): Promise<() => Promise<void>> {
  return database.listen(cameraChangesChannel, {
    onNotification: (payload) => {
      if (payload === '*' || payload === '') cache.invalidateAll();
      else cache.invalidate(payload);
    },
    onGap: (isListening) => cache.setEnabled(isListening),
  });
}
