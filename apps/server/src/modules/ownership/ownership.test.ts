import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData, demoIccid } from '../../seed/demo.ts';
import { customers } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { memberAccess, ownerAccess } from '../auth/access.ts';
import {
  requireOwnedBillingCustomer,
  requireOwnedSim,
  requireReachableBillingCustomer,
} from './ownership.ts';

let context: TestContext;
let ids: Record<string, string>;
beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
  const rows = await context.database.db.select().from(customers);
  ids = Object.fromEntries(rows.map((row) => [row.email, row.id]));
});
afterAll(() => context.close());

describe('ownership', () => {
  it('resolves a SIM for its owner and answers NOT_FOUND for anyone else', async () => {
    const iccid = demoIccid(101);
    const sim = await requireOwnedSim(context.database.db, ids['demo@example.com']!, iccid);
    expect(sim.nickname).toBe('Top gate');
    const refused = requireOwnedSim(context.database.db, ids['second@example.com']!, iccid);
    await expect(refused).rejects.toBeInstanceOf(AppError);
    await expect(refused).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('resolves a billing account for its owner only', async () => {
    const sim = await requireOwnedSim(
      context.database.db,
      ids['demo@example.com']!,
      demoIccid(102),
    );
    const account = await requireOwnedBillingCustomer(
      context.database.db,
      ids['demo@example.com']!,
      sim.billingCustomerId!,
    );
    expect(account.email).toBe('demo@example.com');
    await expect(
      requireOwnedBillingCustomer(
        context.database.db,
        ids['second@example.com']!,
        sim.billingCustomerId!,
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("resolves a billing account for a member only when all its cameras are the member's", async () => {
    const { db } = context.database;
    const owner = ids['demo@example.com']!;
    const sim = await requireOwnedSim(db, owner, demoIccid(102));
    const member = (iccids: string[]) =>
      memberAccess({
        id: 'member',
        email: 'vet@example.com',
        role: 'viewer',
        allCameras: false,
        iccids,
        accessUntil: null,
      });
    const reach = (access: Parameters<typeof requireReachableBillingCustomer>[1]) =>
      requireReachableBillingCustomer(db, access, owner, sim.billingCustomerId!);
    await expect(reach(ownerAccess('demo@example.com'))).resolves.toMatchObject({
      id: sim.billingCustomerId,
    });
    await expect(reach(member([demoIccid(102)]))).resolves.toMatchObject({
      id: sim.billingCustomerId,
    });
    // Another camera's member is told what a stranger is told.
    await expect(reach(member([demoIccid(101)]))).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Billing account not found',
    });
  });
});
