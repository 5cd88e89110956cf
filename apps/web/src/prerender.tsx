/**
 * What the build prerenders (prerender-plugin.ts, decisions 083 and 116), with Preact's own
 * renderer, from the same routes and components the browser runs:
 * - `/` as a visitor sees it (the sign-in page), which the browser hydrates: the app takes over
 *   the same elements, so an address typed before the scripts ran stays in its field;
 * - the app shell (app/layout/app-shell.tsx) for every other path, which the app replaces.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToString } from 'preact-render-to-string';
import type { ReactElement } from 'react';
import { createMemoryRouter, MemoryRouter, RouterProvider } from './lib/router/index.ts';
import { AppShell } from './app/layout/app-shell.tsx';
import { routes } from './app/router.tsx';
import { paths } from './config/paths.ts';

// preact-render-to-string takes Preact's elements, which is what JSX makes here: the build
// resolves React to preact/compat (decision 088).
const render = (element: ReactElement) =>
  renderToString(element as unknown as Parameters<typeof renderToString>[0]);

export function renderLanding(): string {
  // The sign-in page is in the first bundle (no code to wait for), so its route renders at once.
  const router = createMemoryRouter(routes, { initialEntries: ['/'] });
  const waiting = router.state.matches.some(
    ({ route }) => route.lazy && !router.loadedComponent(route),
  );
  if (waiting) throw new Error('The landing page has code to wait for: it cannot be prerendered');
  try {
    return render(
      <QueryClientProvider client={new QueryClient()}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
  } finally {
    router.dispose();
  }
}

export function renderShell(): string {
  return render(
    <MemoryRouter initialEntries={[paths.dashboard.href()]}>
      <AppShell />
    </MemoryRouter>,
  );
}
