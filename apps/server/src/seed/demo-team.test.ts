import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountMembers, appSettings } from '../db/schema.ts';
import { teamRepository } from '../modules/team/team.repository.ts';
import { signInMember } from '../../test/helpers/members.ts';
import { bearer, createTestContext, type TestContext } from '../../test/helpers/test-app.ts';
import { demoIccid, demoMember, seedDemoData } from './demo.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
});
afterAll(() => context.close());

const vets = () =>
  context.database.db
    .select()
    .from(accountMembers)
    .where(and(eq(accountMembers.email, demoMember.email), isNull(accountMembers.removedAt)));

describe('the demo team', () => {
  it('has vet@example.com, a Viewer of one camera, who signs in and sees just that camera', async () => {
    const [vet] = await vets();
    expect(vet).toMatchObject({ role: 'viewer', allCameras: false, acceptedAt: expect.any(Date) });
    const token = await signInMember(context, vet!.id);
    const userData = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: bearer(token),
    });
    expect(userData.json().data).toMatchObject({
      email: 'vet@example.com',
      access: {
        role: 'viewer',
        accountEmail: 'demo@example.com',
        cameraIds: [demoIccid(demoMember.cameraSerial)],
      },
    });
  });

  it('is added once, also to demo data seeded before teams, and a removed vet stays removed', async () => {
    expect(await seedDemoData(context.database.db, context.clock)).toBe(false);
    expect(await vets()).toHaveLength(1);

    // Demo data from before teams: no team marker and no vet.
    const [vet] = await vets();
    const now = context.clock.now();
    await teamRepository.updateMember(context.database.db, vet!.id, {
      removedAt: now,
      updatedAt: now,
    });
    expect(await seedDemoData(context.database.db, context.clock)).toBe(false);
    expect(await vets()).toHaveLength(0);
    await context.database.db
      .delete(appSettings)
      .where(eq(appSettings.key, 'demo-team-seed-version'));
    await seedDemoData(context.database.db, context.clock);
    expect(await vets()).toHaveLength(1);
  });
});
