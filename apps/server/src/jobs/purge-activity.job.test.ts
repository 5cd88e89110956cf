import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { auditLog } from '../db/schema.ts';
import { dayMs } from '../lib/business-calendar.ts';
import { ManualClock } from '../lib/clock.ts';
import { createActivityService } from '../modules/activity/activity.service.ts';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import { purgeActivityJob } from './purge-activity.job.ts';

describe('purge-activity', () => {
  let database: DatabaseHandle;
  beforeEach(async () => {
    database = await openTestDatabase();
  });
  afterEach(() => database.close());

  const entry = (action: string, at: Date) => ({
    actorType: 'system' as const,
    actorId: null,
    action,
    details: {},
    at,
  });

  it('keeps the retention (400 days by default) and deletes what is older, as the clock moves', async () => {
    const clock = new ManualClock('2027-06-01T12:00:00Z');
    const daysAgo = (days: number) => new Date(clock.now().getTime() - days * dayMs);
    await database.db
      .insert(auditLog)
      .values([
        entry('older-than-retention', daysAgo(401)),
        entry('thirteen-months-old', daysAgo(396)),
        entry('yesterday', daysAgo(1)),
      ]);
    const retentionDays = loadConfig({}).activityRetentionDays;
    expect(retentionDays).toBe(400);
    const job = purgeActivityJob({
      activity: createActivityService({ db: database.db, clock, retentionDays }),
    });
    const left = async () =>
      (await database.db.select({ action: auditLog.action }).from(auditLog))
        .map((row) => row.action)
        .sort();

    await job.handle({});
    expect(await left()).toEqual(['thirteen-months-old', 'yesterday']);

    // Five days on, the 13-month-old entry passes 400 days too.
    clock.advance(5 * dayMs);
    await job.handle({});
    expect(await left()).toEqual(['yesterday']);
  });

  it('deletes in batches until nothing old is left', async () => {
    const clock = new ManualClock('2027-06-01T12:00:00Z');
    const old = new Date(clock.now().getTime() - 500 * dayMs);
    await database.db
      .insert(auditLog)
      .values(Array.from({ length: 5_100 }, (_, index) => entry(`old-${index}`, old)));
    const activity = createActivityService({ db: database.db, clock, retentionDays: 400 });
    expect(await activity.purgeExpired()).toEqual({ deleted: 5_100 });
    expect(await database.db.select().from(auditLog)).toEqual([]);
  });

  it('never keeps less than 13 months, whatever it is given', async () => {
    expect(() => loadConfig({ ACTIVITY_RETENTION_DAYS: '365' })).toThrow(
      /ACTIVITY_RETENTION_DAYS must keep at least 13 months/,
    );
    const clock = new ManualClock('2027-06-01T12:00:00Z');
    await database.db
      .insert(auditLog)
      .values([entry('thirteen-months-old', new Date(clock.now().getTime() - 396 * dayMs))]);
    const activity = createActivityService({ db: database.db, clock, retentionDays: 30 });
    await activity.purgeExpired();
    expect(await database.db.select().from(auditLog)).toHaveLength(1);
  });
});
