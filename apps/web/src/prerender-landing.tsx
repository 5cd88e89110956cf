/**
 * The landing page (`/`) as a visitor sees it, rendered to HTML at build time
 * (prerender-plugin.ts, docs/decisions/083): the sign-in text paints before any script has run.
 * The browser's first render replaces it (main.tsx); nothing hydrates. Rendered by React DOM's
 * server renderer from the same routes and components the SPA uses, so there is no second copy
 * of the page to keep in step.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToString } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router';
import { routes } from './app/router.tsx';

export async function renderLanding(): Promise<string> {
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request('http://localhost/'));
  if (context instanceof Response) {
    throw new Error(`The landing page answered ${context.status} instead of rendering`);
  }
  const router = createStaticRouter(handler.dataRoutes, context);
  return renderToString(
    <QueryClientProvider client={new QueryClient()}>
      <StaticRouterProvider router={router} context={context} hydrate={false} />
    </QueryClientProvider>,
  );
}
