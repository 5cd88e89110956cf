/**
 * buildApp(config, deps): the whole HTTP application without listening, so tests drive it with
 * `app.inject` on a fresh database. server.ts adds the port, the jobs and shutdown.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { PlansResponse } from '@farmcam/contract';
import type { Config } from './config/config.ts';
import type { DatabaseHandle } from './db/client.ts';
import type { Clock } from './lib/clock.ts';
import type { JobQueue } from './lib/job-queue.ts';
import { loggerOptions } from './lib/logger.ts';
import { requestIdGenerator } from './lib/request-context.ts';
import { createRateLimiter } from './lib/rate-limiter.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { createActivationModule } from './modules/activation/activation-module.ts';
import { activationRoutes } from './modules/activation/activation.routes.ts';
import { createActivationCheckoutHooks } from './modules/activation/checkout-hooks.ts';
import {
  createPricingTables,
  stripePricingTableOrigins,
} from './modules/activation/pricing-tables.ts';
import { createBillingModule } from './modules/billing/billing-module.ts';
import { billingRoutes } from './modules/billing/billing.routes.ts';
import { stripeWebhookRoutes } from './modules/billing/stripe-webhook.routes.ts';
import { camerasRoutes } from './modules/cameras/cameras.routes.ts';
import { createCamerasService } from './modules/cameras/cameras.service.ts';
import { createReadCache, invalidateOnCameraChanges } from './modules/cameras/plans-cache.ts';
import { usageRoutes } from './modules/usage/usage.routes.ts';
import { createUsageService } from './modules/usage/usage.service.ts';
import { authPolicy, createAuthService, type Principal } from './modules/auth/auth.service.ts';
import { createSessionCache, evictOnSessionChanges } from './modules/auth/session-cache.ts';
import { createStaffAccountsService } from './modules/auth/staff-accounts.service.ts';
import { coverageRoutes } from './modules/coverage/coverage.routes.ts';
import { createCoverageService } from './modules/coverage/coverage.service.ts';
import { devMailRoutes } from './modules/dev-mail/dev-mail.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { createReadiness, type Readiness } from './modules/health/readiness.ts';
import { staffRoutes } from './modules/staff/staff.routes.ts';
import { authPlugin } from './modules/auth/auth.plugin.ts';
import { apiDocumentOptions } from './plugins/api-document.ts';
import {
  answerClientError,
  answerFrameworkError,
  errorHandlerPlugin,
} from './plugins/error-handler.ts';
import { inputGuardPlugin } from './plugins/input-guard.ts';
import { metricsPlugin } from './plugins/metrics.ts';
import { requestChildLogger, requestLogPlugin } from './plugins/request-log.ts';
import { securityHeadersPlugin } from './plugins/security-headers.ts';
import { staticSpaPlugin } from './plugins/static-spa.ts';
import type { CoverageProvider } from './providers/coverage/coverage.ts';
import { createCoverageProvider } from './providers/coverage/create-coverage-provider.ts';
import { hostedPagesRoutes } from './providers/billing/local/hosted-pages.routes.ts';
import type { ConnectivityPlatform } from './providers/connectivity/connectivity.ts';
import { createLocalSimPlatform } from './providers/connectivity/local-sim-platform.ts';
import type { Mailer } from './providers/mail/mail.ts';
import { isOutboxMailer } from './providers/mail/outbox-mailer.ts';
import { createDefaultLivestreaming, type Livestreaming } from './jobs/livestreaming.ts';
import { livestreamPublicPlugin } from './modules/livestream/livestream.plugin.ts';
import { livestreamRoutes } from './modules/livestream/livestream.routes.ts';
import { trustProxyOption } from './lib/client-address.ts';

export interface AppDependencies {
  database: DatabaseHandle;
  clock: Clock;
  mailer: Mailer;
  /** Postcode signal coverage; defaults to the provider COVERAGE names. */
  coverage?: CoverageProvider;
  /** Folder of the built SPA; defaults to the configured WEB_DIST_DIR. */
  webRoot?: string;
  /** Where the request log goes (stdout when absent); tests read the lines through it. */
  logStream?: DestinationStream;
  /**
   * The SIM platform, for services that change SIM state (server.ts picks it from CONNECTIVITY).
   * Where absent (tests), use `createLocalSimPlatform({ db, clock })`.
   */
  connectivity?: ConnectivityPlatform;
  /** Livestreaming (storage, recorder, recording queue); made from the configuration when absent. */
  livestreaming?: Livestreaming;
  /**
   * Where services queue background jobs (the login e-mail): server.ts binds it to pg-boss once
   * the workers run, tests to a queue they drain (docs/decisions/062).
   */
  jobQueue: JobQueue;
  /** What /api/readyz answers; server.ts shares it with the shutdown, which starts draining. */
  readiness?: Readiness;
}

