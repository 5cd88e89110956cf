import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData, demoIccid } from '../../seed/demo.ts';
import { customers } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { requireOwnedBillingCustomer, requireOwnedSim } from './ownership.ts';

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
});
