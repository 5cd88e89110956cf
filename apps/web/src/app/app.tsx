import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect } from 'react';
import { RouterProvider } from '../lib/router/index.ts';
import { paths } from '../config/paths.ts';
import { onSessionExpired } from '../lib/api-client.ts';
import { queryClient } from '../lib/query-client.ts';
import { createAppRouter } from './router.tsx';

const router = createAppRouter();

export function App() {
  // docs/requirements.md#errors: a 401 signs out (done by the API client) and returns to the login page.
  useEffect(
    () =>
      onSessionExpired(() => {
        void router.navigate(paths.login.href(), { replace: true });
      }),
    [],
  );

  return (
    <QueryClientProvider client={queryClient}>
      {/* The toasts sit in the page frame, under the page's title (frame-layout.tsx). */}
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
