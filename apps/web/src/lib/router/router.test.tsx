import type { ReactElement } from 'react';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createHref, resolveTo } from './history.ts';
import {
  createMemoryRouter,
  Link,
  Navigate,
  NavLink,
  Outlet,
  RouterProvider,
  useLocation,
  useMatches,
  useParams,
  useRouteError,
  useSearchParams,
} from './index.ts';
import type { RouteObject } from './index.ts';
import { matchRoutes } from './routes.ts';

function Page({ name }: { name: string }) {
  const params = useParams();
  const location = useLocation();
  return (
    <h1>
      {name} {JSON.stringify(params)} {location.search}
    </h1>
  );
}

function Frame() {
  const titles = useMatches()
    .map((match) => (match.handle as { title?: string } | undefined)?.title)
    .filter(Boolean);
  return (
    <div>
      <p>title: {titles.at(-1)}</p>
      <nav>
        <NavLink to="/dashboard" end className={({ isActive }) => (isActive ? 'on' : 'off')}>
          Account
        </NavLink>
        <Link to="/camera/1071">Camera</Link>
      </nav>
      <Outlet />
    </div>
  );
}

function ErrorScreen() {
  const error = useRouteError();
  return <p role="alert">failed: {error instanceof Error ? error.message : String(error)}</p>;
}

const table = (extra: RouteObject[] = []): RouteObject[] => [
  {
    path: '/',
    hydrateFallbackElement: <p>loading</p>,
    children: [
      {
        element: <Frame />,
        children: [
          { index: true, element: <Page name="sign-in" />, handle: { title: 'Sign in' } },
          { path: '/dashboard', element: <Page name="dashboard" />, handle: { title: 'Account' } },
          {
            path: '/camera/:cameraId',
            element: <Page name="camera" />,
            handle: { title: 'Camera' },
          },
          { path: '/postcode/:postcode', element: <Page name="postcode" /> },
          ...extra,
          { path: '*', element: <Page name="not found" /> },
        ],
      },
    ],
  },
];

function renderRouter(routes: RouteObject[], path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(<RouterProvider router={router} />);
  return router;
}

describe('matching', () => {
  const routes = table([{ path: '/postcode/:postcode/near', element: null }]);
  const leaf = (path: string) => matchRoutes(routes, path)?.at(-1);

  it('finds the page, its parameters decoded, whatever the case or a trailing slash', () => {
    expect(leaf('/')?.route.index).toBe(true);
    expect(leaf('/Camera/89%2044/')?.params).toEqual({ cameraId: '89 44' });
    expect(leaf('/DASHBOARD')?.route.handle).toEqual({ title: 'Account' });
    expect(leaf('/postcode/EX36/near')?.params).toEqual({ postcode: 'EX36' });
  });

  it('leaves the splat route for addresses no other route takes', () => {
    expect(leaf('/camera')?.params).toEqual({ '*': 'camera' });
    expect(leaf('/camera/1/2')?.params).toEqual({ '*': 'camera/1/2' });
    expect(leaf('/%E0%A4%A')?.params).toEqual({ '*': '%E0%A4%A' });
  });

  it('gives every route above the page, outermost first', () => {
    expect(matchRoutes(routes, '/dashboard')?.map((match) => match.id)).toEqual([
      '0',
      '0-0',
      '0-0-1',
    ]);
  });
});

describe('resolving an address', () => {
  it('keeps the path for a query alone, and replaces the parts that are given', () => {
    const here = { pathname: '/activate', search: '?step=2', hash: '#top' };
    expect(resolveTo('?step=3', here)).toEqual({
      pathname: '/activate',
      search: '?step=3',
      hash: '',
    });
    expect(resolveTo({ search: 'a=1', hash: '#x' }, here)).toEqual({
      pathname: '/activate',
      search: '?a=1',
      hash: '#x',
    });
    expect(resolveTo('/camera/1?watch=1', here)).toEqual({
      pathname: '/camera/1',
      search: '?watch=1',
      hash: '',
    });
    expect(resolveTo('setup', { pathname: '/livestreaming' }).pathname).toBe(
      '/livestreaming/setup',
    );
  });

  it('gives back any absolute address it was given', () => {
    const segment = fc.stringMatching(/^[a-z0-9-]{1,8}$/);
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.option(fc.stringMatching(/^[a-z]=[0-9]$/), { nil: undefined }),
        (segments, query) => {
          const href = `/${segments.join('/')}${query ? `?${query}` : ''}`;
          expect(createHref(resolveTo(href, { pathname: '/somewhere' }))).toBe(href);
        },
      ),
    );
  });
});

