import type { ComponentType } from 'react';
import {
  createBrowserHistory,
  createHref,
  createKey,
  createMemoryHistory,
  resolveTo,
} from './history.ts';
import type { History, InitialEntry, Location, NavigationType, To } from './history.ts';
import { matchRoutes } from './routes.ts';
import type { RouteMatch, RouteObject } from './routes.ts';

export interface RouterState {
  location: Location;
  historyAction: NavigationType;
  /** The routes shown, outermost first (empty when no route matches). */
  matches: RouteMatch[];
  /** What failed, by route: its code, its loader. */
  errors: ReadonlyMap<RouteObject, unknown>;
  /** The navigation asked to keep the scroll position (e.g. a step of the same page). */
  preventScrollReset: boolean;
}

export interface NavigateOptions {
  replace?: boolean;
  state?: unknown;
  /** Keep the scroll position although the path changes. */
  preventScrollReset?: boolean;
}

export interface Router {
  readonly state: RouterState;
  subscribe(listener: (state: RouterState) => void): () => void;
  /** To an address, or back (-1) and forward through the history. */
  navigate(to: To | number, options?: NavigateOptions): Promise<void>;
  /** The page component a lazy route has loaded, if it has. */
  loadedComponent(route: RouteObject): ComponentType | undefined;
  dispose(): void;
}

/**
 * The portal's router (decision 126): the shape of React Router's data router, with what the
 * portal uses of it. A navigation matches its routes, runs their loaders and fetches the code of
 * routes not yet loaded. The address changes at once, in the same task: the frame and the new
 * page's title show, with the loader where the page goes until its code is in (on one bar of
 * signal a tap must answer before a chunk arrives). A loader that returns a promise is waited for
 * first, as React Router did. A later navigation overtakes an earlier one.
 */
function createRouter(routes: RouteObject[], history: History): Router {
  const listeners = new Set<(state: RouterState) => void>();
  const loaded = new Map<RouteObject, ComponentType>();
  const loading = new Map<RouteObject, Promise<void>>();
  let navigationId = 0;
  let lastNavigation: Promise<void> = Promise.resolve();

  const initialLocation = history.location();
  let state: RouterState = {
    location: initialLocation,
    historyAction: 'POP',
    matches: matchRoutes(routes, initialLocation.pathname) ?? [],
    errors: new Map(),
    preventScrollReset: false,
  };
  // Until the first navigation has shown its address, no route is on screen yet.
  let hasShown = false;

  const commit = (next: RouterState) => {
    state = next;
    for (const listener of listeners) listener(state);
  };

  /**
   * React Router's default: a route's loader runs when the route is new to the screen or takes
   * another part of the address (`/camera/1` to `/camera/2`), when the query changed, or when
   * the same address is asked for again; a move to another fragment alone (the skip link) runs
   * none.
   */
  const startLoaders = (
    matches: RouteMatch[],
    location: Location,
    errors: Map<RouteObject, unknown>,
  ): Promise<void>[] => {
    const waits: Promise<void>[] = [];
    const previous = hasShown ? state.matches : [];
    const samePathAndQuery =
      hasShown &&
      state.location.pathname === location.pathname &&
      state.location.search === location.search;
    if (samePathAndQuery && state.location.hash !== location.hash) return waits;
    const searchChanged = state.location.search !== location.search;
    const origin = typeof window === 'undefined' ? 'http://localhost' : window.location.origin;
    const request = new Request(new URL(createHref(location), origin));
    for (const match of matches) {
      const { loader } = match.route;
      if (!loader) continue;
      const before = previous.find((candidate) => candidate.route === match.route);
      const shouldRun =
        !before || before.pathname !== match.pathname || searchChanged || samePathAndQuery;
      if (!shouldRun) continue;
      try {
        const result = loader({ request, params: match.params });
        if (result instanceof Promise) {
          waits.push(
            result.then(
              () => undefined,
              (error: unknown) => {
                errors.set(match.route, error);
              },
            ),
          );
        }
      } catch (error) {
        errors.set(match.route, error);
      }
    }
    return waits;
  };

  const load = (route: RouteObject, errors: Map<RouteObject, unknown>): Promise<void> => {
    const { lazy } = route;
    if (!lazy || loaded.has(route)) return Promise.resolve();
    let pending = loading.get(route);
    if (!pending) {
      pending = lazy().then(
        ({ Component }) => {
          loaded.set(route, Component);
        },
        (error: unknown) => {
          // A later navigation may try again (the chunk loader's error screen reloads instead).
          loading.delete(route);
          throw error;
        },
      );
      loading.set(route, pending);
    }
    return pending.catch((error: unknown) => {
      errors.set(route, error);
    });
  };

  const startNavigation = (
    location: Location,
    navigationType: NavigationType,
    write: 'push' | 'replace' | null,
    preventScrollReset = false,
  ): Promise<void> => {
    navigationId += 1;
    const id = navigationId;
    const matches = matchRoutes(routes, location.pathname) ?? [];
    const errors = new Map<RouteObject, unknown>();
    const loaderWaits = startLoaders(matches, location, errors);
    const show = () => {
      if (id !== navigationId) return;
      hasShown = true;
      commit({
        location,
        historyAction: navigationType,
        matches,
        errors: new Map(errors),
        preventScrollReset,
      });
    };
    const arrive = () => {
      if (id !== navigationId) return;
      if (write === 'push') history.push(location);
      if (write === 'replace') history.replace(location);
      show();
    };
    const codeWaits = matches
      .filter(({ route }) => route.lazy && !loaded.has(route))
      .map(({ route }) => load(route, errors));
    if (loaderWaits.length > 0) {
      // A loader's promise is waited for, with the code, before the address changes.
      lastNavigation = Promise.all([...loaderWaits, ...codeWaits]).then(arrive);
    } else {
      // The address, the frame and the new page's title at once; its code shows when it is in.
      arrive();
      lastNavigation =
        codeWaits.length === 0 ? Promise.resolve() : Promise.all(codeWaits).then(show);
    }
    return lastNavigation;
  };

  const stopListening = history.listen((location) => {
    void startNavigation(location, 'POP', null);
  });
  void startNavigation(initialLocation, 'POP', null);

  return {
    get state() {
      return state;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    navigate(to, options = {}) {
      if (typeof to === 'number') {
        // The browser moves later (its popstate); a history in memory moves at once.
        const before = navigationId;
        history.go(to);
        return navigationId === before ? Promise.resolve() : lastNavigation;
      }
      const target = resolveTo(to, state.location);
      const location: Location = {
        ...target,
        state: options.state ?? null,
        key: createKey(),
      };
      // As React Router: asking for the address on screen again replaces its entry.
      const isSameAddress = createHref(target) === createHref(state.location);
      const replace = options.replace ?? isSameAddress;
      return startNavigation(
        location,
        replace ? 'REPLACE' : 'PUSH',
        replace ? 'replace' : 'push',
        options.preventScrollReset,
      );
    },
    loadedComponent: (route) => loaded.get(route),
    dispose() {
      stopListening();
      listeners.clear();
    },
  };
}

export function createBrowserRouter(routes: RouteObject[]): Router {
  return createRouter(routes, createBrowserHistory());
}

export function createMemoryRouter(
  routes: RouteObject[],
  options: { initialEntries?: InitialEntry[]; initialIndex?: number } = {},
): Router {
  return createRouter(routes, createMemoryHistory(options.initialEntries, options.initialIndex));
}
