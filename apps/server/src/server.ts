/**
 * The process: configuration, database, demo data, HTTP, jobs, and a graceful shutdown that
 * drains, finishes requests and jobs, then closes the database. ROLE says which part it plays
 * (docs/decisions/070): `all` everything; `api` the portal, queueing jobs it never runs;
 * `worker` the jobs, the recorder and the local camera, with only the probes and metrics on PORT.
 */
import fs from 'node:fs';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config, type LogFormat } from './config/config.ts';
import { DatabaseLockedError, openDatabase } from './db/client.ts';
import { seedCatalogue, seedDemoData } from './seed/demo.ts';
import { demoStaffPasswordFile, seedDemoStaff } from './seed/staff.ts';
import { startJobs } from './jobs/job-runner.ts';
import { databaseOutage, reportIfDatabaseUnreachable } from './lib/database-outage.ts';
import { createInstance } from './lib/instance.ts';
import { instanceTemporaryFolder, sweepTemporaryFolders } from './lib/instance-workspace.ts';
import { createLogger, logJobRun, processLogDestination } from './lib/logger.ts';
import { composeServices } from './process/compose.ts';
import { localCameraForRole } from './process/local-camera-for-role.ts';
import { buildOpsServer } from './process/ops-server.ts';
import { createShutdown, shutdownStepsTimeoutMs, type ShutdownStep } from './process/shutdown.ts';
import { systemClock } from './lib/clock.ts';

/**
 * A start that cannot go on, said where the operator looks: a JSON line on stdout when the log
 * is JSON (production: journald or the container's log keeps one format), plain text on stderr
 * for a person at a terminal. Exits 1.
 */
function refuseToStart(format: LogFormat, message: string, fields: object = {}): never {
  if (format === 'json') createLogger('fatal').fatal(fields, message);
  else process.stderr.write(`${message}\n`);
  process.exit(1);
}

/**
 * How to sign in, once the portal listens: a block of text for a person (LOG_FORMAT=pretty,
 * development), one JSON line where every line must be JSON (docs/decisions/106).
 */
