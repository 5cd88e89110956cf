import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type DatabaseHandle } from '../../db/client.ts';
import { dailyUsage, sims } from '../../db/schema.ts';
import { openTestDatabase } from '../../../test/helpers/test-database.ts';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await openTestDatabase();
  await database.db.insert(sims).values([{ iccid: '8944550000000000019', state: 'active' }]);
});
afterAll(() => database.close());

const rollup = () =>
  queryRows<{ month: string; bytes: number }>(
    database.db,
    sql`select month::text as month, bytes::float8 as bytes from monthly_usage order by month`,
  );

describe('monthly usage roll-up', () => {
  it('follows inserts, updates, upserts and deletes of daily usage, month by month', async () => {
    const iccid = '8944550000000000019';
    await database.db.insert(dailyUsage).values([
      { simIccid: iccid, day: '2026-02-28', bytes: 100 },
      { simIccid: iccid, day: '2026-03-01', bytes: 10 },
      { simIccid: iccid, day: '2026-03-31', bytes: 20 },
    ]);
    expect(await rollup()).toEqual([
      { month: '2026-02-01', bytes: 100 },
      { month: '2026-03-01', bytes: 30 },
    ]);
    await database.db.execute(sql`update daily_usage set bytes = 25 where day = '2026-03-31'`);
    await database.db
      .insert(dailyUsage)
      .values({ simIccid: iccid, day: '2026-03-01', bytes: 7 })
      .onConflictDoUpdate({
        target: [dailyUsage.simIccid, dailyUsage.day],
        set: { bytes: sql`${dailyUsage.bytes} + excluded.bytes` },
      });
    await database.db.execute(sql`delete from daily_usage where day = '2026-02-28'`);
    expect(await rollup()).toEqual([
      { month: '2026-02-01', bytes: 0 },
      { month: '2026-03-01', bytes: 42 },
    ]);
  });
});
