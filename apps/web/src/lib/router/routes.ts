import type { ComponentType, ReactNode } from 'react';

/** A path's `:name` parts (and `*`, the rest of a splat path), decoded. */
export type Params = Record<string, string | undefined>;

export interface LoaderArgs {
  request: Request;
  params: Params;
}

/**
 * Runs when a navigation reaches its route, beside the route's code; a promise it returns is
 * waited for. The portal's loaders return at once: they start a page's first API calls
 * (app/route-prefetch.ts) and leave the answers to the page.
 */
export type LoaderFunction = (args: LoaderArgs) => unknown;

/** A route of the portal's table (app/router.tsx), in React Router's shape. */
export interface RouteObject {
  /** Absolute (`/camera/:cameraId`) or relative to the parent's; none for a layout route. */
  path?: string;
  /** Shown at its parent's own path. */
  index?: boolean;
  children?: RouteObject[];
  element?: ReactNode;
  Component?: ComponentType;
  /** The page's code, fetched the first time a navigation reaches it. */
  lazy?: () => Promise<{ Component: ComponentType }>;
  loader?: LoaderFunction;
  /** What the route tells the page frame (app/layout/route-handle.ts). */
  handle?: unknown;
  /** Shown instead of the route when its code, its loader or its rendering failed. */
  errorElement?: ReactNode;
  /** Shown where a route's code is still on its way (React Router's name for it). */
  hydrateFallbackElement?: ReactNode;
}

export interface RouteMatch {
  /** The route's place in the table (`0-2-1`), stable for the table's lifetime. */
  id: string;
  route: RouteObject;
  params: Params;
  /** The part of the address this route's own path takes (`/` for a layout at the top). */
  pathname: string;
}

/** What `useMatches` gives: the matched routes, outermost first, with their handles. */
export interface UIMatch {
  id: string;
  pathname: string;
  params: Params;
  handle: unknown;
}

interface Branch {
  pattern: string[];
  /** Each route with how many segments of the pattern its path covers. */
  routes: { route: RouteObject; id: string; depth: number }[];
  hasSplat: boolean;
}

function joinPaths(parent: string, path: string | undefined): string {
  if (path === undefined || path === '') return parent;
  if (path.startsWith('/')) return path;
  return `${parent.replace(/\/$/, '')}/${path}`;
}

const segmentsOf = (path: string) => path.split('/').filter(Boolean);

/**
 * Every route that can be shown (a leaf or an index route) with the routes above it, in table
 * order; splat paths (`*`) last, so any other route wins over them as React Router ranks them.
 */
function flatten(routes: RouteObject[]): Branch[] {
  const branches: Branch[] = [];
  const walk = (
    list: RouteObject[],
    parentPath: string,
    parents: Branch['routes'],
    parentId: string,
  ) => {
    list.forEach((route, position) => {
      const id = parentId ? `${parentId}-${position}` : String(position);
      const path = route.index ? parentPath : joinPaths(parentPath, route.path);
      const chain = [...parents, { route, id, depth: segmentsOf(path).length }];
      if (route.children?.length) walk(route.children, path, chain, id);
      else if (route.index || route.path !== undefined) {
        const pattern = segmentsOf(path);
        branches.push({ pattern, routes: chain, hasSplat: pattern.at(-1) === '*' });
      }
    });
  };
  walk(routes, '/', [], '');
  return [...branches.filter((branch) => !branch.hasSplat), ...branches.filter((b) => b.hasSplat)];
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function matchPattern(pattern: string[], pathname: string): Params | null {
  const segments = segmentsOf(pathname);
  const params: Params = {};
  for (const [index, part] of pattern.entries()) {
    if (part === '*') {
      params['*'] = segments.slice(index).map(decode).join('/');
      return params;
    }
    const segment = segments[index];
    if (segment === undefined) return null;
    if (part.startsWith(':')) params[part.slice(1)] = decode(segment);
    else if (part.toLowerCase() !== decode(segment).toLowerCase()) return null;
  }
  return segments.length === pattern.length ? params : null;
}

const branchCache = new WeakMap<RouteObject[], Branch[]>();

/** The routes shown at `pathname`, outermost first; null when none is. Paths ignore case. */
export function matchRoutes(routes: RouteObject[], pathname: string): RouteMatch[] | null {
  let branches = branchCache.get(routes);
  if (!branches) {
    branches = flatten(routes);
    branchCache.set(routes, branches);
  }
  for (const branch of branches) {
    const params = matchPattern(branch.pattern, pathname);
    if (params) {
      const segments = segmentsOf(pathname);
      return branch.routes.map(({ route, id, depth }) => ({
        id,
        route,
        params,
        pathname: `/${(branch.pattern[depth - 1] === '*' ? segments : segments.slice(0, depth)).join('/')}`,
      }));
    }
  }
  return null;
}

/** Whether `pathname` is at `target` (or, unless `end`, below it), as NavLink marks a link. */
export function isPathActive(pathname: string, target: string, end: boolean): boolean {
  const here = pathname.toLowerCase().replace(/(.)\/+$/, '$1');
  const there = target.toLowerCase().replace(/(.)\/+$/, '$1');
  if (here === there) return true;
  return !end && there !== '/' && here.startsWith(`${there}/`);
}
