import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../db/client.ts';
import { billingEngineEvents, livestreamViewerDays, mailQueue } from '../db/schema.ts';
import { dayMs } from '../lib/business-calendar.ts';
import { ManualClock } from '../lib/clock.ts';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import { deliveredBillingEventDays, purgeExpiredJob } from './purge-expired.job.ts';

describe('purge-expired', () => {
  let database: DatabaseHandle;
  beforeEach(async () => {
    database = await openTestDatabase();
  });
  afterEach(() => database.close());

  it('deletes billing events delivered over 30 days ago, never one still waiting for delivery', async () => {
    const clock = new ManualClock('2026-06-01T12:00:00Z');
    const daysAgo = (days: number) => new Date(clock.now().getTime() - days * dayMs);
    await database.db.insert(billingEngineEvents).values([
      { type: 'old-delivered', payload: {}, createdAt: daysAgo(40), deliveredAt: daysAgo(40) },
      {
        type: 'recent-delivered',
        payload: {},
        createdAt: daysAgo(deliveredBillingEventDays - 1),
        deliveredAt: daysAgo(deliveredBillingEventDays - 1),
      },
      // Given up on (no next attempt) or still retrying: support still needs these.
      { type: 'old-undelivered', payload: {}, createdAt: daysAgo(40), nextAttemptAt: null },
    ]);
    const job = purgeExpiredJob({ db: database.db, clock });
    await job.handle({});
    const left = await database.db
      .select({ type: billingEngineEvents.type })
      .from(billingEngineEvents);
    expect(left.map((row) => row.type).sort()).toEqual(['old-undelivered', 'recent-delivered']);
  });

  it('deletes livestream viewer-days before yesterday (UK), which count nothing any more', async () => {
    const clock = new ManualClock('2026-06-10T00:30:00+01:00');
    await database.db.insert(livestreamViewerDays).values(
      ['2026-06-07', '2026-06-08', '2026-06-09', '2026-06-10'].map((day) => ({
        subject: 'stream:x',
        day,
        viewerHash: 'h',
      })),
    );
    await purgeExpiredJob({ db: database.db, clock }).handle({});
    const left = await database.db
      .select({ day: livestreamViewerDays.day })
      .from(livestreamViewerDays);
    expect(left.map((row) => row.day).sort()).toEqual(['2026-06-09', '2026-06-10']);
  });

  it('deletes e-mails settled over 30 days ago, never one still waiting', async () => {
    const clock = new ManualClock('2026-06-01T12:00:00Z');
    const daysAgo = (days: number) => new Date(clock.now().getTime() - days * dayMs);
    const mail = (toAddress: string, status: 'sent' | 'queued', settledAt: Date | null) => ({
      kind: 'other',
      toAddress,
      status,
      createdAt: daysAgo(40),
      settledAt,
    });
    await database.db
      .insert(mailQueue)
      .values([
        mail('old@example.com', 'sent', daysAgo(31)),
        mail('recent@example.com', 'sent', daysAgo(29)),
        mail('waiting@example.com', 'queued', null),
      ]);
    await purgeExpiredJob({ db: database.db, clock }).handle({});
    const left = await database.db.select({ to: mailQueue.toAddress }).from(mailQueue);
    expect(left.map((row) => row.to).sort()).toEqual(['recent@example.com', 'waiting@example.com']);
  });
});
