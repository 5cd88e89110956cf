import type {
  EligiblePlansResponse,
  PricingTableResponse,
  RenewalPlansResponse,
} from '@farmcam/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActors, type Actors } from '../../../test/helpers/authorization.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { sims } from '../../db/schema.ts';
import { catalogueProducts } from '../../seed/catalogue.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { planFeatures } from './plan-features.ts';

let context: TestContext;
let actors: Actors;
const billingCustomerOf = new Map<string, string>();

beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, 'demo@example.com');
  await seedDemoData(context.database.db, context.clock);
  for (const row of await context.database.db.select().from(sims)) {
    if (row.billingCustomerId) billingCustomerOf.set(row.iccid, row.billingCustomerId);
  }
});
afterAll(() => context.close());

async function get<Body>(url: string): Promise<Body> {
  const response = await context.app.inject({ method: 'GET', url, headers: actors.headers.owner });
  expect(response.statusCode, url).toBe(200);
  return response.json<Body>();
}

describe('planFeatures', () => {
  it('promises only what the plan data says', () => {
    expect(planFeatures({ dataAllowanceGb: 5, metadata: {} })).toEqual(['5 GB of data a month']);
    expect(
      planFeatures({ dataAllowanceGb: 50, metadata: { Hours: '120', Provider: 'multi-network' } }),
    ).toEqual([
      '50 GB of data a month',
      'Livestreaming to your website, 120 hours a month',
      'Multi-network SIM',
    ]);
    // Metadata that says nothing usable adds nothing.
    expect(
      planFeatures({ dataAllowanceGb: 15, metadata: { Hours: 'lots', Provider: ' ' } }),
    ).toEqual(['15 GB of data a month']);
    expect(planFeatures({ dataAllowanceGb: 15, metadata: { Provider: 'Vodafone' } })).toEqual([
      '15 GB of data a month',
      'SIM on the Vodafone network',
    ]);
  });
});

describe('every answer that shows a plan says the same of it (decision 110)', () => {
  it('gives the wizard, Manage plan and the renewal page one list of features per plan', async () => {
    const wizard = await get<PricingTableResponse>('/api/activation/pricing-tables/local_uk');
    const topGate = demoIccid(101);
    const managePlan = await get<EligiblePlansResponse>(
      `/api/subscriptions/fetch-eligible-plans/${billingCustomerOf.get(topGate)}`,
    );
    const machineryShed = demoIccid(110);
    const renewal = await get<RenewalPlansResponse>(
      `/api/subscriptions/renewal-plans/${billingCustomerOf.get(machineryShed)}/${machineryShed}?location=uk`,
    );

    const fromWizard = Object.fromEntries(
      wizard.plans.map((plan) => [plan.price_id, plan.features]),
    );
    const fromManagePlan = Object.fromEntries(
      managePlan.eligible_plans.map((plan) => [plan.id, plan.features]),
    );
    const fromRenewal = Object.fromEntries(renewal.plans.map((plan) => [plan.id, plan.features]));
    expect(Object.keys(fromWizard).sort()).toEqual(Object.keys(fromManagePlan).sort());
    expect(fromManagePlan).toEqual(fromWizard);
    expect(fromRenewal).toEqual(fromWizard);

    // Each is the product's own data in words: Light and Standard promise no multi-network SIM.
    for (const plan of wizard.plans) {
      const product = catalogueProducts.find((candidate) => candidate.id === plan.product_id)!;
      expect(plan.features).toEqual(planFeatures(product));
      expect(plan.features.some((feature) => /Multi-network/.test(feature))).toBe(
        product.metadata.Provider === 'multi-network',
      );
    }
  });
});
