/**
 * The process: configuration, database, demo data, HTTP, jobs, and a graceful shutdown that
 * finishes requests and jobs before closing the database.
 */
import fs from 'node:fs';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config/config.ts';
import { DatabaseLockedError, openDatabase } from './db/client.ts';
import { seedCatalogue, seedDemoData } from './db/seed/demo.ts';
import { demoStaffPasswordFile, seedDemoStaff } from './db/seed/staff.ts';
import { activationFulfilmentJob } from './jobs/activation-fulfilment.job.ts';
import { billingCycleJob } from './jobs/billing-cycle.job.ts';
import { startJobs } from './jobs/job-runner.ts';
import { purgeExpiredJob } from './jobs/purge-expired.job.ts';
import { sendLoginMailJob } from './jobs/send-login-mail.job.ts';
import { recordLocalSimUsageJob } from './jobs/record-local-sim-usage.job.ts';
import { syncConnectivityJob } from './jobs/sync-connectivity.job.ts';
import { syncFromPlatform } from './modules/usage/connectivity-sync.service.ts';
import { sendUsageAlerts } from './modules/usage/usage-alerts.service.ts';
import { createConnectivityPlatform } from './providers/connectivity/create-connectivity-platform.ts';
import { createLateBoundJobQueue } from './lib/job-queue.ts';
import { createLogger, logJobRun } from './lib/logger.ts';
import { createRateLimiter } from './lib/rate-limiter.ts';
import { createLoginMailService } from './modules/auth/login-mail.service.ts';
import {
  createDefaultLivestreaming,
  showcaseSourceFrom,
} from './modules/livestream/create-livestreaming.ts';
import { createLocalCamera } from './providers/camera/local-camera.ts';
import { systemClock } from './lib/clock.ts';
import type { Mailer } from './providers/mail/mail.ts';
import { createOutboxMailer } from './providers/mail/outbox-mailer.ts';
import { createSmtpMailer } from './providers/mail/smtp-mailer.ts';

