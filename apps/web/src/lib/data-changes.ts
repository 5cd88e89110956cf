import type {
  BillingAccountResponse,
  PlansResponse,
  RenewalPlansResponse,
  SimInfoResponse,
} from '@farmcam/contract';
import { cameraNameOf } from '@farmcam/contract/rules';
import type { QueryClient, QueryKey } from '@tanstack/react-query';

/**
 * What a change touches (decision 112): after a rename, a plan switch, a pause, an alert setting
 * or a team change, every cached answer that shows the changed thing is untrue, on whichever
 * screen it appears. This table says once, per kind of change, which answers those are (by their
 * query keys' first parts), so no screen shows the old name, plan or pause after the change:
 * the one on screen is asked again at once, and the others are dropped, so the next screen to
 * need one asks the server rather than showing what it had.
 *
 * Query keys start with the API area they come from: 'cameras' (plans list, SIM info, router,
 * usage, alerts, timelapses), 'subscriptions', 'billing', 'pause', 'invoices', 'livestreaming',
 * 'team', 'activity', 'account', 'auth'.
 */
export type DataChange = 'camera-name' | 'plan' | 'pause' | 'alerts' | 'members' | 'data-cap';

/**
 * A touched answer, by its key's first parts; `keepOnScreen`: dropped when not shown, but not
 * asked again while shown (a plan switch's own price preview, which the server would now refuse).
 */
type Touched = QueryKey | { key: QueryKey; keepOnScreen: true };

const touches: Record<DataChange, readonly Touched[]> = {
  // A camera's name shows on its card, its details, the billing pages' titles, the renewal
  // page, the livestream lists, the team's camera choices and the activity log.
  'camera-name': [
    ['cameras'],
    ['billing', 'account'],
    ['subscriptions', 'renewal-plans'],
    ['livestreaming'],
    ['team'],
    ['activity'],
  ],
  // A plan switch (or a renewal) changes the card, the plans, what can be paused, the
  // invoices, livestream eligibility, the month's spend and the log.
  plan: [
    ['cameras'],
    ['subscriptions', 'eligible-plans'],
    ['subscriptions', 'renewal-plans'],
    { key: ['subscriptions', 'preview-change'], keepOnScreen: true },
    ['billing'],
    ['pause'],
    ['invoices'],
    ['livestreaming'],
    ['account'],
    ['activity'],
  ],
  // A pause scheduled or cancelled changes the card, whether a switch is allowed, the pause
  // dates, the next invoice and livestream eligibility.
  pause: [
    ['cameras'],
    ['subscriptions'],
    ['pause'],
    ['invoices'],
    ['livestreaming'],
    ['account'],
    ['activity'],
  ],
  alerts: [['cameras'], ['team', 'me', 'camera-alerts'], ['activity']],
  // Members: the team, the log, and (if the person changed is the one signed in) their access.
  members: [['team'], ['activity'], ['auth', 'user-data']],
  // Resuming a camera's paused data: its card, its details and the log.
  'data-cap': [['cameras'], ['activity']],
};

const startsWith = (key: QueryKey, prefix: QueryKey) =>
  prefix.every((part, index) => key[index] === part);

/**
 * Makes every cached answer the change touched untrue no longer: answers on screen are fetched
 * again (resolves when they are back), the rest are dropped, except those the caller already
 * patched with the change (`patched`, e.g. a rename's new name in the SIM info): they stay to be
 * shown at once, and are asked again only when a screen next mounts them.
 */
export async function applyDataChange(
  client: QueryClient,
  change: DataChange,
  { patched = [] }: { patched?: readonly QueryKey[] } = {},
): Promise<void> {
  const keyOf = (touched: Touched) => ('key' in touched ? touched.key : touched);
  const isTouched = (key: QueryKey) =>
    touches[change].some((touched) => startsWith(key, keyOf(touched)));
  const isRefetched = (key: QueryKey) =>
    touches[change].some((touched) => !('key' in touched) && startsWith(key, touched));
  const isPatched = (key: QueryKey) => patched.some((prefix) => startsWith(key, prefix));
  client.removeQueries({
    type: 'inactive',
    predicate: (query) => isTouched(query.queryKey) && !isPatched(query.queryKey),
  });
  // Patched answers already say the change: marked stale for the next screen, not asked again now
  // (docs/requirements.md#api: a rename updates the cached camera list without reloading it).
  await client.invalidateQueries({
    refetchType: 'none',
    predicate: (query) => isRefetched(query.queryKey) && isPatched(query.queryKey),
  });
  await client.invalidateQueries({
    predicate: (query) => isRefetched(query.queryKey) && !isPatched(query.queryKey),
  });
}

/**
 * A rename as every screen shows it, at once (docs/requirements.md#api: the cached camera list is
 * updated locally): the new name goes into the answers that carry it (the camera list, the
 * camera's SIM info, its billing account, its renewal plans), then the rest of what a rename
 * touches is asked again or dropped.
 */
export function applyRename(client: QueryClient, iccid: string, nickname: string): Promise<void> {
  const patched: QueryKey[] = [
    ['cameras', 'plans'],
    ['cameras', 'sim-info', iccid],
    ['billing', 'account'],
    ['subscriptions', 'renewal-plans'],
  ];
  client.setQueriesData<PlansResponse>({ queryKey: ['cameras', 'plans'] }, (plans) =>
    plans
      ? {
          ...plans,
          cameras: plans.cameras.map((camera) =>
            camera.SIM_ICCID === iccid
              ? {
                  ...camera,
                  nicknameInDatabase: nickname,
                  displayName: cameraNameOf(nickname, iccid),
                }
              : camera,
          ),
        }
      : plans,
  );
  client.setQueriesData<SimInfoResponse>({ queryKey: ['cameras', 'sim-info', iccid] }, (info) =>
    info ? { ...info, nickname } : info,
  );
  client.setQueriesData<BillingAccountResponse>({ queryKey: ['billing', 'account'] }, (account) =>
    account?.camera?.iccid === iccid
      ? { ...account, camera: { ...account.camera, nickname } }
      : account,
  );
  client.setQueriesData<RenewalPlansResponse>(
    { queryKey: ['subscriptions', 'renewal-plans'] },
    (renewal) => (renewal?.iccid === iccid ? { ...renewal, nickname } : renewal),
  );
  return applyDataChange(client, 'camera-name', { patched });
}
