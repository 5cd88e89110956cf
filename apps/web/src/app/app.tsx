import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect } from 'react';
import { RouterProvider } from 'react-router/dom';
import { paths } from '../config/paths.ts';
import { onSessionExpired } from '../lib/api-client.ts';
import { queryClient } from '../lib/query-client.ts';
import { DeferredToastContainer } from '../lib/toast.tsx';
import { createAppRouter } from './router.tsx';

const router = createAppRouter();

/** docs/requirements.md#toasts: top-centre, closing after 3.5 s unless a toast says otherwise. */
const toastAutoCloseMs = 3500;

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
      <RouterProvider router={router} />
      <DeferredToastContainer position="top-center" autoClose={toastAutoCloseMs} />
    </QueryClientProvider>
  );
}
