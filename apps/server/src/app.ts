/**
 * buildApp(config, services): the whole HTTP application without listening, so tests drive it
 * with `app.inject` on a fresh database. It builds no service: it registers the plugins and the
 * routes of the services the composition root made (process/compose.ts, decision 087). server.ts
 * adds the port, the jobs and shutdown.
 */
import { constants as zlibConstants } from 'node:zlib';
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from './config/config.ts';
import { requestIdGenerator } from './lib/request-context.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { signInFormRoutes } from './modules/auth/sign-in-form.routes.ts';
import { teamRoutes } from './modules/team/team.routes.ts';
import { activityRoutes } from './modules/activity/activity.routes.ts';
import { activationRoutes } from './modules/activation/activation.routes.ts';
import { stripePricingTableOrigins } from './modules/activation/pricing-tables.ts';
import { billingAccountRoutes } from './modules/billing/billing-account.routes.ts';
import { farmBillingRoutes } from './modules/billing/farm-billing.routes.ts';
import { pauseRoutes } from './modules/billing/pause.routes.ts';
import { planChangeRoutes } from './modules/billing/plan-change.routes.ts';
import { renewalRoutes } from './modules/billing/renewal.routes.ts';
import { stripeWebhookRoutes } from './modules/billing/stripe-webhook.routes.ts';
import { camerasRoutes } from './modules/cameras/cameras.routes.ts';
import { cameraWatchRoutes } from './modules/camera-watch/camera-watch.routes.ts';
import { budgetRoutes } from './modules/budget/budget.routes.ts';
import { devBudgetRoutes } from './modules/budget/dev-budget.routes.ts';
import { devSilenceRoutes } from './modules/camera-watch/dev-silence.routes.ts';
import { usageRoutes } from './modules/usage/usage.routes.ts';
import { coverageRoutes } from './modules/coverage/coverage.routes.ts';
import { devMailRoutes } from './modules/dev-mail/dev-mail.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { notificationsRoutes } from './modules/notifications/notifications.routes.ts';
import { twilioWebhookRoutes } from './modules/notifications/twilio-webhook.routes.ts';
import { devSmsRoutes } from './modules/notifications/dev-sms.routes.ts';
import { isLocalMessaging } from './providers/messaging/local-messaging.ts';
import { staffRoutes } from './modules/staff/staff.routes.ts';
import { authPlugin, idempotencyOwner } from './modules/auth/auth.plugin.ts';
import { apiDocumentOptions } from './plugins/api-document.ts';
import {
  answerClientError,
  answerFrameworkError,
  errorHandlerPlugin,
} from './plugins/error-handler.ts';
import { idempotencyPlugin } from './plugins/idempotency.ts';
import { inputGuardPlugin } from './plugins/input-guard.ts';
import { metricsPlugin } from './plugins/metrics.ts';
import { requestChildLogger, requestLogPlugin } from './plugins/request-log.ts';
import { securityHeadersPlugin } from './plugins/security-headers.ts';
import { inlineSourceHashes, staticSpaPlugin } from './plugins/static-spa.ts';
import { hostedPagesPlugin } from '@farmcam/billing-engine';
import { isOutboxMailer } from './providers/mail/outbox-mailer.ts';
import { livestreamPublicPlugin } from './modules/public-playback/public-playback.plugin.ts';
import { livestreamManagementRoutes } from './modules/livestream/livestream-management.routes.ts';
import { livestreamSetupRoutes } from './modules/livestream/livestream-setup.routes.ts';
import { livestreamShowcaseRoutes } from './modules/recording/showcase.routes.ts';
import { publicLinksRoutes } from './modules/livestream/public-links.routes.ts';
import { timelapseRoutes } from './modules/timelapse/timelapse.routes.ts';
import { liveViewRoutes } from './modules/live-view/live-view.routes.ts';
import { trustProxyOption } from './lib/client-address.ts';
import type { Services } from './process/compose.ts';

export interface AppOptions {
  /** Folder of the built SPA; defaults to the configured WEB_DIST_DIR. */
  webRoot?: string;
}