describe('navigating', () => {
  it('shows the page at the address, in its frame, with the title from its route', async () => {
    const router = renderRouter(table(), '/camera/1071');
    expect(screen.getByRole('heading').textContent).toBe('camera {"cameraId":"1071"} ');
    expect(screen.getByText('title: Camera')).toBeTruthy();

    await userEvent.click(screen.getByRole('link', { name: 'Account' }));
    expect(screen.getByRole('heading').textContent).toContain('dashboard');
    expect(screen.getByRole('link', { name: 'Account' }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByRole('link', { name: 'Account' }).className).toBe('on');
    expect(router.state.historyAction).toBe('PUSH');

    await act(() => router.navigate(-1));
    expect(screen.getByRole('heading').textContent).toContain('camera');
    expect(router.state.historyAction).toBe('POP');
    expect(screen.getByRole('link', { name: 'Account' }).getAttribute('aria-current')).toBeNull();
  });

  it('keeps the entry state, and replaces the entry when asked to', async () => {
    const router = renderRouter(table(), '/dashboard');
    await act(() => router.navigate('/camera/2', { state: { from: 'card' } }));
    expect(router.state.location.state).toEqual({ from: 'card' });
    await act(() => router.navigate('/camera/3', { replace: true }));
    await act(() => router.navigate(-1));
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('leaves a plain link to the browser when it opens a new tab', async () => {
    const router = renderRouter(table(), '/dashboard');
    const link = screen.getByRole('link', { name: 'Camera' });
    expect(link.getAttribute('href')).toBe('/camera/1071');
    link.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, ctrlKey: true }));
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('changes the query as the page asks, a new entry unless replaced', async () => {
    function Filters() {
      const [params, setParams] = useSearchParams();
      return (
        <button
          type="button"
          onClick={() => setParams((current) => (current.set('sort', 'name'), current))}
        >
          sort {params.get('sort') ?? 'none'}
        </button>
      );
    }
    const router = renderRouter(
      table([{ path: '/filters', element: <Filters /> }]),
      '/filters?q=a',
    );
    await userEvent.click(screen.getByRole('button', { name: 'sort none' }));
    expect(router.state.location.search).toBe('?q=a&sort=name');
    expect(screen.getByRole('button').textContent).toBe('sort name');
  });

  it('redirects with Navigate, replacing the entry', async () => {
    const router = renderRouter(
      table([{ path: '/old', element: <Navigate to="/dashboard" replace /> }]),
      '/old',
    );
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(router.state.historyAction).toBe('REPLACE');
  });
});

describe('pages whose code loads on first visit', () => {
  function lazyRoute(path: string) {
    let resolve: (component: { Component: () => ReactElement }) => void = () => {};
    let reject: (error: Error) => void = () => {};
    const lazy = vi.fn(
      () =>
        new Promise<{ Component: () => ReactElement }>((ok, fail) => {
          resolve = ok;
          reject = fail;
        }),
    );
    const route: RouteObject = {
      path,
      lazy,
      handle: { title: 'Lazy' },
      errorElement: <ErrorScreen />,
    };
    return {
      route,
      lazy,
      arrive: () => resolve({ Component: () => <Page name="lazy" /> }),
      fail: () => reject(new Error('chunk missing')),
    };
  }

  it('shows the frame and its fallback while the first page loads, then the page', async () => {
    const page = lazyRoute('/lazy');
    renderRouter(table([page.route]), '/lazy');
    expect(screen.getByText('title: Lazy')).toBeTruthy();
    expect(screen.getByText('loading')).toBeTruthy();
    page.arrive();
    expect((await screen.findByRole('heading')).textContent).toContain('lazy');
  });

  it('answers a tap at once: the address, the frame and the title, then the page; loads once', async () => {
    const page = lazyRoute('/lazy');
    const router = renderRouter(table([page.route]), '/dashboard');
    let navigation = Promise.resolve();
    act(() => {
      navigation = router.navigate('/lazy');
    });
    expect(router.state.location.pathname).toBe('/lazy');
    expect(screen.getByText('title: Lazy')).toBeTruthy();
    expect(screen.getByText('loading')).toBeTruthy();
    await act(async () => {
      page.arrive();
      await navigation;
    });
    expect(screen.getByRole('heading').textContent).toContain('lazy');
    await act(() => router.navigate('/dashboard'));
    await act(() => router.navigate('/lazy'));
    expect(screen.getByRole('heading').textContent).toContain('lazy');
    expect(page.lazy).toHaveBeenCalledTimes(1);
  });

  it('waits for a loader that returns a promise before the address changes', async () => {
    let release = () => {};
    const held = new Promise<null>((resolve) => (release = () => resolve(null)));
    const router = renderRouter(
      table([{ path: '/held', loader: () => held, element: <Page name="held" /> }]),
      '/dashboard',
    );
    const navigation = router.navigate('/held');
    expect(router.state.location.pathname).toBe('/dashboard');
    await act(async () => {
      release();
      await navigation;
    });
    expect(screen.getByRole('heading').textContent).toContain('held');
  });

  it('lets a later navigation overtake one still loading', async () => {
    const page = lazyRoute('/lazy');
    const router = renderRouter(table([page.route]), '/dashboard');
    const slow = router.navigate('/lazy');
    await act(() => router.navigate('/camera/9'));
    await act(async () => {
      page.arrive();
      await slow;
    });
    expect(router.state.location.pathname).toBe('/camera/9');
    expect(screen.queryByText('loading')).toBeNull();
    expect(screen.getByRole('heading').textContent).toContain('camera');
  });

  it("shows the route's error element when its code fails, and the frame stays", async () => {
    const page = lazyRoute('/lazy');
    const router = renderRouter(table([page.route]), '/dashboard');
    const navigation = router.navigate('/lazy');
    await act(async () => {
      page.fail();
      await navigation;
    });
    expect(screen.getByRole('alert').textContent).toBe('failed: chunk missing');
    expect(screen.getByText('title: Lazy')).toBeTruthy();
  });

  it('catches a page that fails to render, and shows the next page again', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    function Broken(): ReactElement {
      throw new Error('render failed');
    }
    const router = renderRouter(
      table([{ path: '/broken', element: <Broken />, errorElement: <ErrorScreen /> }]),
      '/broken',
    );
    expect(screen.getByRole('alert').textContent).toBe('failed: render failed');
    await act(() => router.navigate('/dashboard'));
    expect(screen.getByRole('heading').textContent).toContain('dashboard');
  });
});

describe('loaders', () => {
  it('run when their route is new, its parameters or the query change, not for a sibling move', async () => {
    const frameLoader = vi.fn(() => null);
    const pageLoader = vi.fn(() => null);
    const routes: RouteObject[] = [
      {
        path: '/',
        loader: frameLoader,
        element: <Outlet />,
        children: [
          { path: '/camera/:cameraId', loader: pageLoader, element: <Page name="camera" /> },
          { path: '/dashboard', element: <Page name="dashboard" /> },
        ],
      },
    ];
    const router = renderRouter(routes, '/camera/1');
    expect(frameLoader).toHaveBeenCalledTimes(1);
    expect(pageLoader).toHaveBeenCalledTimes(1);
    expect(pageLoader.mock.calls[0]).toMatchObject([{ params: { cameraId: '1' } }]);

    await act(() => router.navigate('/camera/2'));
    expect(pageLoader).toHaveBeenCalledTimes(2);
    expect(frameLoader).toHaveBeenCalledTimes(1);
    await act(() => router.navigate('/dashboard'));
    expect(frameLoader).toHaveBeenCalledTimes(1);
    await act(() => router.navigate('/dashboard?refresh=true'));
    expect(frameLoader).toHaveBeenCalledTimes(2);
    await act(() => router.navigate('/dashboard?refresh=true#main-content'));
    expect(frameLoader).toHaveBeenCalledTimes(2);
    await act(() => router.navigate('/dashboard?refresh=true#main-content'));
    expect(frameLoader).toHaveBeenCalledTimes(3);
  });
});
