/**
 * The engine's own idempotency under a race: on PostgreSQL (npm run test:pg) identical calls at
 * once really run side by side, and the loser's insert meets the key (docs/decisions/064).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingCustomers } from '@farmcam/db/schema';
import {
  createTestContext,
  insertCustomer,
  type TestContext,
} from '../../../apps/server/test/helpers/test-app.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
});
afterAll(() => context.close());

describe('local billing engine: a write repeated with the same key', () => {
  it('gives every concurrent caller the first result and writes once', async () => {
    const engine = context.services.billing.engine!;
    const portalCustomerId = await insertCustomer(context, 'race@example.com');
    const input = {
      portalCustomerId,
      email: 'race@example.com',
      currency: 'gbp',
      idempotencyKey: `race-${portalCustomerId}`,
    };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => engine.createCustomer(input)),
    );
    expect(new Set(results.map((customer) => customer.id)).size).toBe(1);
    const rows = await context.database.db
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.customerId, portalCustomerId));
    expect(rows).toHaveLength(1);
  });
});
