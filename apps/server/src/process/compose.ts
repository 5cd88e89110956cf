/**
 * The composition root (docs/decisions/087): every port's adapter, chosen once by its
 * `create<Port>(config, deps)`, and every service and job, built once, for whatever ROLE this
 * process plays. server.ts composes for every role, and the tests compose the same way with a few
 * ports replaced (manual clock, outbox mailer, in-memory job queue); buildApp only registers the
 * plugins and routes of what it is handed.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Logger } from 'pino';
import type { PlansResponse } from '@farmcam/contract';
import type { Config } from '../config/config.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { activationFulfilmentJob } from '../jobs/activation-fulfilment.job.ts';
import { billingCycleJob } from '../jobs/billing-cycle.job.ts';
import { deliverBillingEventsJob } from '../jobs/deliver-billing-events.job.ts';
import { detectSilentCamerasJob } from '../jobs/detect-silent-cameras.job.ts';
import type { JobDefinition, JobRunner } from '../jobs/job-runner.ts';
import {
  createLivestreaming,
  showcaseSourceFrom,
  type Livestreaming,
} from '../jobs/livestreaming.ts';
import { purgeActivityJob } from '../jobs/purge-activity.job.ts';
import { purgeExpiredJob } from '../jobs/purge-expired.job.ts';
import { buildTimelapseJob } from '../jobs/build-timelapse.job.ts';
import { purgeTimelapsesJob } from '../jobs/purge-timelapses.job.ts';
import { recordLocalSimUsageJob } from '../jobs/record-local-sim-usage.job.ts';
import { sendLoginMailJob } from '../jobs/send-login-mail.job.ts';
import { syncConnectivityJob } from '../jobs/sync-connectivity.job.ts';
import type { Clock } from '../lib/clock.ts';
import { createLateBoundJobQueue, type JobQueue } from '../lib/job-queue.ts';
import { createRateLimiter, type RateLimiter } from '../lib/rate-limiter.ts';
import {
  createActivityService,
  type ActivityService,
} from '../modules/activity/activity.service.ts';
import {
  createActivationModule,
  type ActivationModule,
} from '../modules/activation/activation-module.ts';
import { createActivationCheckoutHooks } from '../modules/activation/checkout-hooks.ts';
import { createPricingTables, type PricingTables } from '../modules/activation/pricing-tables.ts';
import {
  authPolicy,
  createAuthService,
  type AuthService,
  type Principal,
} from '../modules/auth/auth.service.ts';
import {
  createLoginLinksComposer,
  createLoginMailService,
  type LoginMailService,
} from '../modules/auth/login-mail.service.ts';
import { createSessionCache, evictOnSessionChanges } from '../modules/auth/session-cache.ts';
import { createMembersService, type MembersService } from '../modules/members/members.service.ts';
import {
  createStaffAccountsService,
  type StaffAccountsService,
} from '../modules/auth/staff-accounts.service.ts';
import { createBillingModule, type BillingModule } from '../modules/billing/billing-module.ts';
import { createCamerasService, type CamerasService } from '../modules/cameras/cameras.service.ts';
import {
  createAlertSettingsService,
  type AlertSettingsService,
} from '../modules/camera-watch/alert-settings.service.ts';
import {
  createSilenceDetection,
  type SilenceDetection,
} from '../modules/camera-watch/silence-detection.service.ts';
import { createReadCache, invalidateOnCameraChanges } from '../modules/cameras/plans-cache.ts';
import {
  createCoverageService,
  type CoverageService,
} from '../modules/coverage/coverage.service.ts';
import { createReadiness, type Readiness } from '../modules/health/readiness.ts';
import { syncFromPlatform } from '../modules/usage/connectivity-sync.service.ts';
import { sendUsageAlerts } from '../modules/usage/usage-alerts.service.ts';
import { createDataCaps, type DataCaps } from '../modules/budget/data-caps.service.ts';
import { createSpendAlerts, type SpendAlerts } from '../modules/budget/spend-alerts.service.ts';
import { sendSpendAlertsJob } from '../jobs/send-spend-alerts.job.ts';
import { createUsageService, type UsageService } from '../modules/usage/usage.service.ts';
import type { LocalCamera } from '../providers/camera/local-camera.ts';
import type { ConnectivityPlatform } from '../providers/connectivity/connectivity.ts';
import { createBillingProvider } from '../providers/billing/create-billing-provider.ts';
import { createConnectivityPlatform } from '../providers/connectivity/create-connectivity-platform.ts';
import type { LocalSimPlatform } from '../providers/connectivity/local-sim-platform.ts';
import type { CoverageProvider } from '../providers/coverage/coverage.ts';
import { createCoverageProvider } from '../providers/coverage/create-coverage-provider.ts';
import { createMailer } from '../providers/mail/create-mailer.ts';
import type { Mailer } from '../providers/mail/mail.ts';
import type { MailDelivery } from '../providers/mail/mail-queue.ts';
import { createRecorder, createTimelapseMaker } from '../providers/recorder/create-recorder.ts';
import type { TimelapseMaker } from '../providers/recorder/timelapse-maker.ts';
import {
  createTimelapseService,
  type TimelapseService,
} from '../modules/timelapse/timelapse.service.ts';
import { instanceTemporaryFolder } from '../lib/instance-workspace.ts';
import type { Recorder } from '../providers/recorder/recorder.ts';
import { createClipStorage } from '../providers/storage/create-clip-storage.ts';
import type { ClipStorage } from '../providers/storage/storage.ts';
import { createUploadSpool, type UploadSpool } from '../providers/storage/upload-spool.ts';
import { createPushSender } from '../providers/push/create-push-sender.ts';
import type { PushSender } from '../providers/push/push.ts';
import { createMessaging } from '../providers/messaging/create-messaging.ts';
import type { Messaging } from '../providers/messaging/messaging.ts';
import { createNotifier, type Notifier } from '../modules/notifications/notifier.ts';
import {
  createNotificationDelivery,
  type NotificationDelivery,
} from '../modules/notifications/notification-delivery.service.ts';
import {
  createNotificationSettingsService,
  type NotificationSettingsService,
} from '../modules/notifications/notification-settings.service.ts';
import { deliverNotificationsJob } from '../jobs/deliver-notifications.job.ts';
import { recordNotificationDelivery } from '../lib/metrics.ts';
import { setProviderConfigured } from '../lib/provider-calls.ts';

/** What the process already has before composing: its database, clock and logger. */
export interface ProcessParts {
  database: DatabaseHandle;
  clock: Clock;
  /** The one logger: services log through it, and the HTTP app's log is its child. */
  log: Logger;
  /** This process's registered instance (lib/instance.ts): its clips and temporary folder. */
  instanceId?: string;
  /** The local demo camera, where this process runs one (process/local-camera-for-role.ts). */
  localCamera?: LocalCamera;
}