function announceStart(config: Config, logger: Logger) {
  if (config.logFormat === 'json') {
    logger.info(
      {
        publicUrl: config.publicUrl,
        role: config.role,
        database: config.databaseUrl ? 'postgresql' : 'embedded',
      },
      `Farmcam Portal is running at ${config.publicUrl}`,
    );
    return;
  }
  printBanner(config);
}

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
      refuseToStart(error.logFormat, error.message, { problems: error.problems });
    }
    throw error;
  }
  // The same JSON, redaction and request/job context as the HTTP log (docs/decisions/072),
  // written as it is or as readable lines (LOG_FORMAT, docs/decisions/106).
  const logger = createLogger(config.logLevel, processLogDestination(config.logFormat));
  // A database outage is logged once per cause every 10 s, wherever it is met (decision 102).
  databaseOutage.setLog(logger);

  let database;
  try {
    database = await openDatabase(
      config.databaseUrl
        ? { kind: 'postgres', url: config.databaseUrl }
        : { kind: 'directory', dataDir: config.dataDir },
      {
        onConnectionError: (error) => {
          if (!reportIfDatabaseUnreachable(error, { source: 'connection pool' })) {
            logger.warn({ err: error }, 'Database connection lost');
          }
        },
      },
    );
  } catch (error) {
    if (error instanceof DatabaseLockedError) refuseToStart(config.logFormat, error.message);
    throw error;
  }

  const clock = systemClock;

  // The plans on sale are not demo data: every portal needs them, production included.
  await seedCatalogue(database.db);
  if (config.isDemoDataEnabled && (await seedDemoData(database.db, clock))) {
    logger.info('Seeded demo data');
    // Demo staff only in development; production staff come from `npm run staff` alone.
    if (config.nodeEnv !== 'production') await seedDemoStaff(database.db, config);
  }

  const runsApi = config.role !== 'worker';
  const runsJobs = config.role !== 'api';
  // Local mode: one RTSP server stands in for the demo cameras, started on first use where the
  // recorder runs; an API process only points at it (process/local-camera-for-role.ts).
  const localCamera = localCameraForRole(config, {
    info: (message) => logger.info(message),
    warn: (message) => logger.warn(message),
  });
  if (config.billing.mode === 'local' && !config.supplier.isConfigured) {
    logger.warn(
      'Invoices do not name your business yet: set SUPPLIER_NAME, SUPPLIER_ADDRESS and SUPPLIER_VAT_NUMBER (docs/decisions/026).',
    );
  }
  // Say at start when the demo camera cannot run, not at its first recording (decision 060).
  void localCamera?.check().then(({ problem }) => problem && logger.warn(problem));
  // Who this process is for the others (heartbeats), registered before it claims any work or
  // writes a temporary file; then the temporary files of processes that died are deleted
  // (docs/decisions/073).
  const instance = createInstance({ db: database.db, clock, role: config.role });
  await instance.register();
  const sweptFolders = await sweepTemporaryFolders({
    db: database.db,
    clock,
    dataDir: config.dataDir,
    instanceId: instance.id,
  });
  if (sweptFolders.length > 0) {
    logger.info({ instanceIds: sweptFolders }, 'Deleted temporary files of stopped processes');
  }
  // Every port and service, built once, whatever the role (process/compose.ts, decision 087).
  const services = await composeServices(config, {
    database,
    clock,
    log: logger,
    instanceId: instance.id,
    localCamera,
  });
  const { livestreaming, readiness } = services;
  const jobs = await startJobs(database, services.jobs, {
    // An API process queues (login mails, recordings, activations) and runs nothing.
    mode: runsJobs ? 'work' : 'send-only',
    onError: (error) => {
      // pg-boss polls every queue every few seconds: an outage is one line per 10 s, not one per poll.
      if (!reportIfDatabaseUnreachable(error, { source: 'job queue' })) {
        logger.error({ err: error }, 'Job queue error');
      }
    },
    // The id and attempt find the job in pgboss.job; the payload is never logged (README).
    onJobFailed: (failure) => {
      // A run the outage failed is retried: one line per 10 s says why. Failing for good is
      // always its own line.
      if (failure.willRetry && reportIfDatabaseUnreachable(failure.error, { source: 'job' })) {
        return;
      }
      logger.error(
        {
          job: failure.name,
          jobId: failure.id,
          attempt: failure.attempt,
          willRetry: failure.willRetry,
          err: failure.error,
        },
        failure.willRetry ? 'Job failed, will retry' : 'Job failed, giving up',
      );
    },
    // One line per run; requestId names the request that queued it (docs/decisions/072).
    onJobFinished: (run) => logJobRun(logger, run),
  });
  services.attachJobRunner(jobs);
  // Workers pull cameras for live view (issue 27); an API process only asks them to.
  if (runsJobs) services.liveView.puller.start();
  // SMTP mode: the workers deliver the mail queue, woken by each new e-mail (decision 104).
  if (runsJobs) await services.mailDelivery?.start();
  // A worker also looks for dead processes' recordings after each beat, so one is queued again
  // well within a minute of its worker's death (decision 073).
  instance.startHeartbeat({
    async onBeat() {
      if (runsJobs) {
        await livestreaming.recording.recoverDeadWorkers();
        // Clips and timelapses that waited on this machine for storage (decision 105): each
        // machine's workers look at their own spool, so no cron job (which runs on one worker).
        await services.retryPendingUploads();
      }
      // A predecessor killed just before this start was still within its 30 s then.
      await sweepTemporaryFolders({
        db: database.db,
        clock,
        dataDir: config.dataDir,
        instanceId: instance.id,
      });
    },
    onError: (error) => {
      if (!reportIfDatabaseUnreachable(error, { source: 'heartbeat' })) {
        logger.warn({ err: error }, 'Heartbeat or recovery failed');
      }
    },
  });
  // Readiness from a background check every 5 s: probes never query the database (decision 102).
  readiness.start();
  await readiness.refresh();

  // An API serves the portal; a worker only the probes and metrics (it needs no routes).
  const http = runsApi
    ? await buildApp(config, services)
    : await buildOpsServer(config, { readiness, database, logger });
  const steps: ShutdownStep[] = [
    // Stops accepting and finishes in-flight requests (new ones meanwhile get 503).
    { name: 'HTTP', run: () => http.close() },
    {
      name: 'jobs and recordings',
      async run() {
        // pg-boss stops fetching at once, then waits for running jobs; the recorder stops its
        // ffmpeg children meanwhile and hands its clips over, so no job waits out a recording
        // and no clip stays "recording" (decision 073). Jobs still running at pg-boss's time-out
        // are failed back to the queue for another worker.
        const stopping = jobs.stop();
        // Live views are let go of first: another worker takes each camera at once.
        if (runsJobs) await services.liveView.puller.stop();
        if (runsJobs) await livestreaming.recording.stop();
        await stopping;
        // Once no job runs any more: a recording or timelapse job that was still under way
        // when the recorder stopped may have made its folder again, which would outlive this
        // process (its half-written files are never anyone's to recover, decision 073).
        await fs.promises.rm(instanceTemporaryFolder(config.dataDir, instance.id), {
          recursive: true,
          force: true,
        });
      },
    },
    // After the jobs, which may still queue e-mails: the sends under way finish, the e-mails
    // not begun go back to the queue for the other workers (decision 104).
    { name: 'mail delivery', run: async () => services.mailDelivery?.stop() },
    // Nothing of this process is left to recover: its row goes (decision 073).
    { name: 'instance', run: () => instance.stop() },
    { name: 'local camera', run: async () => localCamera?.stop() },
    // The change listeners and the mailer.
    { name: 'services', run: () => services.close() },
    { name: 'database', run: () => database.close() },
  ];
  const shutdown = createShutdown({
    readiness,
    graceSeconds: config.shutdownGraceSeconds,
    timeoutMs: shutdownStepsTimeoutMs,
    steps,
    log: logger,
    exit: (code) => process.exit(code),
  });
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await http.listen({ host: config.host, port: config.port });
  if (runsApi) announceStart(config, logger);
  else logger.info({ role: config.role, port: config.port }, 'Worker running: jobs and recorder');
}

await main();
