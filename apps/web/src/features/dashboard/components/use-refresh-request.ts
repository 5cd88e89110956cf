import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useNavigate, useSearchParams } from '../../../lib/router/index.ts';
import { paths } from '../../../config/paths.ts';
import { fetchPlans, plansQueryKey } from '../api/get-plans.ts';

/** docs/requirements.md#states/#limits dashboard refresh: retry after 1 s if the list is empty, then wait 0.5 s. */
export const refreshRetryDelayMs = 1000;
export const refreshSettleDelayMs = 500;

function wait(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * docs/requirements.md#screens: `?refresh=true` (set after a pause or a plan change elsewhere) reloads the camera list
 * with a loading state, then goes to /dashboard with replace. A new subscription can take a
 * moment to appear, so an empty list is fetched once more after 1 s. True while refreshing.
 */
export function useRefreshRequest(): boolean {
  const [searchParams] = useSearchParams();
  const isRequested = searchParams.get('refresh') === 'true';
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  useEffect(() => {
    if (!isRequested) return;
    const controller = new AbortController();
    // Fetched outside the list's query so that nothing cancels it (e.g. the list's observers
    // coming and going), then put in its cache.
    const reload = async () => {
      const plans = await fetchPlans();
      queryClient.setQueryData(plansQueryKey, plans);
      return plans;
    };
    void (async () => {
      try {
        const plans = await reload();
        if (plans.cameras.length === 0) {
          await wait(refreshRetryDelayMs, controller.signal);
          await reload();
        }
      } catch {
        // A failed reload shows as the list's error state once the page settles.
      }
      try {
        await wait(refreshSettleDelayMs, controller.signal);
      } catch {
        return;
      }
      void navigate(paths.dashboard.href(), { replace: true });
    })();
    return () => controller.abort();
  }, [isRequested, navigate, queryClient]);

  return isRequested;
}