/** Ports a test replaces; each absent one is made by its create<Port> from the configuration. */
export interface PortOverrides {
  mailer?: Mailer;
  connectivity?: ConnectivityPlatform;
  coverage?: CoverageProvider;
  storage?: ClipStorage;
  /** Where files wait for storage; DATA_DIR/uploads on the chosen storage by default. */
  uploads?: UploadSpool;
  recorder?: Recorder;
  timelapseMaker?: TimelapseMaker;
  /** Where services queue jobs; by default bound to pg-boss by attachJobRunner. */
  jobQueue?: JobQueue;
  readiness?: Readiness;
  /** Where the marketing page's demo clip is recorded from (showcaseSourceFrom by default). */
  showcaseSource?: () => Promise<string>;
  /** Heartbeats and recording claims; the system clock unless a test injects one. */
  processClock?: Clock;
  /** Web Push (a test's sender towards its own push endpoint). */
  push?: PushSender;
  /** Text messages (a test's Twilio adapter towards its fake). */
  messaging?: Messaging;
}

export interface Services {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  log: Logger;
  mailer: Mailer;
  /**
   * SMTP mode: delivering the mail queue, which the worker processes start (decision 104);
   * absent with the outbox, which stores each e-mail as it is sent.
   */
  mailDelivery: MailDelivery | undefined;
  connectivity: ConnectivityPlatform;
  jobQueue: JobQueue;
  rateLimiter: RateLimiter;
  readiness: Readiness;
  pricingTables: PricingTables;
  auth: AuthService;
  staffAccounts: StaffAccountsService;
  loginMail: LoginMailService;
  coverage: CoverageService;
  cameras: CamerasService;
  usage: UsageService;
  billing: BillingModule;
  activation: ActivationModule;
  livestreaming: Livestreaming;
  /** The farm's team: members, invitations (docs/decisions/091). */
  members: MembersService;
  activity: ActivityService;
  /** Daily timelapses: built by a job, listed on the camera details page (decision 097). */
  timelapses: TimelapseService;
  /** Per-camera alert settings and each person's own camera-alert choice (decision 094). */
  alertSettings: AlertSettingsService;
  /** Budget protection: data paused at the allowance, resumed until the month's end (decision 095). */
  dataCaps: DataCaps;
  /** The account's monthly spend alert (decision 095). */
  spendAlerts: SpendAlerts;
  /** Who is told of each alert, and how: e-mail, push, SMS (decision 122). */
  notifier: Notifier;
  /** Each person's Notifications page (decisions 122-124). */
  notificationSettings: NotificationSettingsService;
  /** Push and SMS deliveries, Twilio's callbacks and replies (decisions 123, 124). */
  notificationDelivery: NotificationDelivery;
  push: PushSender;
  messaging: Messaging;
  /** One usage sync, the usage alerts and the data caps, now (the dev usage route, tests). */
  runBudgetChecks(): Promise<void>;
  /**
   * Stores the clips and timelapses waiting in this machine's upload spool, unless storage
   * failed a moment ago (workers, after each heartbeat: decision 105).
   */
  retryPendingUploads(): Promise<{ stored: number }>;
  /** Silence alerts: the detection the job runs (decision 094). */
  silenceDetection: SilenceDetection;
  /** One usage sync and one silence detection, now (the dev "make silent" route, tests). */
  runCameraWatch(): Promise<void>;
  /** Every job this program runs, for startJobs (a worker runs them, an API only queues). */
  // Each definition checks its own payload type; the list only needs the common shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  jobs: JobDefinition<any>[];
  /** Binds the job queue (unless a test replaced it) and the recording queue to the runner. */
  attachJobRunner(runner: Pick<JobRunner, 'send' | 'queue'>): void;
  /** Stops listening for session and camera changes and closes the mailer. */
  close(): Promise<void>;
}

