/**
 * What a person signed in to a customer account may do (docs/decisions/091): the one place the
 * roles' rules live. Routes ask `requireAbility` and `requireCameraAccess` (auth.plugin.ts);
 * `/auth/user-data` sends `abilitiesOf` to the web, which only hides what is not allowed. It sits
 * in auth, the module every other one may import, so asking it ties no module to the team's
 * (docs/decisions/160).
 */
import type { AccessAbilities, AccessRole } from '@farmcam/contract';

export type Ability = keyof AccessAbilities;

const abilitiesByRole: Record<AccessRole, AccessAbilities> = {
  owner: {
    manageCameras: true,
    manageBilling: true,
    activateSims: true,
    manageTeam: true,
    viewActivity: true,
  },
  manager: {
    manageCameras: true,
    manageBilling: false,
    activateSims: false,
    manageTeam: false,
    viewActivity: false,
  },
  viewer: {
    manageCameras: false,
    manageBilling: false,
    activateSims: false,
    manageTeam: false,
    viewActivity: false,
  },
};

/** A session's reach inside the account it is scoped to. */
export interface Access {
  role: AccessRole;
  /** The member row for a member's session; null for the owner (or staff acting as them). */
  memberId: string | null;
  /** The person signed in: the owner's, the member's (or, for staff, the customer's) e-mail. */
  personEmail: string;
  allCameras: boolean;
  /** The ICCIDs a member without `allCameras` may reach. */
  cameraIds: ReadonlySet<string>;
  accessUntil: Date | null;
}

/** The owner's access: everything on their account (also staff acting inside it). */
export function ownerAccess(personEmail: string): Access {
  return {
    role: 'owner',
    memberId: null,
    personEmail,
    allCameras: true,
    cameraIds: new Set(),
    accessUntil: null,
  };
}

/** A member's access has ended once they are removed or their last day is over (decision 091). */
export function memberAccessEnded(
  member: { removedAt: Date | null; accessUntil: Date | null },
  now: Date,
): boolean {
  return member.removedAt !== null || (member.accessUntil !== null && member.accessUntil <= now);
}

/** A member's access, as their session carries it. */
export function memberAccess(member: {
  id: string;
  email: string;
  role: 'manager' | 'viewer';
  allCameras: boolean;
  iccids: readonly string[];
  accessUntil: Date | null;
}): Access {
  return {
    role: member.role,
    memberId: member.id,
    personEmail: member.email,
    allCameras: member.allCameras,
    cameraIds: new Set(member.allCameras ? [] : member.iccids),
    accessUntil: member.accessUntil,
  };
}

export function abilitiesOf(role: AccessRole): AccessAbilities {
  return abilitiesByRole[role];
}

export function hasAbility(access: Access, ability: Ability): boolean {
  return abilitiesByRole[access.role][ability];
}

/** Whether this camera (ICCID) is within the person's cameras. */
export function mayReachCamera(access: Access, iccid: string): boolean {
  return access.allCameras || access.cameraIds.has(iccid);
}

/** Lists keep only the cameras the person may reach. */
export function withinCameras<T>(access: Access, items: T[], iccidOf: (item: T) => string): T[] {
  if (access.allCameras) return items;
  return items.filter((item) => access.cameraIds.has(iccidOf(item)));
}

/** Refusals say what the person can do about it. */
export const notAllowedMessages: Record<Ability, string> = {
  manageCameras: 'Your role on this account lets you watch cameras but not change them.',
  manageBilling: 'Only the account owner can manage payments and invoices.',
  activateSims: 'Only the account owner can activate new SIMs.',
  manageTeam: 'Only the account owner can manage the team.',
  viewActivity: "Only the account owner can read the account's activity.",
};
