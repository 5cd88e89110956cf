import type { ComponentType } from 'react';
import { createBrowserRouter } from 'react-router';
import type { RouteObject } from 'react-router';
import { Loader } from '../components/ui/spinner.tsx';
import { paths } from '../config/paths.ts';
import { loadChunk } from './chunk-loading.ts';
import { FrameLayout } from './layout/frame-layout.tsx';
import type { RouteHandle } from './layout/route-handle.ts';
import { RequireSession } from './require-session.tsx';
import { RequireStaff } from './require-staff.tsx';
import { RouteErrorScreen } from './route-error-screen.tsx';

/**
 * A page whose code loads on first visit (within the chunk time-out). The title is known at
 * once, so the frame shows it while the code loads; a failure shows the retry screen in the frame.
 */
function lazyPage<Module>(
  handle: RouteHandle,
  load: () => Promise<Module>,
  pickComponent: (module: Module) => ComponentType,
): Pick<RouteObject, 'handle' | 'lazy' | 'errorElement'> {
  return {
    handle,
    lazy: async () => ({ Component: pickComponent(await loadChunk(load)) }),
    errorElement: <RouteErrorScreen />,
  };
}

export const routes: RouteObject[] = [
  {
    path: paths.login.pattern,
    errorElement: <RouteErrorScreen />,
    hydrateFallbackElement: <Loader />,
    children: [
      {
        element: <FrameLayout navigation="customer" />,
        children: [
          {
            index: true,
            ...lazyPage(
              { title: ({ isSignedIn }) => (isSignedIn ? 'Welcome back' : 'Sign in') },
              () => import('../features/auth/components/login-page.tsx'),
              (module) => module.LoginPage,
            ),
          },
          {
            path: paths.magicLink.pattern,
            ...lazyPage(
              { title: 'Signing in' },
              () => import('../features/auth/components/magic-link-page.tsx'),
              (module) => module.MagicLinkPage,
            ),
          },
          {
            path: paths.teamLogin.pattern,
            ...lazyPage(
              { title: 'Staff sign-in' },
              () => import('../features/auth/components/staff-login-page.tsx'),
              (module) => module.StaffLoginPage,
            ),
          },
          {
            element: <RequireSession />,
            children: [
              {
                path: paths.dashboard.pattern,
                ...lazyPage(
                  { title: 'Account' },
                  () => import('../features/dashboard/components/dashboard-page.tsx'),
                  (module) => module.DashboardPage,
                ),
              },
            ],
          },
          {
            path: '*',
            ...lazyPage(
              { title: 'Page not found' },
              () => import('./not-found-page.tsx'),
              (module) => module.NotFoundPage,
            ),
          },
        ],
      },
      {
        element: <FrameLayout navigation="staff" />,
        children: [
          {
            element: <RequireStaff />,
            children: [
              {
                path: paths.staff.pattern,
                ...lazyPage(
                  { title: 'Customers' },
                  () => import('../features/staff/components/staff-page.tsx'),
                  (module) => module.StaffPage,
                ),
              },
            ],
          },
        ],
      },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
