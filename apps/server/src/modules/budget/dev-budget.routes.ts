import { iccidParams } from '@farmcam/contract';
import { sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { queryRows, type Database } from '../../db/client.ts';
import { isoDay } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';

/**
 * Development only (never in production, local SIM platform only; app.ts guards it): a camera
 * uses more data today on the local platform, then the usage sync, usage alerts and data caps run
 * at once instead of waiting for the jobs (decision 095).
 */
export const devBudgetRoutes: FastifyPluginAsyncZod<{
  db: Database;
  clock: Clock;
  runChecks: () => Promise<unknown>;
}> = async (app, { db, clock, runChecks }) => {
  app.post(
    '/dev/cameras/:iccid/data-usage',
    {
      schema: {
        tags: ['dev'],
        operationId: 'devAddCameraUsage',
        security: [],
        summary: "The local platform's camera uses `gigabytes` more today; the checks run",
        params: iccidParams,
        body: z.object({ gigabytes: z.number().positive().max(1000) }),
        response: { 200: z.object({ ok: z.literal(true) }) },
      },
    },
    async (request) => {
      const bytes = Math.round(request.body.gigabytes * 1e9);
      // The local platform meters into daily_usage (UTC days); its sync reads the same rows.
      await queryRows(
        db,
        sql`insert into daily_usage (sim_iccid, day, bytes)
          values (${request.params.iccid}, ${isoDay(clock.now())}::date, ${bytes})
          on conflict (sim_iccid, day) do update set bytes = daily_usage.bytes + excluded.bytes`,
      );
      await runChecks();
      return { ok: true as const };
    },
  );
};
