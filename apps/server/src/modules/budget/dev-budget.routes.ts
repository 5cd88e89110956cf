import { iccidParams } from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DevBudget } from './dev-budget.service.ts';

/**
 * Development only (never in production, local SIM platform only; app.ts guards it): a camera
 * uses more data today on the local platform, then the usage sync, usage alerts and data caps run
 * at once instead of waiting for the jobs (decision 095).
 */
export const devBudgetRoutes: FastifyPluginAsyncZod<{ devBudget: DevBudget }> = async (
  app,
  { devBudget },
) => {
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
      await devBudget.addUsage(request.params.iccid, request.body.gigabytes);
      return { ok: true as const };
    },
  );
};
