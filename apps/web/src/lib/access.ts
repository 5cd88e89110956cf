import type { AccessAbilities, AccessRole, AccountAccess } from '@farmcam/contract';
import { useCurrentUser } from './current-user.ts';

/**
 * Who may do what in the account (docs/decisions/091, 093): the server decides and says so in
 * user-data's `access`; the web only hides what `access.can` says no to. No role rule lives here.
 */

/** Until the server has said (or when it says nothing, e.g. plain staff), nothing is offered. */
export const noAbilities: AccessAbilities = {
  manageCameras: false,
  manageBilling: false,
  activateSims: false,
  manageTeam: false,
  viewActivity: false,
};

/** How a role is named on screen. */
export const roleNames: Record<AccessRole, string> = {
  owner: 'Owner',
  manager: 'Manager',
  viewer: 'Viewer',
};

/** The signed-in person's access to the account, or null (not answered yet, or plain staff). */
export function useAccess(): AccountAccess | null {
  return useCurrentUser().data?.access ?? null;
}

/**
 * What the signed-in person may do. While user-data loads the answer is "nothing", so a Viewer
 * never sees a button flash up and vanish.
 */
export function useAbilities(): AccessAbilities {
  return useAccess()?.can ?? noAbilities;
}
