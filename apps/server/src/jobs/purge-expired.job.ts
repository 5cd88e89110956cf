import { and, isNotNull, lt, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client.ts';
import {
  billingEngineEvents,
  livestreamViewerDays,
  loginTokens,
  mailQueue,
  rateLimits,
  sessions,
  staffPasswordTokens,
} from '../db/schema.ts';
import { businessDay, dayMs, previousDay } from '../lib/business-calendar.ts';
import type { Clock } from '../lib/clock.ts';
import { mailDeliveryPolicy } from '../providers/mail/mail-delivery-policy.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Delivered billing events are kept this long for support to read (decision 077); the invoices,
 * payments and audit log keep the money's history for good.
 */
export const deliveredBillingEventDays = 30;

/**
 * Hourly: delete login and set-password links, sessions, rate-limit windows, delivered
 * billing events, livestream viewer-days (only today's count a viewer once, decision 096) and
 * settled e-mails of the mail queue (decision 104) that can no longer matter.
 */
export function purgeExpiredJob(deps: { db: Database; clock: Clock }): JobDefinition<object> {
  return {
    name: 'purge-expired',
    payload: z.object({}),
    cron: '17 * * * *',
    async handle() {
      const now = deps.clock.now();
      const dayAgo = new Date(now.getTime() - dayMs);
      await deps.db.delete(loginTokens).where(lt(loginTokens.expiresAt, dayAgo));
      await deps.db.delete(staffPasswordTokens).where(lt(staffPasswordTokens.expiresAt, dayAgo));
      await deps.db
        .delete(sessions)
        .where(
          or(
            lt(sessions.expiresAt, dayAgo),
            and(isNotNull(sessions.revokedAt), lt(sessions.revokedAt, dayAgo)),
            sql`${sessions.lastSeenAt} + make_interval(secs => ${sessions.idleTimeoutSeconds}) < ${dayAgo.toISOString()}::timestamptz`,
          ),
        );
      await deps.db.delete(rateLimits).where(lt(rateLimits.resetAt, now));
      // Yesterday's are kept a day (a request around midnight), older ones counted nothing more.
      await deps.db
        .delete(livestreamViewerDays)
        .where(lt(livestreamViewerDays.day, previousDay(businessDay(now))));
      await deps.db
        .delete(billingEngineEvents)
        .where(
          lt(
            billingEngineEvents.deliveredAt,
            new Date(now.getTime() - deliveredBillingEventDays * dayMs),
          ),
        );
      // Sent, expired or given up a month ago: support has had its look (the bodies went at once).
      await deps.db
        .delete(mailQueue)
        .where(
          lt(
            mailQueue.settledAt,
            new Date(now.getTime() - mailDeliveryPolicy.keepSettledDays * dayMs),
          ),
        );
    },
  };
}
