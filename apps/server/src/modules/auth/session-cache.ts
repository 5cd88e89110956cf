/**
 * Resolved sessions kept in process memory for a few seconds, because every authenticated
 * request resolves its bearer token (docs/decisions/065).
 *
 * Correctness does not rest on the time-out: database triggers send NOTIFY session_changes with
 * the session's token hash (or '*') whenever a session is revoked, deleted or changed, whoever
 * does it, in any process; each process listens and evicts. While the listening connection is
 * down the cache serves nothing. A read of the database that an eviction overtook is not stored
 * (a generation counter), so a revocation cannot be undone by a slow read that started before it.
 */
import type { DatabaseHandle } from '../../db/client.ts';

export const sessionChangesChannel = 'session_changes';

export interface SessionCache<Value> {
  /** The entry stored less than the time-out ago, if the cache is trusted right now. */
  get(tokenHash: string): Value | undefined;
  /** A token for `set`: take it before reading the database. */
  generation(): number;
  /** Stores what a read begun at `generation` found, unless something was evicted since. */
  set(tokenHash: string, value: Value, generation: number): void;
  /** Forgets an entry; reads under way when it changed are not stored (the session changed). */
  evict(tokenHash: string): void;
  evictAll(): void;
  /** Forgets an entry, e.g. one the caller just read as ended; reads under way are unaffected. */
  drop(tokenHash: string): void;
  /** Serves nothing from memory while false (e.g. while notifications cannot be received). */
  setEnabled(isEnabled: boolean): void;
}

export function createSessionCache<Value>(options: {
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}): SessionCache<Value> {
  const now = options.now ?? (() => performance.now());
  const entries = new Map<string, { value: Value; storedAt: number }>();
  let evictions = 0;
  let isEnabled = options.ttlMs > 0;

  const cache: SessionCache<Value> = {
    get(tokenHash) {
      if (!isEnabled) return undefined;
      const entry = entries.get(tokenHash);
      if (!entry) return undefined;
      if (now() - entry.storedAt < options.ttlMs) return entry.value;
      entries.delete(tokenHash);
      return undefined;
    },
    generation: () => evictions,
    set(tokenHash, value, generation) {
      if (!isEnabled || generation !== evictions) return;
      // Bounded: when full, the oldest entry goes (Map keeps insertion order).
      if (entries.size >= options.maxEntries && !entries.has(tokenHash)) {
        entries.delete(entries.keys().next().value as string);
      }
      entries.delete(tokenHash);
      entries.set(tokenHash, { value, storedAt: now() });
    },
    evict(tokenHash) {
      evictions += 1;
      entries.delete(tokenHash);
    },
    evictAll() {
      evictions += 1;
      entries.clear();
    },
    drop(tokenHash) {
      entries.delete(tokenHash);
    },
    setEnabled(enabled) {
      cache.evictAll();
      isEnabled = enabled && options.ttlMs > 0;
    },
  };
  return cache;
}

/**
 * Evicts sessions as the database reports changes; while the listening connection is down the
 * cache serves nothing. Resolves to a stop function.
 */
export async function evictOnSessionChanges(
  database: Pick<DatabaseHandle, 'listen'>,
  cache: SessionCache<unknown>,
): Promise<() => Promise<void>> {
  return database.listen(sessionChangesChannel, {
    onNotification: (payload) => {
      if (payload === '*' || payload === '') cache.evictAll();
      else cache.evict(payload);
    },
    onGap: (isListening) => cache.setEnabled(isListening),
  });
}
