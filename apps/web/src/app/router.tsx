import type { ComponentType } from 'react';
import { createBrowserRouter } from '../lib/router/index.ts';
import type { LoaderFunction, RouteObject } from '../lib/router/index.ts';
import { Loader } from '../components/ui/spinner.tsx';
import { paths } from '../config/paths.ts';
import { LoginPage } from '../features/auth/components/login-page.tsx';
import { loadChunk } from './chunk-loading.ts';
import { FrameLayout } from './layout/frame-layout.tsx';
import type { RouteHandle } from './layout/route-handle.ts';
import {
  prefetchCamera,
  prefetchCurrentUser,
  prefetchDashboard,
  prefetchLivestreaming,
  prefetchLoader,
  prefetchPostcode,
} from './route-prefetch.ts';
import { RequireSession } from './require-session.tsx';
import { RequireStaff } from './require-staff.tsx';
import { RouteErrorScreen } from './route-error-screen.tsx';

/** Said where a page goes while its code loads; journeys wait for it to go before judging a page. */
const pageCodeLoadingLabel = 'Opening the page…';

/**
 * A page whose code loads on first visit (within the chunk time-out). The title is known at
 * once, so the frame shows it while the code loads; a failure shows the retry screen in the frame.
 * A `loader` (from route-prefetch.ts) starts the page's first API calls beside its chunk.
 */
function lazyPage<Module>(
  handle: RouteHandle,
  load: () => Promise<Module>,
  pickComponent: (module: Module) => ComponentType,
  loader?: LoaderFunction,
): Pick<RouteObject, 'handle' | 'lazy' | 'errorElement' | 'loader'> {
  return {
    handle,
    lazy: async () => ({ Component: pickComponent(await loadChunk(load)) }),
    errorElement: <RouteErrorScreen />,
    ...(loader && { loader }),
  };
}

