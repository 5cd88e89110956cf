import {
  Component,
  createContext,
  forwardRef,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import type { AnchorHTMLAttributes, MouseEvent, ReactNode } from 'react';
import { createHref, resolveTo } from './history.ts';
import type { InitialEntry, Location, NavigationType, To } from './history.ts';
import { isPathActive } from './routes.ts';
import type { Params, RouteMatch, RouteObject, UIMatch } from './routes.ts';
import { createMemoryRouter } from './router.ts';
import type { NavigateOptions, Router, RouterState } from './router.ts';

const RouterContext = createContext<Router | null>(null);
const StateContext = createContext<RouterState | null>(null);
const OutletContext = createContext<ReactNode>(null);
const MatchContext = createContext<RouteMatch | null>(null);
const RouteErrorContext = createContext<unknown>(undefined);

function useRouter(): Router {
  const router = useContext(RouterContext);
  if (!router) throw new Error('This component needs the router (RouterProvider) around it');
  return router;
}

function useRouterState(): RouterState {
  const state = useContext(StateContext);
  if (!state) throw new Error('This component needs the router (RouterProvider) around it');
  return state;
}

interface BoundaryProps {
  fallback: ReactNode;
  /** A new address shows the route again instead of the error. */
  resetKey: string;
  children: ReactNode;
}

/** Catches a route's rendering failure and shows its error element instead. */
class RouteErrorBoundary extends Component<BoundaryProps, { error: unknown; resetKey: string }> {
  override state = { error: undefined as unknown, resetKey: this.props.resetKey };

  static getDerivedStateFromProps(props: BoundaryProps, state: { resetKey: string }) {
    return props.resetKey === state.resetKey
      ? null
      : { error: undefined, resetKey: props.resetKey };
  }

  static getDerivedStateFromError(error: unknown) {
    return { error: error ?? new Error('A page failed to render') };
  }

  override render() {
    if (this.state.error === undefined) return this.props.children;
    return (
      <RouteErrorContext.Provider value={this.state.error}>
        {this.props.fallback}
      </RouteErrorContext.Provider>
    );
  }
}

/**
 * The matched routes, each inside its parent's `<Outlet />`. A failed route shows the nearest
 * error element at or above it; a route whose code is still on its way shows the nearest
 * fallback at or above it, inside the routes above it (the page frame and its title).
 */
function renderMatches(router: Router, state: RouterState): ReactNode {
  const { matches, errors } = state;
  let failedAt = -1;
  matches.forEach((match, index) => {
    if (errors.has(match.route)) failedAt = index;
  });
  let boundaryAt = failedAt;
  while (boundaryAt > 0 && matches[boundaryAt]?.route.errorElement === undefined) boundaryAt -= 1;
  const shown = failedAt >= 0 ? matches.slice(0, boundaryAt + 1) : matches;

  let outlet: ReactNode = null;
  for (let index = shown.length - 1; index >= 0; index -= 1) {
    const match = shown[index] as RouteMatch;
    const { route } = match;
    let element: ReactNode;
    if (index === boundaryAt && failedAt >= 0) {
      element = (
        <RouteErrorContext.Provider value={errors.get(matches[failedAt]?.route as RouteObject)}>
          {route.errorElement ?? <DefaultError />}
        </RouteErrorContext.Provider>
      );
    } else {
      const Page = route.Component ?? router.loadedComponent(route);
      if (route.element !== undefined) element = route.element;
      else if (Page) element = <Page />;
      else if (route.lazy) element = nearestFallback(shown, index);
      else element = <Outlet />;
      if (route.errorElement !== undefined) {
        element = (
          <RouteErrorBoundary
            fallback={route.errorElement}
            resetKey={`${state.location.key}:${state.location.pathname}`}
          >
            {element}
          </RouteErrorBoundary>
        );
      }
    }
    outlet = (
      <MatchContext.Provider value={match}>
        <OutletContext.Provider value={outlet}>{element}</OutletContext.Provider>
      </MatchContext.Provider>
    );
  }
  return outlet;
}

function nearestFallback(matches: RouteMatch[], index: number): ReactNode {
  for (let at = index; at >= 0; at -= 1) {
    const fallback = matches[at]?.route.hydrateFallbackElement;
    if (fallback !== undefined) return fallback;
  }
  return null;
}

function DefaultError() {
  return <p role="alert">Something went wrong.</p>;
}

function RouterContexts({ router, children }: { router: Router; children?: ReactNode }) {
  const state = useSyncExternalStore(
    router.subscribe,
    () => router.state,
    () => router.state,
  );
  return (
    <RouterContext.Provider value={router}>
      <StateContext.Provider value={state}>
        {children ?? renderMatches(router, state)}
      </StateContext.Provider>
    </RouterContext.Provider>
  );
}

/**
 * A new page opens at its top, as a page load does; Back and Forward leave the position to the
 * browser, and a change of query alone (a filter, a step) keeps it.
 */
function useScrollToTopOnNewPage(router: Router) {
  const shownPath = useRef(router.state.location.pathname);
  useLayoutEffect(
    () =>
      router.subscribe((state) => {
        const { pathname } = state.location;
        if (pathname === shownPath.current) return;
        shownPath.current = pathname;
        if (state.historyAction !== 'POP' && !state.preventScrollReset) window.scrollTo(0, 0);
      }),
    [router],
  );
}

/** Shows the router's routes at its address. */
export function RouterProvider({ router }: { router: Router }) {
  useScrollToTopOnNewPage(router);
  return <RouterContexts router={router} />;
}

/** Gives components (tests, the build's prerender) an address of their own, without routes. */
export function MemoryRouter({
  initialEntries,
  children,
}: {
  initialEntries?: InitialEntry[];
  children: ReactNode;
}) {
  const [router] = useState(() => createMemoryRouter([{ path: '*' }], { initialEntries }));
  useEffect(() => () => router.dispose(), [router]);
  return <RouterContexts router={router}>{children}</RouterContexts>;
}

/** Where the child route shows. */
export function Outlet() {
  return <>{useContext(OutletContext)}</>;
}

export function useLocation(): Location {
  return useRouterState().location;
}

export function useNavigationType(): NavigationType {
  return useRouterState().historyAction;
}

export function useParams(): Params {
  return useContext(MatchContext)?.params ?? {};
}

export function useMatches(): UIMatch[] {
  const { matches } = useRouterState();
  return useMemo(
    () =>
      matches.map(({ id, pathname, params, route }) => ({
        id,
        pathname,
        params,
        handle: route.handle,
      })),
    [matches],
  );
}

/** What failed, inside a route's error element. */
export function useRouteError(): unknown {
  return useContext(RouteErrorContext);
}

export type NavigateFunction = (to: To | number, options?: NavigateOptions) => Promise<void>;

export function useNavigate(): NavigateFunction {
  const router = useRouter();
  return useCallback((to, options) => router.navigate(to, options), [router]);
}

type SearchParamsInit = string | URLSearchParams | string[][] | Record<string, string | string[]>;

function toSearchParams(init: SearchParamsInit): URLSearchParams {
  if (typeof init === 'string' || init instanceof URLSearchParams || Array.isArray(init)) {
    return new URLSearchParams(init);
  }
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(init)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, item);
  }
  return params;
}

