import { devSilenceBody, iccidParams } from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DevSilence } from './dev-silence.service.ts';

/**
 * Development only (never in production, local SIM platform only; app.ts guards it): make a
 * camera silent or live again without hardware, and run the watch (the connectivity sync, then
 * the silence detection) at once instead of waiting for the jobs (decision 094).
 */
export const devSilenceRoutes: FastifyPluginAsyncZod<{ devSilence: DevSilence }> = async (
  app,
  { devSilence },
) => {
  const summary = z.object({ ok: z.literal(true) });

  app.post(
    '/dev/cameras/:iccid/silence',
    {
      schema: {
        tags: ['dev'],
        operationId: 'devSilenceCamera',
        security: [],
        summary: "The local platform's camera goes silent from `since` (default now)",
        params: iccidParams,
        body: devSilenceBody,
        response: { 200: summary },
      },
    },
    async (request) => {
      const { since } = request.body;
      await devSilence.silence(request.params.iccid, since ? new Date(since) : undefined);
      return { ok: true as const };
    },
  );

  app.delete(
    '/dev/cameras/:iccid/silence',
    {
      schema: {
        tags: ['dev'],
        operationId: 'devHearCamera',
        security: [],
        summary: "The local platform's camera is live again",
        params: iccidParams,
        response: { 200: summary },
      },
    },
    async (request) => {
      await devSilence.hear(request.params.iccid);
      return { ok: true as const };
    },
  );

  app.post(
    '/dev/camera-watch/run',
    {
      schema: {
        tags: ['dev'],
        operationId: 'devRunCameraWatch',
        security: [],
        summary: 'Run the connectivity sync and the silence detection now',
        response: { 200: summary },
      },
    },
    async () => {
      await devSilence.runWatch();
      return { ok: true as const };
    },
  );
};