export const routes: RouteObject[] = [
  {
    path: paths.login.pattern,
    errorElement: <RouteErrorScreen />,
    // Where a page goes while its code is on its way (the frame and its title show meanwhile).
    hydrateFallbackElement: <Loader label={pageCodeLoadingLabel} />,
    children: [
      {
        element: <FrameLayout navigation="customer" />,
        children: [
          // The landing page is in the first bundle: loaded on demand, it was a second round
          // trip before the first screen could paint (decision 083). Every other page is lazy.
          {
            index: true,
            handle: {
              title: ({ isSignedIn }) => (isSignedIn ? 'Welcome back' : 'Sign in'),
            } satisfies RouteHandle,
            Component: LoginPage,
            errorElement: <RouteErrorScreen />,
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
            path: paths.staffSetPassword.pattern,
            ...lazyPage(
              { title: 'Choose your password' },
              () => import('../features/auth/components/staff-set-password-page.tsx'),
              (module) => module.StaffSetPasswordPage,
            ),
          },
          {
            path: paths.invitation.pattern,
            ...lazyPage(
              { title: 'Joining the team' },
              () => import('../features/team/components/invitation-page.tsx'),
              (module) => module.InvitationPage,
            ),
          },
          // Activation is open to new visitors (docs/requirements.md#screens); the thank-you page is where checkout returns.
          {
            path: paths.activate.pattern,
            ...lazyPage(
              { title: 'Activate a camera' },
              () => import('./activate-route.tsx'),
              (module) => module.ActivateRoute,
            ),
          },
          {
            path: paths.orderConfirmation.pattern,
            ...lazyPage(
              { title: 'Thank you for your order' },
              () => import('../features/activation/components/order-confirmation-page.tsx'),
              (module) => module.OrderConfirmationPage,
            ),
          },
          {
            element: <RequireSession />,
            // Not on the root: `/` has no loader, so it still renders at once (decision 083).
            loader: prefetchLoader(prefetchCurrentUser),
            children: [
              {
                path: paths.dashboard.pattern,
                ...lazyPage(
                  { title: 'Account' },
                  () => import('../features/dashboard/components/dashboard-page.tsx'),
                  (module) => module.DashboardPage,
                  prefetchLoader(prefetchDashboard),
                ),
              },
              {
                path: paths.livestreaming.pattern,
                ...lazyPage(
                  { title: 'Livestreaming' },
                  () => import('../features/livestream/components/livestreaming-page.tsx'),
                  (module) => module.LivestreamingPage,
                  prefetchLoader(prefetchLivestreaming),
                ),
              },
              {
                path: paths.livestreamingSetup.pattern,
                ...lazyPage(
                  { title: 'Livestream setup', backTo: paths.dashboard.href() },
                  () => import('../features/livestream/components/livestream-setup-page.tsx'),
                  (module) => module.LivestreamSetupPage,
                ),
              },
              {
                path: paths.livestreamingManage.pattern,
                ...lazyPage(
                  { title: 'Manage livestream', backTo: paths.dashboard.href() },
                  () => import('../features/livestream/components/livestream-manage-page.tsx'),
                  (module) => module.LivestreamManagePage,
                ),
              },
              {
                path: paths.camera.pattern,
                ...lazyPage(
                  { title: 'Camera details', backTo: paths.dashboard.href() },
                  () => import('../features/cameras/components/camera-details-page.tsx'),
                  (module) => module.CameraDetailsPage,
                  prefetchLoader(prefetchCamera),
                ),
              },
              {
                path: paths.subscription.pattern,
                ...lazyPage(
                  { title: 'Manage plan', backTo: paths.dashboard.href() },
                  () => import('../features/subscription/components/subscription-page.tsx'),
                  (module) => module.SubscriptionPage,
                ),
              },
              {
                path: paths.invoices.pattern,
                ...lazyPage(
                  { title: 'Invoices', backTo: paths.dashboard.href() },
                  () => import('../features/invoices/components/invoices-page.tsx'),
                  (module) => module.InvoicesPage,
                ),
              },
              {
                path: paths.notifications.pattern,
                ...lazyPage(
                  { title: 'Notifications' },
                  () => import('../features/notifications/components/notifications-page.tsx'),
                  (module) => module.NotificationsPage,
                ),
              },
              // The owner's screens; the server refuses anyone else, the menu offers them only
              // to whom access.can allows (decision 093).
              {
                path: paths.team.pattern,
                ...lazyPage(
                  { title: 'Team' },
                  () => import('../features/team/components/team-page.tsx'),
                  (module) => module.TeamPage,
                ),
              },
              {
                path: paths.billing.pattern,
                ...lazyPage(
                  { title: 'Billing' },
                  () => import('../features/billing/components/billing-page.tsx'),
                  (module) => module.BillingPage,
                ),
              },
              {
                path: paths.activity.pattern,
                ...lazyPage(
                  { title: 'Activity' },
                  () => import('../features/activity/components/activity-page.tsx'),
                  (module) => module.ActivityPage,
                ),
              },
              {
                path: paths.pricing.pattern,
                ...lazyPage(
                  {
                    title: 'No active subscription associated with SIM.',
                    backTo: paths.dashboard.href(),
                  },
                  () => import('../features/pricing/components/pricing-page.tsx'),
                  (module) => module.PricingPage,
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
      // The postcode pages are public and sit outside the frame (docs/requirements.md#screens); they draw their own.
      {
        path: paths.postcode.pattern,
        ...lazyPage(
          { title: 'Check Signal Availability' },
          () => import('../features/coverage/components/postcode-page.tsx'),
          (module) => module.PostcodePage,
          prefetchLoader(prefetchPostcode),
        ),
      },
      {
        path: paths.postcodeResult.pattern,
        ...lazyPage(
          { title: 'Signal Availability', backTo: paths.postcode.href() },
          () => import('../features/coverage/components/signal-result-page.tsx'),
          (module) => module.SignalResultPage,
        ),
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
