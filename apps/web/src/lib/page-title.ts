import { useEffect, useSyncExternalStore } from 'react';

/**
 * A page's own title, when its route's fixed one does not say enough (decision 111): Manage plan
 * names its camera ("Manage plan — Fuel tank (SIM …1071)"), a member's dashboard whose cameras it
 * shows. The frame shows it in place of the route's title while the page that set it is mounted;
 * the route's title stands until then and again once the page is gone.
 */
let current: { owner: symbol; title: string } | null = null;
const listeners = new Set<() => void>();

function publish(next: { owner: symbol; title: string } | null) {
  current = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The title a mounted page set, or null: the frame then shows its route's title. */
export function usePageTitleOverride(): string | null {
  return useSyncExternalStore(
    subscribe,
    () => current?.title ?? null,
    () => null,
  );
}

/** Sets the page's title while the calling component is mounted; null leaves the route's. */
export function usePageTitle(title: string | null): void {
  useEffect(() => {
    if (title === null) return;
    const owner = Symbol('page title');
    publish({ owner, title });
    return () => {
      if (current?.owner === owner) publish(null);
    };
  }, [title]);
}
