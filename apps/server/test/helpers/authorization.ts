import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import {
  bearer,
  impersonate,
  insertCustomer,
  insertStaff,
  signInCustomer,
  signInStaff,
  type TestContext,
} from './test-app.ts';

export interface Actors {
  ownerId: string;
  otherCustomerId: string;
  /** Headers per role. team/admin are staff inside the owner's portal (the only way staff reach
   * customer data); the `*Unscoped` ones are plain staff sessions. */
  headers: {
    owner: Record<string, string>;
    otherCustomer: Record<string, string>;
    anonymous: Record<string, string>;
    team: Record<string, string>;
    admin: Record<string, string>;
    teamUnscoped: Record<string, string>;
    adminUnscoped: Record<string, string>;
  };
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
  const run = (headers: Record<string, string>) => {
    const options = request();
    return context.app.inject({ ...options, headers: { ...options.headers, ...headers } });
  };
  const ownerStatus = expected.ownerStatus ?? 200;
  const results = {
    owner: (await run(actors.headers.owner)).statusCode,
    team: (await run(actors.headers.team)).statusCode,
    admin: (await run(actors.headers.admin)).statusCode,
    otherCustomer: (await run(actors.headers.otherCustomer)).statusCode,
    anonymous: (await run(actors.headers.anonymous)).statusCode,
    teamUnscoped: (await run(actors.headers.teamUnscoped)).statusCode,
    adminUnscoped: (await run(actors.headers.adminUnscoped)).statusCode,
  };
  expect(results).toEqual({
    owner: ownerStatus,
    team: ownerStatus,
    admin: ownerStatus,
    otherCustomer: expected.otherCustomerStatus ?? 404,
    anonymous: 401,
    teamUnscoped: 403,
    adminUnscoped: 403,
  });
}
