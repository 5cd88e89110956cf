/**
 * The probes (docs/decisions/070). /api/healthz: the process is alive and its event loop turns;
 * it touches nothing else, so a slow database never gets the process restarted. /api/readyz: the
 * instance may take traffic now (readiness.ts); 503 with the reasons when not, and `draining`
 * from the SIGTERM on, so the load balancer takes it out before it stops accepting. Neither
 * queries the database: readyz answers from the state a background check keeps (decision 102).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { providerNames } from '../../lib/provider-calls.ts';
import type { Readiness } from './readiness.ts';

const checkState = z.enum(['ok', 'failing', 'not-checked']);
const providerReport = z.object({
  state: z.enum(['ok', 'failing', 'unknown', 'off']),
  at: z.string().optional(),
});
const readinessReport = z.object({
  status: z.enum(['ready', 'degraded', 'not-ready', 'draining']),
  reasons: z.array(z.string()),
  checks: z.object({ database: checkState, migrations: checkState, jobQueue: checkState }),
  checkedAt: z.string().optional(),
  // One property per provider (not a record keyed by an enum), so the document names each one.
  providers: z.object(
    Object.fromEntries(providerNames.map((name) => [name, providerReport])) as Record<
      (typeof providerNames)[number],
      typeof providerReport
    >,
  ),
});

export const healthRoutes: FastifyPluginAsyncZod<{ readiness: Readiness }> = async (
  app,
  { readiness },
) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        operationId: 'checkLiveness',
        security: [],
        summary: 'Liveness: the process answers (the database is not asked; see /api/readyz)',
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return { status: 'ok' as const };
    },
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        operationId: 'checkReadiness',
        security: [],
        summary:
          'Readiness from the last background check: database migrated, job queue set up, not draining (200 ready or degraded while the database is unreachable; 503 otherwise); each provider’s last call is reported without counting',
        response: { 200: readinessReport, 503: readinessReport },
      },
    },
    async (_request, reply) => {
      const report = await readiness.check();
      reply.header('cache-control', 'no-store');
      // `degraded` stays in the load balancer: the database is down for every instance alike,
      // and the API's own 503 with Retry-After says so better than the proxy's (decision 102).
      const isServing = report.status === 'ready' || report.status === 'degraded';
      return reply.code(isServing ? 200 : 503).send(report);
    },
  );
};
