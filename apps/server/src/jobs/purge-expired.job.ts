import { and, isNotNull, lt, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client.ts';
import { loginTokens, rateLimits, sessions, staffPasswordTokens } from '../db/schema.ts';
import { dayMs } from '../lib/business-calendar.ts';
import type { Clock } from '../lib/clock.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Hourly: delete login and set-password links, sessions and rate-limit windows that can no
 * longer matter.
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
    },
  };
}
