import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect, vi } from 'vitest';
import { teamRepository } from '../../src/modules/team/team.repository.ts';
import { abilitiesOf, type Ability } from '../../src/modules/auth/access.ts';
import { createSignedInMember } from './members.ts';
import {
  bearer,
  impersonate,
  insertCustomer,
  insertStaff,
  signInCustomer,
  signInStaff,
  type TestContext,
} from './test-app.ts';

type Headers = Record<string, string>;

/** The owner's farm team (decision 091), added once the owner's cameras exist (`addMembers`). */
export type MemberActor =
  | 'manager'
  | 'managerOfOther'
  | 'viewerOfThis'
  | 'viewerOfOther'
  | 'expiredMember'
  | 'removedMember';

export type ActorName =
  | 'owner'
  | MemberActor
  | 'otherCustomer'
  | 'team'
  | 'admin'
  | 'teamUnscoped'
  | 'adminUnscoped'
  | 'anonymous';

export interface Actors {
  ownerId: string;
  otherCustomerId: string;
  /** Headers per role. team/admin are staff inside the owner's portal (the only way staff reach
   * customer data); the `*Unscoped` ones are plain staff sessions. Members are there after
   * `addMembers`. */
  headers: {
    owner: Headers;
    otherCustomer: Headers;
    anonymous: Headers;
    team: Headers;
    admin: Headers;
    teamUnscoped: Headers;
    adminUnscoped: Headers;
  } & Partial<Record<MemberActor, Headers>>;
  /** The members' ids, after `addMembers`. */
  memberIds?: Record<MemberActor, string>;
  /** The camera under test and another of the owner's cameras, after `addMembers`. */
  cameras?: { thisIccid: string; otherIccid: string };
}

let actorCounter = 0;

/** An owner, a second customer, and team and admin staff, all signed in through the real flows. */
export async function createActors(context: TestContext, ownerEmail?: string): Promise<Actors> {
  actorCounter += 1;
  const suffix = `${actorCounter}-${Date.now()}`;
  const ownerAddress = ownerEmail ?? `owner-${suffix}@example.com`;
  const ownerId = await insertCustomer(context, ownerAddress);
  const otherCustomerId = await insertCustomer(context, `other-${suffix}@example.com`);
  await insertStaff(context, `team-${suffix}@example.com`, 'team');
  await insertStaff(context, `admin-${suffix}@example.com`, 'admin');
  const teamToken = await signInStaff(context, `team-${suffix}@example.com`);
  const adminToken = await signInStaff(context, `admin-${suffix}@example.com`);
  return {
    ownerId,
    otherCustomerId,
    headers: {
      owner: bearer(await signInCustomer(context, ownerAddress)),
      otherCustomer: bearer(await signInCustomer(context, `other-${suffix}@example.com`)),
      anonymous: {},
      team: bearer(await impersonate(context, teamToken, ownerId)),
      admin: bearer(await impersonate(context, adminToken, ownerId)),
      teamUnscoped: bearer(teamToken),
      adminUnscoped: bearer(adminToken),
    },
  };
}

/**
 * The authorization check every customer endpoint must pass: the owner and staff inside the
 * owner's portal succeed; another customer, an anonymous caller and staff outside a portal are
 * refused. `request` builds the call; it is run once per role.
 */
export async function expectOwnerOnly(
  context: TestContext,
  actors: Actors,
  request: () => InjectOptions,
  expected: { ownerStatus?: number; otherCustomerStatus?: number } = {},
): Promise<void> {
  const ownerStatus = expected.ownerStatus ?? 200;
  await expectAccessMatrix(context, actors, request, {
    owner: ownerStatus,
    team: ownerStatus,
    admin: ownerStatus,
    otherCustomer: expected.otherCustomerStatus ?? 404,
    anonymous: 401,
    teamUnscoped: 403,
    adminUnscoped: 403,
  });
}

/**
 * Adds the owner's team, each signed in through the real sign-in (test/helpers/members.ts):
 * a manager of all cameras, a manager of the other camera only, a viewer of the camera under
 * test, a viewer of the other camera, and two managers of all cameras whose access has ended
 * (one past their last day, one removed) while they still hold a session. Call it once the
 * owner's cameras exist.
 */
export async function addMembers(
  context: TestContext,
  actors: Actors,
  cameras: { thisIccid: string; otherIccid: string },
): Promise<Actors & { memberIds: Record<MemberActor, string> }> {
  const suffix = `${actorCounter}-${Date.now()}`;
  const specs: Record<MemberActor, Parameters<typeof createSignedInMember>[2]> = {
    manager: { email: `manager-${suffix}@example.com`, role: 'manager' },
    managerOfOther: {
      email: `manager-other-${suffix}@example.com`,
      role: 'manager',
      allCameras: false,
      iccids: [cameras.otherIccid],
    },
    viewerOfThis: {
      email: `viewer-this-${suffix}@example.com`,
      role: 'viewer',
      allCameras: false,
      iccids: [cameras.thisIccid],
    },
    viewerOfOther: {
      email: `viewer-other-${suffix}@example.com`,
      role: 'viewer',
      allCameras: false,
      iccids: [cameras.otherIccid],
    },
    expiredMember: { email: `contractor-${suffix}@example.com`, role: 'manager' },
    removedMember: { email: `removed-${suffix}@example.com`, role: 'manager', removed: true },
  };
  const headers: Partial<Record<MemberActor, Headers>> = {};
  const memberIds = {} as Record<MemberActor, string>;
  for (const [name, spec] of Object.entries(specs) as [
    MemberActor,
    (typeof specs)[MemberActor],
  ][]) {
    const member = await createSignedInMember(context, actors.ownerId, spec);
    headers[name] = member.headers;
    memberIds[name] = member.memberId;
  }
  // The contractor's last day was yesterday (UK): access ended at midnight.
  const now = context.clock.now();
  await teamRepository.updateMember(context.database.db, memberIds.expiredMember, {
    accessUntil: new Date(now.getTime() - 60_000),
    updatedAt: now,
  });
  // Sessions in memory follow the change through the database's notification.
  await vi.waitFor(async () => {
    for (const name of ['expiredMember', 'removedMember'] as const) {
      const response = await context.app.inject({
        method: 'GET',
        url: '/api/auth/user-data',
        headers: headers[name],
      });
      expect(response.statusCode).toBe(401);
    }
  });
  return { ...actors, headers: { ...actors.headers, ...headers }, memberIds, cameras };
}