export async function buildApp(config: Config, deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            // JSON lines, redacted, with the request or job context (docs/decisions/072).
            ...loggerOptions(config.logLevel),
            ...(deps.logStream ? { stream: deps.logStream } : {}),
          },
    // One line per request, written by requestLogPlugin (docs/decisions/072).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdGenerator(config.trustProxy),
    childLoggerFactory: requestChildLogger,
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: 64 * 1024,
    // Room for every id and token we issue; longer still gets a 414 in the error model, with
    // the security headers, from the two answers below (docs/decisions/064).
    routerOptions: { maxParamLength: 500 },
    frameworkErrors: answerFrameworkError(config.publicUrl.startsWith('https:')),
    clientErrorHandler: answerClientError(config.publicUrl.startsWith('https:')),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const { db } = deps.database;
  const rateLimiter = createRateLimiter(db, deps.clock);
  // Every process evicts a revoked session at once (docs/decisions/065).
  const sessionCache = createSessionCache<Principal>({
    ttlMs: authPolicy.sessionCacheSeconds * 1000,
    maxEntries: authPolicy.sessionCacheEntries,
    now: () => deps.clock.now().getTime(),
  });
  const stopSessionListening = await evictOnSessionChanges(deps.database, sessionCache);
  app.addHook('onClose', async () => stopSessionListening());
  const auth = createAuthService({
    db,
    clock: deps.clock,
    jobQueue: deps.jobQueue,
    rateLimiter,
    loginLinksPerEmail: config.loginLinksPerEmail,
    sessionCache,
  });
  const staffAccounts = createStaffAccountsService({
    db,
    clock: deps.clock,
    publicUrl: config.publicUrl,
    rateLimiter,
  });

  const coverage = createCoverageService({
    db,
    clock: deps.clock,
    rateLimiter,
    provider: deps.coverage ?? createCoverageProvider(config.coverage, app.log),
    log: app.log,
  });

  const plansCache = createReadCache<PlansResponse>({
    ttlMs: config.plansCacheSeconds * 1000,
    maxEntries: 2000,
  });
  if (plansCache.isEnabled) {
    const stopListening = await invalidateOnCameraChanges(deps.database, plansCache);
    app.addHook('onClose', async () => stopListening());
  }
  const cameras = createCamerasService({
    db,
    clock: deps.clock,
    plansCache,
    supportEmail: config.supportEmail,
  });
  const usage = createUsageService({ db, clock: deps.clock });
  const billing = createBillingModule({
    config,
    db,
    clock: deps.clock,
    connectivity: deps.connectivity ?? createLocalSimPlatform({ db, clock: deps.clock }),
    mailer: deps.mailer,
    runAlone: (key, work) => deps.database.withAdvisoryLock(key, work),
    log: app.log,
    checkoutHooks: createActivationCheckoutHooks(),
  });
  app.decorate('billing', billing);
  const activation = createActivationModule({
    config,
    db,
    clock: deps.clock,
    rateLimiter,
    billing: billing.provider,
    connectivity: deps.connectivity ?? createLocalSimPlatform({ db, clock: deps.clock }),
    mailer: deps.mailer,
    log: app.log,
  });
  app.decorate('activation', activation);
  const livestreaming =
    deps.livestreaming ??
    (await createDefaultLivestreaming(config, {
      db,
      clock: deps.clock,
      mailer: deps.mailer,
      rateLimiter,
      cameraAccess: deps.connectivity ?? createLocalSimPlatform({ db, clock: deps.clock }),
      log: app.log,
    }));

  await app.register(requestLogPlugin);
  await app.register(errorHandlerPlugin);
  await app.register(inputGuardPlugin);
  // Before every route, so each is measured; after the error handler, which a route takes when
  // it is added, so /metrics answers refusals in the error model too. It needs METRICS_TOKEN
  // (decision 071).
  await app.register(metricsPlugin, { token: config.metricsToken, database: deps.database });
  await app.register(securityHeadersPlugin, {
    isHttps: config.publicUrl.startsWith('https:'),
    mediaOrigins: livestreaming.storage.mediaOrigins,
    embeddedWidgetOrigins:
      createPricingTables(config).kind === 'stripe' ? stripePricingTableOrigins : [],
  });
  await app.register(swagger, apiDocumentOptions(config));
  // The document is built in every mode (tests read it); it is served only when enabled.
  if (config.isApiDocsEnabled) {
    await app.register(swaggerUi, {
      routePrefix: '/api/docs',
      staticCSP: true,
      uiConfig: { deepLinking: false },
    });
  }
  await app.register(authPlugin, { auth });

  await app.register(
    async (api) => {
      await api.register(healthRoutes, {
        readiness: deps.readiness ?? createReadiness({ database: deps.database }),
      });
      await api.register(authRoutes, { auth, staffAccounts });
      await api.register(staffRoutes, { auth, db, clock: deps.clock });
      await api.register(camerasRoutes, { cameras });
      await api.register(usageRoutes, { usage });
      await api.register(coverageRoutes, { coverage });
      await api.register(billingRoutes, { db, billing: billing.service });
      await api.register(activationRoutes, { activation: activation.service });
      if (billing.stripe) await api.register(stripeWebhookRoutes, { stripe: billing.stripe });
      await api.register(livestreamRoutes, { livestream: livestreaming.service });
    },
    { prefix: '/api' },
  );
  if (billing.engine) {
    await app.register(hostedPagesRoutes, {
      db,
      engine: billing.engine,
      supplier: config.supplier,
      isTestMode: config.nodeEnv !== 'production',
      testClock:
        config.billing.mode === 'local' &&
        config.billing.isTestClockEnabled &&
        config.nodeEnv !== 'production'
          ? { runCycle: () => billing.runCycle(), portalOrigin: new URL(config.publicUrl).origin }
          : undefined,
    });
  }

  await app.register(livestreamPublicPlugin, {
    livestreaming,
    db,
    clock: deps.clock,
    publicUrl: config.publicUrl,
  });

  // Never in production, whatever mailer it was given: the outbox holds sign-in links.
  if (isOutboxMailer(deps.mailer) && config.nodeEnv !== 'production') {
    await app.register(devMailRoutes, { outbox: deps.mailer });
  }
  await app.register(staticSpaPlugin, { root: deps.webRoot ?? config.webDistDir });
  return app;
}
