/**
 * Where the portal is (path, query, fragment, the entry's state) and how it moves: the browser's
 * history, or one kept in memory for tests and the build's prerender (decision 126).
 */
export type NavigationType = 'POP' | 'PUSH' | 'REPLACE';

export interface Location {
  pathname: string;
  search: string;
  hash: string;
  /** What the page put in this history entry (e.g. the activation wizard's step). */
  state: unknown;
  /** Unique per history entry; `default` for the entry the page was opened at. */
  key: string;
}

export interface PartialPath {
  pathname?: string;
  search?: string;
  hash?: string;
}

/** An address (`/camera/1?watch=1`, `?page=2`) or its parts; missing parts as React Router does. */
export type To = string | PartialPath;

export interface History {
  location(): Location;
  push(location: Location): void;
  replace(location: Location): void;
  /** Back (-1) or forward; the listener hears where it landed. */
  go(delta: number): void;
  listen(onPop: (location: Location) => void): () => void;
}

export function createKey(): string {
  return Math.random().toString(36).slice(2, 10);
}

export function createHref(location: PartialPath): string {
  return `${location.pathname ?? '/'}${location.search ?? ''}${location.hash ?? ''}`;
}

function parsePath(path: string): PartialPath {
  const parts: PartialPath = {};
  let rest = path;
  const hashAt = rest.indexOf('#');
  if (hashAt >= 0) {
    parts.hash = rest.slice(hashAt);
    rest = rest.slice(0, hashAt);
  }
  const searchAt = rest.indexOf('?');
  if (searchAt >= 0) {
    parts.search = rest.slice(searchAt);
    rest = rest.slice(0, searchAt);
  }
  if (rest) parts.pathname = rest;
  return parts;
}

const nonEmpty = (part: string | undefined, prefix: string) =>
  part && part !== prefix ? (part.startsWith(prefix) ? part : `${prefix}${part}`) : '';

/**
 * Where `to` leads from `from`. As React Router: a part that is given replaces the current one,
 * a path without a leading slash is relative to the current one, and a query or fragment alone
 * keeps the current path.
 */
export function resolveTo(to: To, from: PartialPath): Required<PartialPath> {
  const parts = typeof to === 'string' ? parsePath(to) : to;
  const fromPath = from.pathname ?? '/';
  let pathname = fromPath;
  if (parts.pathname !== undefined && parts.pathname !== '') {
    pathname = parts.pathname.startsWith('/')
      ? parts.pathname
      : new URL(
          parts.pathname,
          `http://portal${fromPath.endsWith('/') ? fromPath : `${fromPath}/`}`,
        ).pathname;
  }
  return {
    pathname,
    search: nonEmpty(parts.search, '?'),
    hash: nonEmpty(parts.hash, '#'),
  };
}

interface EntryState {
  usr?: unknown;
  key?: string;
}

/** The browser's history; an entry's state is kept as React Router kept it (`usr`, `key`). */
export function createBrowserHistory(): History {
  const read = (): Location => {
    const { pathname, search, hash } = window.location;
    const entry = (window.history.state ?? {}) as EntryState;
    return { pathname, search, hash, state: entry.usr ?? null, key: entry.key ?? 'default' };
  };
  const write = (location: Location, method: 'pushState' | 'replaceState') => {
    const entry: EntryState = { usr: location.state, key: location.key };
    try {
      window.history[method](entry, '', createHref(location));
    } catch {
      // A browser that refuses (too many entries, a state it cannot copy) still gets the page.
      window.location[method === 'pushState' ? 'assign' : 'replace'](createHref(location));
    }
  };
  return {
    location: read,
    push: (location) => write(location, 'pushState'),
    replace: (location) => write(location, 'replaceState'),
    go: (delta) => window.history.go(delta),
    listen(onPop) {
      const handler = () => onPop(read());
      window.addEventListener('popstate', handler);
      return () => window.removeEventListener('popstate', handler);
    },
  };
}

export type InitialEntry = string | (PartialPath & { state?: unknown });

/** A history in memory: for tests, and for rendering a page at build time. */
export function createMemoryHistory(initialEntries: InitialEntry[] = ['/'], initialIndex?: number) {
  const entries: Location[] = initialEntries.map((entry, index) => {
    const parts = resolveTo(typeof entry === 'string' ? entry : entry, { pathname: '/' });
    const state = typeof entry === 'string' ? null : (entry.state ?? null);
    return { ...parts, state, key: index === 0 ? 'default' : createKey() };
  });
  let index = Math.min(Math.max(initialIndex ?? entries.length - 1, 0), entries.length - 1);
  const listeners = new Set<(location: Location) => void>();
  const history: History = {
    location: () => entries[index] as Location,
    push(location) {
      entries.splice(index + 1, entries.length, location);
      index = entries.length - 1;
    },
    replace(location) {
      entries[index] = location;
    },
    go(delta) {
      const next = Math.min(Math.max(index + delta, 0), entries.length - 1);
      if (next === index) return;
      index = next;
      for (const listener of listeners) listener(entries[index] as Location);
    },
    listen(onPop) {
      listeners.add(onPop);
      return () => listeners.delete(onPop);
    },
  };
  return history;
}