function printBanner(config: Config) {
  const lines = [
    '',
    `  Farmcam Portal is running at ${config.publicUrl}`,
    `  Database: ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}`}`,
    '',
    '  Customers sign in with an e-mailed link:',
    config.isDemoDataEnabled
      ? `    1. open ${config.publicUrl} and enter demo@example.com (or second@example.com)`
      : `    1. open ${config.publicUrl} and enter their e-mail address`,
    config.mail.mode === 'outbox'
      ? `    2. open the local outbox at ${config.publicUrl}/dev/mail and click the link`
      : '    2. click the link in the e-mail (sent over SMTP)',
    '',
    `  Staff sign in at ${config.publicUrl}/team-login`,
    // Passwords are never printed (docs/decisions/062): the demo's are in a file only you can read.
    ...(config.nodeEnv !== 'production' && fs.existsSync(demoStaffPasswordFile(config.dataDir))
      ? [`    demo accounts and passwords: ${demoStaffPasswordFile(config.dataDir)}`]
      : []),
    '    new account: npm run staff -- add EMAIL --role admin|team (prints a set-password link)',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // The same JSON, redaction and request/job context as the HTTP log (docs/decisions/072).
  const logger = createLogger(config.logLevel);

  let database;
  try {
    database = await openDatabase(
      config.databaseUrl
        ? { kind: 'postgres', url: config.databaseUrl }
        : { kind: 'directory', dataDir: config.dataDir },
      { onConnectionError: (error) => logger.warn({ err: error }, 'Database connection lost') },
    );
  } catch (error) {
    if (error instanceof DatabaseLockedError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const clock = systemClock;
  const mailer: Mailer =
    config.mail.mode === 'smtp'
      ? createSmtpMailer({ url: config.mail.url, from: config.mail.from })
      : createOutboxMailer(database.db);

  // The plans on sale are not demo data: every portal needs them, production included.
  await seedCatalogue(database.db);
  if (config.isDemoDataEnabled && (await seedDemoData(database.db, clock))) {
    logger.info('Seeded demo data');
    // Demo staff only in development; production staff come from `npm run staff` alone.
    if (config.nodeEnv !== 'production') await seedDemoStaff(database.db, config);
  }

  // Local mode: one RTSP server stands in for the demo cameras; started on first use.
  const localCamera =
    config.connectivity.mode === 'local'
      ? createLocalCamera({
          port: config.livestreaming.localCameraPort,
          isFallbackToFreePort: true,
          log: { info: (message) => logger.info(message), warn: (message) => logger.warn(message) },
        })
      : undefined;
  if (config.billing.mode === 'local' && !config.supplier.isConfigured) {
    logger.warn(
      'Invoices do not name your business yet: set SUPPLIER_NAME, SUPPLIER_ADDRESS and SUPPLIER_VAT_NUMBER (docs/decisions/026).',
    );
  }
  // Say at start when the demo camera cannot run, not at its first recording (decision 060).
  void localCamera?.check().then(({ problem }) => problem && logger.warn(problem));
  const connectivity = createConnectivityPlatform(config.connectivity, {
    db: database.db,
    clock,
    log: logger,
    camera: localCamera,
  });
  const livestreaming = await createDefaultLivestreaming(config, {
    db: database.db,
    clock,
    mailer,
    rateLimiter: createRateLimiter(database.db, clock),
    cameraAccess: connectivity,
    log: logger,
    showcaseSource: showcaseSourceFrom(config, localCamera),
    demoCamera: localCamera,
  });
  const jobQueue = createLateBoundJobQueue();
  const app = await buildApp(config, {
    database,
    clock,
    mailer,
    connectivity,
    livestreaming,
    jobQueue,
  });
  const alerts = () =>
    sendUsageAlerts({ db: database.db, mailer, clock, publicUrl: config.publicUrl });
  const connectivityJobs = [
    syncConnectivityJob({
      syncFromPlatform: () => syncFromPlatform({ db: database.db, platform: connectivity, clock }),
      sendUsageAlerts: alerts,
    }),
    ...(connectivity.kind === 'local'
      ? [recordLocalSimUsageJob({ platform: connectivity, sendUsageAlerts: alerts })]
      : []),
  ];
  const jobs = await startJobs(
    database,
    [
      purgeExpiredJob({ db: database.db, clock }),
      ...connectivityJobs,
      billingCycleJob({ billing: app.billing }),
      activationFulfilmentJob({ activation: app.activation }),
      sendLoginMailJob({
        loginMail: createLoginMailService({
          db: database.db,
          clock,
          mailer,
          publicUrl: config.publicUrl,
        }),
      }),
      ...livestreaming.jobs,
    ],
    {
      onError: (error) => logger.error({ err: error }, 'Job queue error'),
      // The id and attempt find the job in pgboss.job; the payload is never logged (README).
      onJobFailed: (failure) =>
        logger.error(
          {
            job: failure.name,
            jobId: failure.id,
            attempt: failure.attempt,
            willRetry: failure.willRetry,
            err: failure.error,
          },
          failure.willRetry ? 'Job failed, will retry' : 'Job failed, giving up',
        ),
      // One line per run; requestId names the request that queued it (docs/decisions/072).
      onJobFinished: (run) => logJobRun(logger, run),
    },
  );
  livestreaming.attachJobRunner(jobs);
  jobQueue.attach(jobs.queue);

  let isShuttingDown = false;
  const shutdown = async (signal: string) => {
    if (isShuttingDown) return;
    isShuttingDown = true;
    logger.info({ signal }, 'Shutting down');
    const forceExit = setTimeout(() => process.exit(1), 30_000);
    forceExit.unref();
    try {
      await app.close();
      await jobs.stop();
      await localCamera?.stop();
      await mailer.close();
      await database.close();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'Shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ host: config.host, port: config.port });
  printBanner(config);
}

await main();
