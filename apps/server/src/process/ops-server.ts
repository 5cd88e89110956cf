/**
 * A worker's HTTP server (ROLE=worker, docs/decisions/070): the probes and the metrics on PORT,
 * nothing of the customer API, so a worker can be health-checked and scraped like an API
 * instance without serving customers. Every other path answers 404 in the one error model.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from '../config/config.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { healthRoutes } from '../modules/health/health.routes.ts';
import type { Readiness } from '../modules/health/readiness.ts';
import { errorHandlerPlugin } from '../plugins/error-handler.ts';
import { metricsPlugin } from '../plugins/metrics.ts';

export async function buildOpsServer(
  config: Config,
  deps: {
    readiness: Readiness;
    database: Pick<DatabaseHandle, 'executeSql'>;
    /** The process's logger; probes are not logged per request (asked every few seconds). */
    logger?: FastifyBaseLogger;
  },
): Promise<FastifyInstance> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    // Through the LogController: the top-level `disableRequestLogging` is deprecated (FSTDEP023)
    // and made every worker start print a warning that is not JSON (docs/decisions/106).
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // First, so the probes are measured like the API's routes (decision 071).
  await app.register(metricsPlugin, {
    token: config.metricsToken,
    database: deps.database,
    dataDir: config.dataDir,
  });
  await app.register(errorHandlerPlugin);
  await app.register(healthRoutes, { prefix: '/api', readiness: deps.readiness });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      code: 'NOT_FOUND',
      message: `No route for ${request.method} ${request.url.split('?')[0]}`,
    }),
  );
  await app.ready();
  return app;
}
