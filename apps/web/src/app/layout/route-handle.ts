import type { UIMatch } from '../../lib/router/index.ts';

/** What a route tells the page frame (docs/requirements.md#screens): its title and, optionally, where Back goes. */
export interface RouteHandle {
  /** A function when the title depends on whether someone is signed in. */
  title: string | ((state: { isSignedIn: boolean }) => string);
  backTo?: string;
}

function isRouteHandle(handle: unknown): handle is RouteHandle {
  return typeof handle === 'object' && handle !== null && 'title' in handle;
}

/** The handle of the deepest matched route that has one. */
export function findRouteHandle(matches: UIMatch[]): RouteHandle | undefined {
  return matches
    .map((match) => match.handle)
    .filter(isRouteHandle)
    .at(-1);
}
