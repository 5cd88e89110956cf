import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../db/client.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { createActors, expectOwnerOnly, type Actors } from '../../../test/helpers/authorization.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';

let context: TestContext;
let actors: Actors;
beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, 'demo@example.com');
  await seedDemoData(context.database.db, context.clock);
});
afterAll(() => context.close());

const usage = (query: string, iccid = demoIccid(101), headers = actors.headers.owner) =>
  context.app.inject({ method: 'GET', url: `/api/data-usage/${iccid}?${query}`, headers });

describe('GET /api/data-usage/{iccid}', () => {
  it('gives GB per day for every day of the range up to today, matching the stored bytes', async () => {
    const response = await usage('startDate=2026-03-01&endDate=2026-03-31');
    expect(response.statusCode).toBe(200);
    const { dailyGB } = response.json<{ dailyGB: Record<string, number> }>();
    // Business time is 2026-03-10: the days to come are left out.
    expect(Object.keys(dailyGB)).toEqual(
      Array.from({ length: 10 }, (_, index) => `2026-03-${String(index + 1).padStart(2, '0')}`),
    );
    const rows = await queryRows<{ day: string; bytes: number }>(
      context.database.db,
      sql`select day::text as day, bytes::float8 as bytes from daily_usage
          where sim_iccid = ${demoIccid(101)} and day between '2026-03-01' and '2026-03-10'`,
    );
    for (const row of rows) expect(dailyGB[row.day]).toBeCloseTo(Number(row.bytes) / 1e9, 3);
  });

  it('accepts the end date spelled endData (docs/requirements.md#api)', async () => {
    const endDate = await usage('startDate=2026-02-01&endDate=2026-02-28');
    const endData = await usage('startDate=2026-02-01&endData=2026-02-28');
    expect(endData.statusCode).toBe(200);
    expect(endData.json()).toEqual(endDate.json());
    expect(Object.keys(endData.json<{ dailyGB: object }>().dailyGB)).toHaveLength(28);
  });

  it('spans a year end (the January range starts in December)', async () => {
    const response = await usage('startDate=2025-12-01&endDate=2026-01-31');
    expect(Object.keys(response.json<{ dailyGB: object }>().dailyGB)).toHaveLength(62);
  });

  it('fills days without data with 0, for a paused camera too', async () => {
    const response = await usage('startDate=2026-03-01&endDate=2026-03-05', demoIccid(105));
    expect(response.json()).toEqual({
      dailyGB: {
        '2026-03-01': 0,
        '2026-03-02': 0,
        '2026-03-03': 0,
        '2026-03-04': 0,
        '2026-03-05': 0,
      },
      todaySoFar: null,
    });
  });

  it('says when the last day is today, still being counted (decision 143)', async () => {
    const response = await usage('startDate=2026-03-01&endDate=2026-03-31');
    expect(response.json<{ todaySoFar: string | null }>().todaySoFar).toBe('2026-03-10');
    const past = await usage('startDate=2026-02-01&endDate=2026-02-28');
    expect(past.json<{ todaySoFar: string | null }>().todaySoFar).toBeNull();
  });

  it('answers an empty map for a range wholly in the future', async () => {
    const response = await usage('startDate=2026-04-01&endDate=2026-04-30');
    expect(response.json()).toEqual({ dailyGB: {}, todaySoFar: null });
  });

  it.each([
    ['endDate=2026-03-31', 'Choose a start date.'],
    ['startDate=2026-03-01', 'Choose an end date.'],
    ['startDate=2026-02-30&endDate=2026-03-31', 'That date does not exist.'],
    ['startDate=1%2F3%2F2026&endDate=2026-03-31', 'Enter the date as YYYY-MM-DD, e.g. 2026-04-01.'],
    ['startDate=2026-03-31&endDate=2026-03-01', 'The end date must not be before the start date.'],
    ['startDate=2024-01-01&endDate=2026-03-31', 'The range may cover at most 400 days'],
  ])('refuses %s with a clear 400', async (query, message) => {
    const response = await usage(query);
    expect(response.statusCode).toBe(400);
    expect(response.json<{ code: string; message: string }>()).toEqual({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining(message),
      field: expect.stringMatching(/^(startDate|endDate)$/),
    });
  });

  it('refuses a malformed ICCID with 400', async () => {
    const response = await usage('startDate=2026-03-01&endDate=2026-03-31', '89441100000000');
    expect(response.statusCode).toBe(400);
  });

  it("is for the owner only: another customer's camera is not found", async () => {
    await expectOwnerOnly(context, actors, () => ({
      method: 'GET',
      url: `/api/data-usage/${demoIccid(101)}?startDate=2026-03-01&endDate=2026-03-31`,
    }));
    const second = await usage('startDate=2026-03-01&endDate=2026-03-31', demoIccid(201));
    expect(second.statusCode).toBe(404);
  });
});
