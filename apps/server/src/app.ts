/**
 * buildApp(config, deps): the whole HTTP application without listening, so tests drive it with
 * `app.inject` on a fresh database. server.ts adds the port, the jobs and shutdown.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from './config/config.ts';
import type { DatabaseHandle } from './db/client.ts';
import type { Clock } from './lib/clock.ts';
import { createRateLimiter } from './lib/rate-limiter.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { devMailRoutes } from './modules/dev-mail/dev-mail.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { staffRoutes } from './modules/staff/staff.routes.ts';
import { authPlugin } from './plugins/auth.ts';
import { errorHandlerPlugin } from './plugins/error-handler.ts';
import { securityHeadersPlugin } from './plugins/security-headers.ts';
import { staticSpaPlugin } from './plugins/static-spa.ts';
import type { Mailer } from './providers/mail/mail.ts';
import { isOutboxMailer } from './providers/mail/outbox-mailer.ts';

export interface AppDependencies {
  database: DatabaseHandle;
  clock: Clock;
  mailer: Mailer;
  /** Folder of the built SPA; defaults to the configured WEB_DIST_DIR. */
  webRoot?: string;
}

export async function buildApp(config: Config, deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            redact: ['req.headers.authorization', 'req.query.token'],
          },
    trustProxy: config.trustProxy,
    bodyLimit: 64 * 1024,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const { db } = deps.database;
  const rateLimiter = createRateLimiter(db, deps.clock);
  const auth = createAuthService({
    db,
    clock: deps.clock,
    mailer: deps.mailer,
    rateLimiter,
    publicUrl: config.publicUrl,
  });

  await app.register(errorHandlerPlugin);
  await app.register(securityHeadersPlugin, { isHttps: config.publicUrl.startsWith('https:') });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Farmcam Portal API',
        description: 'Every error answers `{ code, message }`. Authenticate with `Bearer <token>`.',
        version: '1.0.0',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    staticCSP: true,
    uiConfig: { deepLinking: false },
  });
  await app.register(authPlugin, { auth });

  await app.register(
    async (api) => {
      await api.register(healthRoutes, { db });
      await api.register(authRoutes, { auth });
      await api.register(staffRoutes, { auth, db });
    },
    { prefix: '/api' },
  );

  if (isOutboxMailer(deps.mailer)) {
    await app.register(devMailRoutes, { outbox: deps.mailer });
  }
  await app.register(staticSpaPlugin, { root: deps.webRoot ?? config.webDistDir });
  return app;
}