function isLocalSimPlatform(platform: ConnectivityPlatform): platform is LocalSimPlatform {
  return platform.kind === 'local';
}

export async function composeServices(
  config: Config,
  parts: ProcessParts,
  overrides: PortOverrides = {},
): Promise<Services> {
  const { database, clock, log } = parts;
  const { db } = database;

  // Who this process is in the claims it writes (mail, timelapses); server.ts registers it.
  const instanceId = parts.instanceId ?? randomUUID();

  // Ports: each adapter chosen once, here, by its create<Port>.
  // The login e-mail is made as it goes out; every process that may deliver mail knows how.
  const loginLinksComposer = createLoginLinksComposer({
    db,
    clock,
    publicUrl: config.publicUrl,
  });
  const { mailer, delivery: mailDelivery } = overrides.mailer
    ? { mailer: overrides.mailer, delivery: undefined }
    : createMailer(config.mail, {
        database,
        composers: [loginLinksComposer],
        instanceId,
        ...(overrides.processClock ? { clock: overrides.processClock } : {}),
        log,
      });
  const connectivity =
    overrides.connectivity ??
    createConnectivityPlatform(config.connectivity, { db, clock, log, camera: parts.localCamera });
  const coverageProvider = overrides.coverage ?? createCoverageProvider(config.coverage, log);
  const storage =
    overrides.storage ??
    (await createClipStorage(config.storage, {
      db,
      clock,
      dataDir: config.dataDir,
      publicUrl: config.publicUrl,
    }));
  const recorder = overrides.recorder ?? createRecorder(config.livestreaming);
  // Recorded clips and built timelapses wait here while storage fails (decision 105).
  const uploads =
    overrides.uploads ??
    createUploadSpool({ storage, folder: path.join(config.dataDir, 'uploads'), log });
  const lateBoundQueue = overrides.jobQueue ? undefined : createLateBoundJobQueue();
  const jobQueue = overrides.jobQueue ?? lateBoundQueue!;
  const rateLimiter = createRateLimiter(db, clock);
  const readiness = overrides.readiness ?? createReadiness({ database, log });
  const pricingTables = createPricingTables(config);
  const push = overrides.push ?? (await createPushSender(config.push, { db }));
  const messaging = overrides.messaging ?? createMessaging(config.sms, { db });
  setProviderConfigured('push', push.isAvailable);
  setProviderConfigured('sms', messaging.isAvailable);
  const notifier = createNotifier({ db, mailer, clock, jobQueue, log });

  // Every process evicts a revoked session at once (docs/decisions/065).
  const sessionCache = createSessionCache<Principal>({
    ttlMs: authPolicy.sessionCacheSeconds * 1000,
    maxEntries: authPolicy.sessionCacheEntries,
    now: () => clock.now().getTime(),
  });
  const stopSessionListening = await evictOnSessionChanges(database, sessionCache);
  const plansCache = createReadCache<PlansResponse>({
    ttlMs: config.plansCacheSeconds * 1000,
    maxEntries: 2000,
  });
  const stopPlansListening = plansCache.isEnabled
    ? await invalidateOnCameraChanges(database, plansCache)
    : undefined;

  const auth = createAuthService({
    db,
    clock,
    jobQueue,
    rateLimiter,
    loginLinksPerEmail: config.loginLinksPerEmail,
    sessionCache,
  });
  const staffAccounts = createStaffAccountsService({
    db,
    clock,
    publicUrl: config.publicUrl,
    rateLimiter,
  });
  const loginMail = createLoginMailService({
    db,
    clock,
    mailer,
    publicUrl: config.publicUrl,
    composer: loginLinksComposer,
  });
  const members = createMembersService({
    db,
    clock,
    mailer,
    notifier,
    rateLimiter,
    auth,
    publicUrl: config.publicUrl,
  });
  const coverage = createCoverageService({
    db,
    clock,
    rateLimiter,
    provider: coverageProvider,
    log,
  });
  const cameras = createCamerasService({
    db,
    clock,
    plansCache,
    supportEmail: config.supportEmail,
  });
  const usage = createUsageService({ db, clock });
  const billing = createBillingModule({
    config,
    db,
    billingProvider: createBillingProvider(config, {
      db,
      clock,
      checkoutHooks: createActivationCheckoutHooks(),
      log,
    }),
    connectivity,
    notifier,
    runAlone: (key, work) => database.withAdvisoryLock(key, work),
    log,
  });
  const activation = createActivationModule({
    config,
    db,
    clock,
    rateLimiter,
    billing: billing.provider,
    pricingTables,
    connectivity,
    mailer,
    log,
  });
  const livestreaming = createLivestreaming(config, {
    instanceId: parts.instanceId,
    processClock: overrides.processClock,
    db,
    clock,
    mailer,
    notifier,
    rateLimiter,
    storage,
    uploads,
    recorder,
    cameraAccess: connectivity,
    log,
    showcaseSource: overrides.showcaseSource ?? showcaseSourceFrom(config, parts.localCamera),
    demoCamera: parts.localCamera,
  });

  const activity = createActivityService({
    db,
    clock,
    retentionDays: config.activityRetentionDays,
  });

  const notificationSettings = createNotificationSettingsService({
    db,
    clock,
    push,
    messaging,
    rateLimiter,
    jobQueue,
    smsDailyLimit: config.smsDailyLimitPerPerson,
  });
  const notificationDelivery = createNotificationDelivery({
    db,
    clock,
    push,
    messaging,
    mailer,
    publicUrl: config.publicUrl,
    smsDailyLimit: config.smsDailyLimitPerPerson,
    log,
    onSettled: recordNotificationDelivery,
  });
  const alertSettings = createAlertSettingsService({
    db,
    clock,
    cameraAlertEmails: notificationSettings.cameraAlertEmails,
  });
  const silenceDetection = createSilenceDetection({
    db,
    notifier,
    clock,
    publicUrl: config.publicUrl,
  });
  async function runCameraWatch(): Promise<void> {
    await syncFromPlatform({ db, platform: connectivity, clock });
    await silenceDetection.detectSilentCameras();
  }

  const timelapses = createTimelapseService({
    db,
    clock,
    storage,
    uploads,
    maker: overrides.timelapseMaker ?? createTimelapseMaker(config.livestreaming),
    retentionDays: config.timelapseRetentionDays,
    instanceId,
    processClock: overrides.processClock,
    workFolder: path.join(instanceTemporaryFolder(config.dataDir, instanceId), 'timelapses'),
    log,
  });

  const dataCaps = createDataCaps({
    db,
    platform: connectivity,
    notifier,
    clock,
    publicUrl: config.publicUrl,
  });
  const spendAlerts = createSpendAlerts({
    db,
    billing: billing.provider,
    notifier,
    clock,
    publicUrl: config.publicUrl,
  });
  // After each usage sync: the usage e-mails, then the data caps on the same figures (decision 095).
  const alerts = async () => {
    // A usage e-mail that fails must not hold back the caps: both run, the first failure is raised.
    const failures: unknown[] = [];
    await sendUsageAlerts({ db, notifier, clock, publicUrl: config.publicUrl }).catch(
      (error: unknown) => failures.push(error),
    );
    await dataCaps.applyDataCaps().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  };

  const jobs = [
    purgeExpiredJob({ db, clock }),
    purgeActivityJob({ activity }),
    syncConnectivityJob({
      syncFromPlatform: () => syncFromPlatform({ db, platform: connectivity, clock }),
      sendUsageAlerts: alerts,
    }),
    ...(isLocalSimPlatform(connectivity)
      ? [recordLocalSimUsageJob({ platform: connectivity, sendUsageAlerts: alerts })]
      : []),
    billingCycleJob({ billing }),
    deliverBillingEventsJob({ billing }),
    activationFulfilmentJob({ activation }),
    detectSilentCamerasJob({
      detectSilentCameras: () => silenceDetection.detectSilentCameras(),
    }),
    sendLoginMailJob({ loginMail }),
    ...livestreaming.jobs,
    sendSpendAlertsJob({ sendSpendAlerts: () => spendAlerts.sendSpendAlerts() }),
    buildTimelapseJob({ timelapses }),
    deliverNotificationsJob({ deliverDue: () => notificationDelivery.deliverDue() }),
    purgeTimelapsesJob({ timelapses }),
  ];

  return {
    config,
    database,
    clock,
    log,
    mailer,
    mailDelivery,
    connectivity,
    jobQueue,
    rateLimiter,
    readiness,
    pricingTables,
    auth,
    staffAccounts,
    loginMail,
    coverage,
    cameras,
    usage,
    billing,
    activation,
    livestreaming,
    members,
    activity,
    timelapses,
    alertSettings,
    dataCaps,
    spendAlerts,
    notifier,
    notificationSettings,
    notificationDelivery,
    push,
    messaging,
    async runBudgetChecks() {
      await syncFromPlatform({ db, platform: connectivity, clock });
      await alerts();
    },
    retryPendingUploads: () =>
      uploads.retryDue({
        clip: livestreaming.recording.pendingUploads,
        timelapse: timelapses.pendingUploads,
      }),
    silenceDetection,
    runCameraWatch,
    jobs,
    attachJobRunner(runner) {
      livestreaming.attachJobRunner(runner);
      lateBoundQueue?.attach(runner.queue);
    },
    async close() {
      readiness.stop();
      await stopSessionListening();
      await stopPlansListening?.();
      await mailer.close();
    },
  };
}
