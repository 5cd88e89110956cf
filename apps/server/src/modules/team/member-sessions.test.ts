import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accountMemberCameras, auditLog, sims } from '../../db/schema.ts';
import { authRepository } from '../auth/auth.repository.ts';
import { teamRepository } from './team.repository.ts';
import { createSignedInMember, signInMember } from '../../../test/helpers/members.ts';
import {
  bearer,
  createTestContext,
  impersonate,
  insertCustomer,
  insertStaff,
  signInCustomer,
  signInStaff,
  type TestContext,
} from '../../../test/helpers/test-app.ts';

let context: TestContext;
let ownerId: string;
const gate = '8944000000000000101';
const barn = '8944000000000000102';

beforeAll(async () => {
  context = await createTestContext();
  ownerId = await insertCustomer(context, 'owner@example.com');
  await context.database.db.insert(sims).values([
    { iccid: gate, state: 'active', customerId: ownerId, nickname: 'Gate' },
    { iccid: barn, state: 'active', customerId: ownerId, nickname: 'Barn' },
  ]);
  await insertStaff(context, 'staff@example.com', 'admin');
});
afterAll(() => context.close());

const userData = (headers: Record<string, string>) =>
  context.app.inject({ method: 'GET', url: '/api/auth/user-data', headers });

const ownerAbilities = {
  manageCameras: true,
  manageBilling: true,
  activateSims: true,
  manageTeam: true,
  viewActivity: true,
};

describe("a member's session", () => {
  it("is the member's, on the owner's account, with their role, cameras and last day", async () => {
    // The clock is 2026-03-10 12:00 UTC; the last day 2026-04-02 is in British Summer Time.
    const { memberId, headers } = await createSignedInMember(context, ownerId, {
      email: 'vet@example.com',
      role: 'viewer',
      allCameras: false,
      iccids: [gate],
      accessUntil: '2026-04-02',
    });
    const response = await userData(headers);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        email: 'vet@example.com',
        role: 'customer',
        customerId: ownerId,
        impersonation: null,
        access: {
          role: 'viewer',
          accountEmail: 'owner@example.com',
          personEmail: 'vet@example.com',
          allCameras: false,
          cameraIds: [gate],
          accessUntil: '2026-04-02T23:00:00.000Z',
          can: {
            manageCameras: false,
            manageBilling: false,
            activateSims: false,
            manageTeam: false,
            viewActivity: false,
          },
        },
      },
    });
    const [signIn] = await context.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'auth.sign-in'), eq(auditLog.actorId, memberId)));
    expect(signIn).toMatchObject({
      actorType: 'member',
      actorEmail: 'vet@example.com',
      accountId: ownerId,
    });
  });

  it('gives the owner, and staff inside the portal, the whole account; plain staff none', async () => {
    const owner = await userData(bearer(await signInCustomer(context, 'owner@example.com')));
    expect(owner.json().data).toMatchObject({
      email: 'owner@example.com',
      access: {
        role: 'owner',
        accountEmail: 'owner@example.com',
        personEmail: 'owner@example.com',
        allCameras: true,
        cameraIds: [],
        accessUntil: null,
        can: ownerAbilities,
      },
    });
    const staffToken = await signInStaff(context, 'staff@example.com');
    const portal = await userData(bearer(await impersonate(context, staffToken, ownerId)));
    expect(portal.json().data).toMatchObject({
      email: 'owner@example.com',
      access: { role: 'owner', accountEmail: 'owner@example.com', can: ownerAbilities },
    });
    const plain = await userData(bearer(staffToken));
    expect(plain.json().data).toMatchObject({ email: 'staff@example.com', access: null });
  });

  it('ends at once when the member is removed, even while its answer is in memory', async () => {
    const { memberId, headers } = await createSignedInMember(context, ownerId, {
      email: 'removed-later@example.com',
      role: 'manager',
    });
    expect((await userData(headers)).statusCode).toBe(200);
    const read = vi.spyOn(authRepository, 'findSessionByTokenHash');
    expect((await userData(headers)).statusCode).toBe(200);
    expect(read).not.toHaveBeenCalled();
    read.mockRestore();

    // As another process would: straight in the database. The manual clock does not move.
    const now = context.clock.now();
    await teamRepository.updateMember(context.database.db, memberId, {
      removedAt: now,
      updatedAt: now,
    });
    await vi.waitFor(async () => expect((await userData(headers)).statusCode).toBe(401));
  });

  it('is refused for a member removed or past their last day', async () => {
    const removed = await createSignedInMember(context, ownerId, {
      email: 'gone@example.com',
      role: 'viewer',
      removed: true,
    });
    const expired = await createSignedInMember(context, ownerId, {
      email: 'contractor@example.com',
      role: 'manager',
      expired: true,
    });
    await vi.waitFor(async () => {
      expect((await userData(removed.headers)).statusCode).toBe(401);
      expect((await userData(expired.headers)).statusCode).toBe(401);
    });
    // Nor does asking for a new link.
    await expect(signInMember(context, removed.memberId)).rejects.toThrow('No link');
  });

  it('ends at the UK midnight after the last day, whatever the memory holds', async () => {
    const day = context.clock.now().toISOString().slice(0, 10);
    const { headers } = await createSignedInMember(context, ownerId, {
      email: 'one-day@example.com',
      role: 'viewer',
      accessUntil: day,
    });
    expect((await userData(headers)).statusCode).toBe(200);
    // 2026-03-10 is GMT: access ends at 2026-03-11T00:00Z.
    context.clock.set(new Date(`${day}T23:59:59.000Z`));
    expect((await userData(headers)).statusCode).toBe(200);
    context.clock.set(new Date(`${day}T23:59:59.999Z`));
    expect((await userData(headers)).statusCode).toBe(200);
    context.clock.set(new Date('2026-03-11T00:00:00.000Z'));
    expect((await userData(headers)).statusCode).toBe(401);
    context.clock.set(new Date('2026-03-10T12:00:00Z'));
  });

  it('follows changes to the cameras at once', async () => {
    const { memberId, headers } = await createSignedInMember(context, ownerId, {
      email: 'herd@example.com',
      role: 'viewer',
      allCameras: false,
      iccids: [gate],
    });
    const cameraIds = async () =>
      (await userData(headers)).json<{ data: { access: { cameraIds: string[] } } }>().data.access
        .cameraIds;
    expect(await cameraIds()).toEqual([gate]);
    await context.database.db.insert(accountMemberCameras).values({ memberId, iccid: barn });
    await vi.waitFor(async () => expect(await cameraIds()).toEqual([gate, barn]));
  });
});