export type SetSearchParams = (
  next: SearchParamsInit | ((current: URLSearchParams) => SearchParamsInit),
  options?: NavigateOptions,
) => void;

/** The address's query, and a way to change it (a new history entry unless `replace`). */
export function useSearchParams(): [URLSearchParams, SetSearchParams] {
  const { search } = useLocation();
  const navigate = useNavigate();
  const searchParams = useMemo(() => new URLSearchParams(search), [search]);
  const setSearchParams = useCallback<SetSearchParams>(
    (next, options) => {
      const init = typeof next === 'function' ? next(new URLSearchParams(searchParams)) : next;
      const query = toSearchParams(init).toString();
      void navigate(`?${query}`, options);
    },
    [navigate, searchParams],
  );
  return [searchParams, setSearchParams];
}

/** Moves to `to` once rendered (a redirect). */
export function Navigate({ to, replace, state }: { to: To; replace?: boolean; state?: unknown }) {
  const navigate = useNavigate();
  const target = typeof to === 'string' ? to : createHref(to);
  useEffect(() => {
    void navigate(target, { replace, state });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per target, as React Router
  }, [navigate, target, replace]);
  return null;
}

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: To;
  replace?: boolean;
  state?: unknown;
}

const isPlainClick = (event: MouseEvent<HTMLAnchorElement>, target: string | undefined) =>
  !event.defaultPrevented &&
  event.button === 0 &&
  (!target || target === '_self') &&
  !event.metaKey &&
  !event.altKey &&
  !event.ctrlKey &&
  !event.shiftKey;

/** A real link (it opens in a new tab, it works without the app); a plain click stays in the app. */
export const Link = forwardRef<HTMLAnchorElement, LinkProps>(function Link(
  { to, replace, state, onClick, target, ...rest },
  ref,
) {
  const navigate = useNavigate();
  const location = useLocation();
  const href = createHref(resolveTo(to, location));
  return (
    <a
      {...rest}
      ref={ref}
      href={href}
      target={target}
      onClick={(event) => {
        onClick?.(event);
        if (!isPlainClick(event, target)) return;
        event.preventDefault();
        void navigate(href, { replace, state });
      }}
    />
  );
});

export interface NavLinkProps extends Omit<LinkProps, 'className'> {
  /** Active only at exactly this address, not below it. */
  end?: boolean;
  className?: string | ((state: { isActive: boolean }) => string | undefined);
}

/** A link that knows it is the current page (`aria-current="page"`). */
export const NavLink = forwardRef<HTMLAnchorElement, NavLinkProps>(function NavLink(
  { end = false, className, ...rest },
  ref,
) {
  const location = useLocation();
  const target = resolveTo(rest.to, location).pathname;
  const isActive = isPathActive(location.pathname, target, end);
  const classes =
    typeof className === 'function'
      ? className({ isActive })
      : [className, isActive ? 'active' : null].filter(Boolean).join(' ') || undefined;
  return (
    <Link {...rest} ref={ref} className={classes} aria-current={isActive ? 'page' : undefined} />
  );
});
