/**
 * A farm is a team (docs/decisions/091): the account's owner invites members with a role, for all
 * cameras or chosen ones, optionally until a date; the owner reads the account's activity log
 * (docs/decisions/092). The server decides what each person may do and says so in `access`; the
 * web only shows it.
 */
import { z } from 'zod';
import { emailAddress, iccid } from './common.ts';

/** Roles a member can be given. The account's own customer is the Owner. */
export const memberRoles = ['manager', 'viewer'] as const;
export const memberRole = z.enum(memberRoles);
export type MemberRole = z.infer<typeof memberRole>;

/** The role of whoever is signed in to a customer account. */
export const accessRoles = ['owner', 'manager', 'viewer'] as const;
export const accessRole = z.enum(accessRoles);
export type AccessRole = z.infer<typeof accessRole>;

/** What the signed-in person may do, decided by the server; the web hides what is false. */
export const accessAbilities = z.object({
  manageCameras: z.boolean().describe('Rename, pause, change plan, set up and manage livestreams'),
  manageBilling: z.boolean().describe('Payment methods, invoices, the billing portal'),
  activateSims: z.boolean().describe('Activate new SIMs on this account'),
  manageTeam: z.boolean().describe('Invite, change and remove members'),
  viewActivity: z.boolean().describe("Read the account's activity log"),
});
export type AccessAbilities = z.infer<typeof accessAbilities>;

/** Who is signed in to which account, with which role (part of /auth/user-data). */
export const accountAccess = z.object({
  role: accessRole,
  accountEmail: z.string().describe("The account owner's e-mail"),
  personEmail: z.string().describe('The e-mail of the person signed in'),
  allCameras: z.boolean(),
  cameraIds: z.array(z.string()).describe('ICCIDs this person may see when allCameras is false'),
  accessUntil: z.string().nullable().describe('ISO time the access ends, for time-limited members'),
  can: accessAbilities,
});
export type AccountAccess = z.infer<typeof accountAccess>;

// ── The Team screen ─────────────────────────────────────────────────────────────────────────

export const memberStatuses = ['invited', 'active', 'expired'] as const;
export type MemberStatus = (typeof memberStatuses)[number];

export const teamMember = z.object({
  id: z.string(),
  email: z.string(),
  role: memberRole,
  allCameras: z.boolean(),
  cameras: z.array(z.object({ iccid: z.string(), nickname: z.string() })),
  accessUntil: z.string().nullable(),
  status: z.enum(memberStatuses),
  invitedAt: z.string(),
  acceptedAt: z.string().nullable(),
  invitationExpiresAt: z.string().nullable().describe('While invited: when the e-mailed link ends'),
});
export type TeamMember = z.infer<typeof teamMember>;

export const teamResponse = z.object({
  members: z.array(teamMember),
  cameras: z
    .array(z.object({ iccid: z.string(), nickname: z.string() }))
    .describe('The cameras the owner can give access to'),
});
export type TeamResponse = z.infer<typeof teamResponse>;

const memberAccessFields = {
  role: memberRole,
  allCameras: z.boolean(),
  iccids: z
    .array(iccid)
    .max(1000)
    .default([])
    .describe('The cameras, when allCameras is false (at least one)'),
  accessUntil: z.iso
    .date('Enter the last day as a date.')
    .nullable()
    .default(null)
    .describe('The last day (UK time) the member has access; null for no end'),
};

export const inviteMemberBody = z.object({ email: emailAddress, ...memberAccessFields });
export type InviteMemberBody = z.input<typeof inviteMemberBody>;

export const updateMemberBody = z.object(memberAccessFields);
export type UpdateMemberBody = z.input<typeof updateMemberBody>;

export const memberParams = z.object({ memberId: z.uuid('That member was not found.') });

export const memberResponse = z.object({ member: teamMember });
export type MemberResponse = z.infer<typeof memberResponse>;

export const invitationTokenBody = z.object({
  token: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{20,100}$/, 'This invitation link is not valid.'),
});
export type InvitationTokenBody = z.infer<typeof invitationTokenBody>;

// ── The Activity screen ─────────────────────────────────────────────────────────────────────

export const activityCategories = [
  'sign-in',
  'cameras',
  'plans',
  'billing',
  'livestream',
  'team',
  'staff',
] as const;
export const activityCategory = z.enum(activityCategories);
export type ActivityCategory = z.infer<typeof activityCategory>;

export const activityActorKinds = ['owner', 'manager', 'viewer', 'staff', 'system'] as const;
export type ActivityActorKind = (typeof activityActorKinds)[number];

export const activityEntry = z.object({
  id: z.string(),
  at: z.string(),
  category: activityCategory,
  action: z.string().describe('Stable code, e.g. camera.renamed'),
  summary: z.string().describe('A sentence for the owner, e.g. Renamed "Gate" to "Top gate"'),
  actor: z.object({
    kind: z.enum(activityActorKinds),
    email: z.string().nullable(),
    staffEmail: z
      .string()
      .nullable()
      .describe('Set when staff acted inside the customer portal (marked as staff)'),
  }),
  iccid: z.string().nullable(),
  ip: z.string().nullable(),
  place: z
    .string()
    .nullable()
    .describe(
      'Where it came from in words, never the address: "A new network for them", "A network they used before", "A private network" (decision 142)',
    ),
  userAgent: z.string().nullable(),
});
export type ActivityEntry = z.infer<typeof activityEntry>;

export const activityQuery = z.object({
  category: activityCategory.optional(),
  actor: z.string().trim().max(254).optional().describe('Only entries by this e-mail'),
  iccid: iccid.optional(),
  from: z.iso.date().optional().describe('First day (UK time), inclusive'),
  to: z.iso.date().optional().describe('Last day (UK time), inclusive'),
  before: z.string().max(200).optional().describe('The nextCursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});
export type ActivityQuery = z.input<typeof activityQuery>;

export const activityResponse = z.object({
  entries: z.array(activityEntry),
  nextCursor: z.string().nullable(),
});
export type ActivityResponse = z.infer<typeof activityResponse>;