/** What a route asks of the person (decision 091). */
export interface AccessRule {
  /** The ability a change needs (403 without it); `read` is any role. */
  ability: Ability | 'read';
  /** The route names one camera (or its billing account): 404 outside the person's cameras. */
  camera: boolean;
}

/** The expected status per actor: a number, or `ok` for whatever the owner gets. */
export type AccessMatrix = Partial<Record<ActorName, number | 'ok'>>;

const memberRoles: Record<MemberActor, { role: 'manager' | 'viewer'; reachesThis: boolean }> = {
  manager: { role: 'manager', reachesThis: true },
  managerOfOther: { role: 'manager', reachesThis: false },
  viewerOfThis: { role: 'viewer', reachesThis: true },
  viewerOfOther: { role: 'viewer', reachesThis: false },
  expiredMember: { role: 'manager', reachesThis: true },
  removedMember: { role: 'manager', reachesThis: true },
};

/**
 * The matrix a rule implies, from the roles' own table (auth/access.ts): the owner and staff in
 * the owner's portal get through; a member whose role lacks the ability gets 403 (asked before
 * the camera, so it tells nothing about the camera), one outside the camera 404, one whose access
 * ended 401; another customer 404 for the owner's camera (or their own answer, `ok`, elsewhere);
 * plain staff 403; a stranger 401.
 */
export function matrixOf(
  rule: AccessRule,
  otherCustomer: number | 'ok' = rule.camera ? 404 : 'ok',
): AccessMatrix {
  const matrix: AccessMatrix = {
    owner: 'ok',
    team: 'ok',
    admin: 'ok',
    otherCustomer,
    teamUnscoped: 403,
    adminUnscoped: 403,
    anonymous: 401,
  };
  for (const [name, member] of Object.entries(memberRoles) as [
    MemberActor,
    (typeof memberRoles)[MemberActor],
  ][]) {
    if (name === 'expiredMember' || name === 'removedMember') matrix[name] = 401;
    else if (rule.ability !== 'read' && !abilitiesOf(member.role)[rule.ability]) matrix[name] = 403;
    else if (rule.camera && !member.reachesThis) matrix[name] = 404;
    else matrix[name] = 'ok';
  }
  return matrix;
}

/**
 * Runs `request` once per actor in `expected` and compares every status at once. `ok` is the
 * owner's status, which must be an answer past the checks: not 401/403, nor the 404 another
 * customer gets (the owner's own 404, e.g. 'No such clip', says something else). Zero leaks:
 * every refusal with 404 says exactly what another customer's says, so a camera outside one's
 * own cannot be told from one that does not exist.
 */
export async function expectAccessMatrix(
  context: TestContext,
  actors: Actors,
  request: () => InjectOptions,
  expected: AccessMatrix,
  label = '',
): Promise<Partial<Record<ActorName, LightMyRequestResponse>>> {
  const responses: Partial<Record<ActorName, LightMyRequestResponse>> = {};
  for (const name of Object.keys(expected) as ActorName[]) {
    const headers = actors.headers[name];
    if (!headers) throw new Error(`No ${name} among the actors: call addMembers first`);
    const options = request();
    responses[name] = await context.app.inject({
      ...options,
      headers: { ...options.headers, ...headers },
    });
  }
  const ownerStatus = responses.owner?.statusCode;
  const stranger = responses.otherCustomer;
  if (Object.values(expected).includes('ok')) {
    const pastTheChecks = `${label} the owner's answer must be past the checks`;
    expect(ownerStatus, pastTheChecks).not.toBeOneOf([401, 403]);
    if (ownerStatus === 404 && stranger?.statusCode === 404) {
      expect(responses.owner!.json(), pastTheChecks).not.toEqual(stranger.json());
    }
  }
  const statuses = Object.fromEntries(
    Object.entries(responses).map(([name, response]) => [name, response.statusCode]),
  );
  const wanted = Object.fromEntries(
    Object.entries(expected).map(([name, status]) => [
      name,
      status === 'ok' ? ownerStatus : status,
    ]),
  );
  expect(statuses, label).toEqual(wanted);
  if (stranger?.statusCode === 404) {
    for (const [name, response] of Object.entries(responses)) {
      if (response.statusCode === 404 && expected[name as ActorName] === 404) {
        expect(response.json(), `${label} ${name}'s 404`).toEqual(stranger.json());
      }
    }
  }
  return responses;
}
