/**
 * A SIM's current plan, joined the one way every query joins it (decision 170): its live
 * subscription before a canceled one, the newest among equals, with that subscription's price
 * and product (decision 081's order).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import { insertCustomer } from '@farmcam/billing-engine';
import { seedCatalogue } from '../seed/demo.ts';
import { queryRows, type DatabaseHandle } from './client.ts';
import { currentPlanOf } from './current-subscription.ts';
import { customers, sims, subscriptions } from './schema.ts';

let database: DatabaseHandle;
let billingCustomerId: string;
let customerId: string;

beforeAll(async () => {
  database = await openTestDatabase();
  await seedCatalogue(database.db);
  const [customer] = await database.db
    .insert(customers)
    .values({ email: 'current-plan@example.com' })
    .returning();
  customerId = customer!.id;
  billingCustomerId = (await insertCustomer(database.db, {
    portalCustomerId: customerId,
    email: customer!.email,
  }))!.id;
});
afterAll(() => database.close());

async function simWith(
  iccid: string,
  plans: { id: string; priceId: string; status: 'active' | 'canceled'; createdAt: string }[],
) {
  await database.db.insert(sims).values({ iccid, state: 'active', customerId });
  for (const plan of plans) {
    await database.db.insert(subscriptions).values({
      ...plan,
      billingCustomerId,
      simIccid: iccid,
      currentPeriodStart: new Date(plan.createdAt),
      currentPeriodEnd: new Date(Date.parse(plan.createdAt) + 30 * 86_400_000),
      billingCycleAnchor: new Date(plan.createdAt),
      createdAt: new Date(plan.createdAt),
    });
  }
}

const planOf = async (iccid: string) =>
  (
    await queryRows<{
      subscription_id: string | null;
      status: string | null;
      interval: string | null;
      product_name: string | null;
      tier: string | null;
      data_allowance_gb: number | null;
      hours: string | null;
    }>(
      database.db,
      sql`select plan.subscription_id, plan.status, plan.interval, plan.product_name, plan.tier,
                 plan.data_allowance_gb, plan.product_metadata->>'Hours' as hours
          from sims s
          left join lateral ${currentPlanOf(sql`s.iccid`)} plan on true
          where s.iccid = ${iccid}`,
    )
  )[0];

describe('currentPlanOf', () => {
  it('joins the live subscription before a newer canceled one, with its price and product', async () => {
    await simWith('8944990000000170001', [
      {
        id: 'sub_plan_heavy',
        priceId: 'price_heavy_year_uk',
        status: 'active',
        createdAt: '2026-01-01T00:00:00Z',
      },
      {
        id: 'sub_plan_light',
        priceId: 'price_light_month_uk',
        status: 'canceled',
        createdAt: '2026-02-01T00:00:00Z',
      },
    ]);
    expect(await planOf('8944990000000170001')).toMatchObject({
      subscription_id: 'sub_plan_heavy',
      status: 'active',
      interval: 'year',
      product_name: 'Heavy Streaming',
      tier: 'heavy',
      data_allowance_gb: 50,
      hours: '120',
    });
  });

  it('takes the newest when none is live, and nothing when there is none', async () => {
    await simWith('8944990000000170002', [
      {
        id: 'sub_plan_old',
        priceId: 'price_light_month_uk',
        status: 'canceled',
        createdAt: '2025-01-01T00:00:00Z',
      },
      {
        id: 'sub_plan_newer',
        priceId: 'price_standard_month_uk',
        status: 'canceled',
        createdAt: '2025-06-01T00:00:00Z',
      },
    ]);
    expect(await planOf('8944990000000170002')).toMatchObject({
      subscription_id: 'sub_plan_newer',
      tier: 'standard',
    });
    await simWith('8944990000000170003', []);
    expect(await planOf('8944990000000170003')).toMatchObject({
      subscription_id: null,
      product_name: null,
    });
  });
});