export async function buildApp(
  config: Config,
  services: Services,
  options: AppOptions = {},
): Promise<FastifyInstance> {
  // Typed as Fastify's logger, so the app's type stays FastifyInstance for every plugin.
  const loggerInstance: FastifyBaseLogger = services.log;
  const app = Fastify({
    // The services' logger (JSON lines, redacted, with the request or job context: decision
    // 072); the app's log is its child, so a service's line and the request's read alike.
    ...(config.logLevel === 'silent' ? {} : { loggerInstance }),
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

  const { db } = services.database;
  const { billing, activation, livestreaming } = services;

  await app.register(requestLogPlugin);
  await app.register(errorHandlerPlugin);
  await app.register(inputGuardPlugin);
  // Before every route, so each is measured; after the error handler, which a route takes when
  // it is added, so /metrics answers refusals in the error model too. It needs METRICS_TOKEN
  // (decision 071).
  await app.register(metricsPlugin, {
    token: config.metricsToken,
    database: services.database,
    dataDir: config.dataDir,
  });
  await app.register(securityHeadersPlugin, {
    isHttps: config.publicUrl.startsWith('https:'),
    mediaOrigins: livestreaming.storage.mediaOrigins,
    embeddedWidgetOrigins:
      services.pricingTables.kind === 'stripe' ? stripePricingTableOrigins : [],
    inlineSources: inlineSourceHashes(options.webRoot ?? config.webDistDir),
  });
  // Answers of 1 KB and more go out compressed (the camera list is 11 KB as JSON, 2 KB in brotli:
  // a fifth of a second on one bar of signal), whether or not a proxy stands in front; a proxy
  // leaves an answer that is already encoded as it is. Brotli at quality 4 costs little CPU; the
  // built assets are precompressed at build time and pass through untouched (decision 083).
  // Compressed request bodies are refused, as before: nothing of ours sends one.
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 5 },
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
  await app.register(authPlugin, { sessions: services.sessions });
  await app.register(idempotencyPlugin, {
    db,
    clock: services.clock,
    ownerOf: idempotencyOwner,
  });

  await app.register(
    async (api) => {
      await api.register(healthRoutes, { readiness: services.readiness });
      await api.register(authRoutes, {
        magicLinks: services.magicLinks,
        staffSignIn: services.staffSignIn,
        sessions: services.sessions,
        staffAccounts: services.staffAccounts,
      });
      await api.register(staffRoutes, { staff: services.staff });
      await api.register(camerasRoutes, { cameras: services.cameras });
      await api.register(usageRoutes, { usage: services.usage });
      await api.register(coverageRoutes, { coverage: services.coverage });
      await api.register(farmBillingRoutes, { farm: billing.farm });
      await api.register(billingAccountRoutes, { account: billing.account });
      await api.register(planChangeRoutes, { planChanges: billing.planChanges });
      await api.register(renewalRoutes, { renewals: billing.renewals });
      await api.register(pauseRoutes, { pauses: billing.pauses });
      await api.register(activationRoutes, { activation: activation.service });
      if (billing.stripe) await api.register(stripeWebhookRoutes, { stripe: billing.stripe });
      await api.register(livestreamManagementRoutes, { management: livestreaming.management });
      await api.register(livestreamSetupRoutes, { setup: livestreaming.setup });
      await api.register(livestreamShowcaseRoutes, { showcase: livestreaming.showcase });
      await api.register(publicLinksRoutes, { publicLinks: livestreaming.publicLinks });
      await api.register(teamRoutes, { team: services.team });
      await api.register(activityRoutes, { activity: services.activity });
      await api.register(timelapseRoutes, { timelapses: services.timelapses });
      await api.register(liveViewRoutes, { liveView: services.liveView.service });
      await api.register(cameraWatchRoutes, { alertSettings: services.alertSettings });
      await api.register(notificationsRoutes, {
        notificationSettings: services.notificationSettings,
      });
      await api.register(budgetRoutes, {
        dataCaps: services.dataCaps,
        spendAlerts: services.spendAlerts,
      });
    },
    { prefix: '/api' },
  );
  // The sign-in form of `/` posted without the app (JavaScript off or not started yet).
  await app.register(signInFormRoutes, { magicLinks: services.magicLinks });
  if (billing.engine) {
    await app.register(hostedPagesPlugin, {
      db,
      engine: billing.engine,
      supplier: config.supplier,
      isTestMode: config.nodeEnv !== 'production',
      testClock:
        config.billing.mode === 'local' &&
        config.billing.isTestClockEnabled &&
        config.nodeEnv !== 'production'
          ? {
              runCycle: () => billing.cycle.runCycle(),
              portalOrigin: new URL(config.publicUrl).origin,
            }
          : undefined,
    });
  }

  await app.register(livestreamPublicPlugin, {
    playback: livestreaming.playback,
    storage: livestreaming.storage,
    db,
    clock: services.clock,
    publicUrl: config.publicUrl,
  });

  // Twilio's status callbacks and replies, signed with the auth token (decision 124).
  if (config.sms.mode === 'twilio') {
    await app.register(twilioWebhookRoutes, {
      delivery: services.notificationDelivery,
      authToken: config.sms.authToken,
      publicUrl: config.publicUrl,
    });
  }
  // The local text messages: development only, like the outbox (they hold verification codes).
  if (isLocalMessaging(services.messaging) && config.nodeEnv !== 'production') {
    await app.register(devSmsRoutes, {
      messaging: services.messaging,
      delivery: services.notificationDelivery,
    });
  }
  // Never in production, whatever mailer it was given: the outbox holds sign-in links.
  if (isOutboxMailer(services.mailer) && config.nodeEnv !== 'production') {
    await app.register(devMailRoutes, { outbox: services.mailer });
  }
  // Making a camera silent: development and the local SIM platform only (decision 094).
  if (config.nodeEnv !== 'production' && services.devTools) {
    await app.register(devSilenceRoutes, { devSilence: services.devTools.silence });
    // A camera using more data now, and the budget checks at once (decision 095).
    await app.register(devBudgetRoutes, { devBudget: services.devTools.budget });
  }
  await app.register(staticSpaPlugin, { root: options.webRoot ?? config.webDistDir });
  return app;
}
