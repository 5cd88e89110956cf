import type { FetchQueryOptions, QueryKey } from '@tanstack/react-query';
import type { LoaderFunction } from '../lib/router/index.ts';
import { alertSettingsQueryOptions } from '../features/cameras/api/get-alert-settings.ts';
import { dataUsageQueryOptions } from '../features/cameras/api/get-data-usage.ts';
import { simInfoQueryOptions } from '../features/cameras/api/get-sim-info.ts';
import { liveViewStatusQueryOptions } from '../features/cameras/api/live-view.ts';
import { currentMonthUsageRange } from '../features/cameras/usage-range.ts';
import { coverageSourceQueryOptions } from '../features/coverage/api/get-coverage-source.ts';
import { liveViewCamerasQueryOptions } from '../features/dashboard/api/get-live-view-cameras.ts';
import { plansQueryOptions } from '../features/dashboard/api/get-plans.ts';
import { demoCameraQueryOptions } from '../features/livestream/api/demo-camera.ts';
import { livestreamCamerasQueryOptions } from '../features/livestream/api/livestream-cameras.ts';
import { showcaseQueryOptions } from '../features/livestream/api/showcase.ts';
import { authStore } from '../lib/auth-store.ts';
import { currentUserQueryOptions } from '../lib/current-user.ts';
import { queryClient } from '../lib/query-client.ts';

/**
 * Route loaders that start a page's first API calls while its code chunk is still on its way
 * (React Router runs a route's `loader` beside its `lazy`), instead of after the chunk has run
 * and rendered (decision 083). They never wait and never fail: each returns at once, the page's
 * own queries pick the answer up from the cache (or fetch again and show their loading and error
 * states as before). Only what the page asks for on every first render is prefetched.
 */
type Prefetch = (args: Parameters<LoaderFunction>[0]) => void;

/** Starts a query without waiting; its failure stays in the cache for the page to show. */
function startQuery<Data, Key extends QueryKey>(
  options: FetchQueryOptions<Data, Error, Data, Key>,
): void {
  void queryClient.prefetchQuery(options);
}

const isSignedIn = () => authStore.getState().token !== null;

/** Wraps a prefetch as a loader that returns at once (no data through the router). */
export function prefetchLoader(prefetch: Prefetch): LoaderFunction {
  return (args) => {
    prefetch(args);
    return null;
  };
}

/** Who is signed in: the frame (e-mail, staff links, impersonation banner) asks on every page. */
export const prefetchCurrentUser: Prefetch = () => {
  if (isSignedIn()) startQuery(currentUserQueryOptions);
};

/**
 * /dashboard: plansV2 and the cards' live view. `?refresh=true` reloads the list itself
 * (use-refresh-request.ts).
 */
export const prefetchDashboard: Prefetch = ({ request }) => {
  if (!isSignedIn()) return;
  if (new URL(request.url).searchParams.get('refresh') === 'true') return;
  startQuery(plansQueryOptions);
  startQuery(liveViewCamerasQueryOptions);
};

/** /livestreaming: the customer's livestreams, the demo clip and whether the demo camera runs. */
export const prefetchLivestreaming: Prefetch = () => {
  if (!isSignedIn()) return;
  startQuery(livestreamCamerasQueryOptions());
  startQuery(showcaseQueryOptions());
  startQuery(demoCameraQueryOptions());
};

/**
 * /camera/{id}: the SIM card, whether it can be watched live, its alerts and this month's usage.
 * The router card is asked for only when the SIM is active and unbarred
 * (docs/requirements.md#states), so it waits for the SIM as before.
 */
export const prefetchCamera: Prefetch = ({ params }) => {
  const iccid = params.cameraId;
  if (!isSignedIn() || !iccid) return;
  startQuery(simInfoQueryOptions(iccid));
  startQuery(liveViewStatusQueryOptions(iccid));
  startQuery(alertSettingsQueryOptions(iccid));
  startQuery(dataUsageQueryOptions(iccid, currentMonthUsageRange(new Date())));
};

/** /postcode: the coverage source, whose demo postcodes make the page's second card. */
export const prefetchPostcode: Prefetch = () => {
  startQuery(coverageSourceQueryOptions());
};
