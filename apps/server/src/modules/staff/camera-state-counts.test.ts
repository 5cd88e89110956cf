import type { CardState, CustomerSearchResponse, PlansResponse } from '@farmcam/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptions } from '../../db/schema.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { createActors, type Actors } from '../../../test/helpers/authorization.ts';
import { withSimChanged } from '../../../test/helpers/sim-change.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { countCameraStates } from './camera-state-counts.ts';

let context: TestContext;
let actors: Actors;
beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, 'demo@example.com');
  await seedDemoData(context.database.db, context.clock);
});
afterAll(() => context.close());

const staffCounts = async () => {
  const response = await context.app.inject({
    method: 'GET',
    url: '/api/staff/customers?q=demo@example.com',
    headers: actors.headers.adminUnscoped,
  });
  expect(response.statusCode).toBe(200);
  return response.json<CustomerSearchResponse>().customers[0]!;
};

const cardStates = async (): Promise<CardState[]> => {
  const response = await context.app.inject({
    method: 'GET',
    url: '/api/cameras/plansV2',
    headers: actors.headers.owner,
  });
  return response.json<PlansResponse>().cameras.map((camera) => camera.cardState);
};

/** The staff counts the dashboard's cards add up to. */
const countsOfCards = (states: CardState[]) => ({
  active: states.filter((state) => state === 'active' || state === 'pause-scheduled').length,
  paused: states.filter((state) => state === 'paused').length,
  attention: states.filter((state) => ['overdue', 'no-subscription', 'attention'].includes(state))
    .length,
  terminated: states.filter((state) => state === 'terminated').length,
});

describe('staff counts of cameras by state (decision 081)', () => {
  it('count each demo camera once, in the state its dashboard card shows', async () => {
    const customer = await staffCounts();
    expect(customer.cameraCount).toBe(10);
    expect(customer.states).toEqual({ active: 5, paused: 1, attention: 3, terminated: 1 });
    expect(customer.states).toEqual(countsOfCards(await cardStates()));
  });

  it('count a terminated SIM whose plan still runs once, as attention', async () => {
    await withSimChanged(context, demoIccid(103), { state: 'terminated' }, async () => {
      const customer = await staffCounts();
      // It used to count as active (its subscription) and as terminated (its SIM): 11 of 10.
      expect(customer.states).toEqual({ active: 4, paused: 1, attention: 4, terminated: 1 });
      expect(Object.values(customer.states).reduce((sum, count) => sum + count)).toBe(
        customer.cameraCount,
      );
      expect(customer.states).toEqual(countsOfCards(await cardStates()));
    });
  });

  it('take the current subscription: a live one before a newer canceled one', async () => {
    const topGate = demoIccid(101);
    const [live] = await context.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.simIccid, topGate));
    await context.database.db.insert(subscriptions).values({
      ...live!,
      id: 'sub_newer_canceled',
      status: 'canceled',
      canceledAt: context.clock.now(),
      createdAt: new Date(context.clock.now().getTime() + 1000),
    });
    try {
      expect((await staffCounts()).states.active).toBe(5);
      expect((await cardStates())[0]).toBe('active');
    } finally {
      await context.database.db
        .delete(subscriptions)
        .where(eq(subscriptions.id, 'sub_newer_canceled'));
    }
  });
});

describe('countCameraStates', () => {
  it('counts a scheduled pause as active and a paused plan by the UK day', () => {
    const group = {
      sim_state: 'active' as const,
      status: 'active' as const,
      pause_starts_on: '2026-04-01',
      pause_resumes_on: '2026-06-01',
      cameras: 2,
    };
    expect(countCameraStates([group], '2026-03-31').states.active).toBe(2);
    expect(countCameraStates([group], '2026-04-01').states).toEqual({
      active: 0,
      paused: 2,
      attention: 0,
      terminated: 0,
    });
  });
});
