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
import { queueLivestreamRecordingsJob } from '../jobs/queue-livestream-recordings.job.ts';
import { recordLivestreamClipJob } from '../jobs/record-livestream-clip.job.ts';
import { recoverDeadWorkersJob } from '../jobs/recover-dead-workers.job.ts';
import { switchOffUnusedLivestreamsJob } from '../jobs/switch-off-unused-livestreams.job.ts';
import { alertLivestreamClipsJob } from '../jobs/alert-livestream-clips.job.ts';
import { purgeActivityJob } from '../jobs/purge-activity.job.ts';
import { purgeExpiredJob } from '../jobs/purge-expired.job.ts';
import { buildTimelapseJob } from '../jobs/build-timelapse.job.ts';
import { purgeTimelapsesJob } from '../jobs/purge-timelapses.job.ts';
import { refreshCameraStillsJob } from '../jobs/refresh-camera-stills.job.ts';
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
import { createActivationThrottle } from '../modules/activation/activation-throttle.ts';
import {
  createActivationService,
  type ActivationService,
} from '../modules/activation/activation.service.ts';
import { createActivationCheckoutHooks } from '../modules/activation/checkout-hooks.ts';
import {
  createActivationFulfilment,
  type ActivationFulfilment,
} from '../modules/activation/fulfilment.service.ts';
import { createPricingTables, type PricingTables } from '../modules/activation/pricing-tables.ts';
import { authPolicy } from '../modules/auth/auth-policy.ts';
import {
  createImpersonationService,
  type ImpersonationService,
} from '../modules/auth/impersonation.service.ts';
import {
  createMagicLinksService,
  type MagicLinksService,
} from '../modules/auth/magic-links.service.ts';
import { createSessionsService, type SessionsService } from '../modules/auth/sessions.service.ts';
import {
  createStaffSignInService,
  type StaffSignInService,
} from '../modules/auth/staff-sign-in.service.ts';
import type { Principal } from '../modules/auth/principal.ts';
import {
  createLoginLinksComposer,
  createLoginMailService,
  type LoginMailService,
} from '../modules/auth/login-mail.service.ts';
import { createLoginLinks } from '../modules/auth/login-links.service.ts';
import { createSessionCache, evictOnSessionChanges } from '../modules/auth/session-cache.ts';
import { createTeamService, type TeamService } from '../modules/team/team.service.ts';
import { createStaffService, type StaffService } from '../modules/staff/staff.service.ts';
import {
  createStaffAccountsService,
  type StaffAccountsService,
} from '../modules/auth/staff-accounts.service.ts';
import { createBillingCycle, type BillingCycle } from '../modules/billing/billing-cycle.service.ts';
import {
  createBillingAccountService,
  type BillingAccountService,
} from '../modules/billing/billing-account.service.ts';
import { createBillingServiceContext } from '../modules/billing/billing-service-context.ts';
import {
  createFarmBillingService,
  type FarmBillingService,
} from '../modules/billing/farm-billing.service.ts';
import { createPauseService, type PauseService } from '../modules/billing/pause.service.ts';
import {
  createPlanChangeService,
  type PlanChangeService,
} from '../modules/billing/plan-change.service.ts';
import { createRenewalService, type RenewalService } from '../modules/billing/renewal.service.ts';
import { createSimLifecycle, type SimLifecycle } from '../modules/billing/sim-lifecycle.service.ts';
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
import { createUsageSync, type UsageSync } from '../modules/usage/usage-sync.service.ts';
import {
  createLivestreamManagementService,
  type LivestreamManagementService,
} from '../modules/livestream/livestream-management.service.ts';
import {
  createLivestreamPlaybackService,
  type LivestreamPlaybackService,
} from '../modules/public-playback/public-playback.service.ts';
import {
  createLivestreamSetupService,
  type LivestreamSetupService,
} from '../modules/livestream/livestream-setup.service.ts';
import type { LivestreamServiceDependencies } from '../modules/livestream/livestream-access.ts';
import {
  createPublicLinksService,
  type PublicLinksService,
} from '../modules/livestream/public-links.service.ts';
import {
  createLivestreamAlertsService,
  type LivestreamAlertsService,
} from '../modules/livestream-alerts/livestream-alerts.service.ts';
import { createClipRequests } from '../modules/recording/clip-requests.service.ts';
import {
  createRecordingService,
  type RecordingService,
} from '../modules/recording/recording.service.ts';
import {
  createShowcaseService,
  type ShowcaseService,
} from '../modules/recording/showcase.service.ts';
import { createDataCaps, type DataCaps } from '../modules/budget/data-caps.service.ts';
import { createDevBudget, type DevBudget } from '../modules/budget/dev-budget.service.ts';
import { createDevSilence, type DevSilence } from '../modules/camera-watch/dev-silence.service.ts';
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
import {
  createLivePuller,
  createRecorder,
  createStillMaker,
  createTimelapseMaker,
} from '../providers/recorder/create-recorder.ts';
import type { LivePuller } from '../providers/recorder/live-puller.ts';
import {
  createCameraStills,
  type CameraStills,
} from '../modules/live-view/camera-stills.service.ts';
import {
  createLiveViewPuller,
  type LiveViewPullerService,
} from '../modules/live-view/live-view-puller.service.ts';
import {
  createLiveViewService,
  type LiveViewService,
} from '../modules/live-view/live-view.service.ts';
import type { TimelapseMaker } from '../providers/recorder/timelapse-maker.ts';
import {
  createTimelapseService,
  type TimelapseService,
} from '../modules/timelapse/timelapse.service.ts';
import { instanceTemporaryFolder, recordingWorkFolder } from '../lib/instance-workspace.ts';
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
import type { BillingProvider } from '@farmcam/billing';
import type { LocalBillingEngine } from '@farmcam/billing-engine';
import type { StripeBilling } from '../providers/billing/stripe/stripe-billing.ts';
import { showcaseSourceFrom } from './showcase-source.ts';

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
  /** Pulls cameras into HLS for live view (ffmpeg by default). */
  livePuller?: LivePuller;
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

/** Billing: the provider BILLING chose and what is built on it (decisions 020-027, 086). */
export interface BillingParts {
  provider: BillingProvider;
  /** Set with BILLING=local: the engine behind the hosted pages and the test clock. */
  engine: LocalBillingEngine | undefined;
  /** Set with BILLING=stripe: the adapter behind the webhook route. */
  stripe: StripeBilling | undefined;
  /** The parts of billing (decision 086), each handed alone to the routes that use it. */
  planChanges: PlanChangeService;
  pauses: PauseService;
  renewals: RenewalService;
  account: BillingAccountService;
  farm: FarmBillingService;
  /** The SIM's state after billing changes, and billing's reaction to the provider's events. */
  simLifecycle: SimLifecycle;
  /** The cycle the billing job runs (renewals, dunning, pauses, SIM state). */
  cycle: BillingCycle;
}

/** The activation wizard's API and the fulfilment of paid orders (decision 053). */
export interface ActivationParts {
  service: ActivationService;
  fulfilment: ActivationFulfilment;
}

/** Livestreaming: the customers' and the public API, recording, alerts (decisions 040-046). */
export interface LivestreamingParts {
  /** The parts (decision 086), each handed alone to the routes that use it (decision 162). */
  setup: LivestreamSetupService;
  management: LivestreamManagementService;
  /** Public playback: the embed page, livestream-url. */
  playback: LivestreamPlaybackService;
  publicLinks: PublicLinksService;
  /** The Livestreaming page's live demo. */
  showcase: ShowcaseService;
  recording: RecordingService;
  alerts: LivestreamAlertsService;
  /** Where clips are kept (the security headers name its media origins). */
  storage: ClipStorage;
}

/** Live view (issue 27): the API's service and the workers' puller, which meet in the database. */
export interface LiveViewParts {
  service: LiveViewService;
  /** Started by worker processes only (server.ts). */
  puller: LiveViewPullerService;
  /** Each camera's latest still, from what it already recorded (decision 157). */
  stills: CameraStills;
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
  /** Sessions: issued, resolved from a bearer token (cached, evicted by NOTIFY), ended. */
  sessions: SessionsService;
  /** Login links for customers and members: asked for, exchanged. */
  magicLinks: MagicLinksService;
  staffSignIn: StaffSignInService;
  /** Staff opening a customer's portal. */
  impersonation: ImpersonationService;
  /** The staff area: customer search, opening a customer's portal. */
  staff: StaffService;
  staffAccounts: StaffAccountsService;
  loginMail: LoginMailService;
  coverage: CoverageService;
  cameras: CamerasService;
  usage: UsageService;
  billing: BillingParts;
  activation: ActivationParts;
  livestreaming: LivestreamingParts;
  /** Live view: the API's service and the workers' puller (issue 27, decisions 151-159). */
  liveView: LiveViewParts;
  /** The farm's team: its members, invitations (docs/decisions/091). */
  team: TeamService;
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
  /** The usage sync and the checks after it: usage alerts, then data caps (decision 095). */
  usageSync: UsageSync;
  /**
   * Stores the clips and timelapses waiting in this machine's upload spool, unless storage
   * failed a moment ago (workers, after each heartbeat: decision 105).
   */
  retryPendingUploads(): Promise<{ stored: number }>;
  /** Silence alerts: the detection the job runs (decision 094). */
  silenceDetection: SilenceDetection;
  /**
   * With the local SIM platform: a camera made silent or using data at once, and the checks run
   * now (the development routes, decisions 094, 095).
   */
  devTools: { silence: DevSilence; budget: DevBudget } | undefined;
  /** Every job this program runs, for startJobs (a worker runs them, an API only queues). */
  // Each definition checks its own payload type; the list only needs the common shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  jobs: JobDefinition<any>[];
  /** Binds the job queue to the running job runner (unless a test replaced the queue). */
  attachJobRunner(runner: Pick<JobRunner, 'queue'>): void;
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

  const sessions = createSessionsService({ db, clock, sessionCache });
  const magicLinks = createMagicLinksService({
    db,
    clock,
    jobQueue,
    rateLimiter,
    sessions,
    loginLinksPerEmail: config.loginLinksPerEmail,
  });
  const staffSignIn = createStaffSignInService({ db, clock, rateLimiter, sessions });
  const impersonation = createImpersonationService({ db, clock, sessions });
  const staff = createStaffService({ db, clock, impersonation });
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
  const team = createTeamService({
    db,
    clock,
    mailer,
    notifier,
    rateLimiter,
    sessions,
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
  const billingProvider = createBillingProvider(config, {
    db,
    clock,
    checkoutHooks: createActivationCheckoutHooks(),
    log,
  });
  const billingContext = createBillingServiceContext({
    db,
    billing: billingProvider.provider,
    connectivity,
    notifier,
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    log,
  });
  const simLifecycle = createSimLifecycle(billingContext);
  const billing: BillingParts = {
    ...billingProvider,
    planChanges: createPlanChangeService(billingContext),
    pauses: createPauseService(billingContext, simLifecycle),
    renewals: createRenewalService(billingContext),
    account: createBillingAccountService(billingContext),
    farm: createFarmBillingService(billingContext),
    simLifecycle,
    cycle: createBillingCycle({
      db,
      provider: billingProvider.provider,
      engine: billingProvider.engine,
      stripe: billingProvider.stripe,
      simLifecycle,
      runAlone: (key, work) => database.withAdvisoryLock(key, work),
    }),
  };

  const activation: ActivationParts = {
    service: createActivationService({
      db,
      throttle: createActivationThrottle({ rateLimiter }),
      pricingTables,
      billing: billing.provider,
      publicUrl: config.publicUrl,
      supportEmail: config.supportEmail,
      setupGuideUrl: config.activation.setupGuideUrl,
      publishableKey: config.billing.mode === 'stripe' ? config.billing.publishableKey : undefined,
    }),
    fulfilment: createActivationFulfilment({
      db,
      clock,
      billing: billing.provider,
      connectivity,
      mailer,
      loginLinks: createLoginLinks({ db, clock, publicUrl: config.publicUrl }),
      publicUrl: config.publicUrl,
      supportEmail: config.supportEmail,
      log,
    }),
  };
  // Billing's own reaction to an event (the SIM's state) first, then fulfilment of a paid order.
  billing.provider.onEvent((event) => billing.simLifecycle.handleEvent(event));
  billing.provider.onEvent((event) => activation.fulfilment.handleEvent(event));

  // Livestreaming (decisions 040-046): recordings go through the job queue like every job.
  const showcaseSource = overrides.showcaseSource ?? showcaseSourceFrom(config, parts.localCamera);
  const recording = createRecordingService({
    db,
    clock,
    storage,
    uploads,
    recorder,
    cameraAccess: connectivity,
    jobQueue,
    clipHistory: config.livestreaming.clipHistory,
    log,
    showcaseSource,
    instanceId,
    processClock: overrides.processClock,
    workFolder: recordingWorkFolder(config.dataDir, instanceId),
  });
  const livestreamDependencies: LivestreamServiceDependencies = {
    db,
    clock,
    mailer,
    rateLimiter,
    storage,
    cameraAccess: connectivity,
    // Set-up asks recording for a clip now through this part (decision 163).
    clips: createClipRequests({ db, clock, jobQueue }),
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
  };
  const livestreaming: LivestreamingParts = {
    setup: createLivestreamSetupService(livestreamDependencies),
    management: createLivestreamManagementService(livestreamDependencies),
    playback: createLivestreamPlaybackService(livestreamDependencies),
    publicLinks: createPublicLinksService(livestreamDependencies),
    showcase: createShowcaseService({
      db,
      clock,
      storage,
      jobQueue,
      log,
      showcaseSource,
      demoCamera: parts.localCamera,
    }),
    recording,
    alerts: createLivestreamAlertsService({
      db,
      clock,
      notifier,
      mailer,
      publicUrl: config.publicUrl,
      log,
    }),
    storage,
  };

  const liveViewFolder = path.join(instanceTemporaryFolder(config.dataDir, instanceId), 'live');
  const stills = createCameraStills({
    db,
    storage,
    maker: createStillMaker(config.livestreaming),
    workFolder: `${liveViewFolder}-stills`,
    log,
  });
  const livePuller = createLiveViewPuller({
    db,
    clock,
    processClock: overrides.processClock,
    storage,
    puller: overrides.livePuller ?? createLivePuller(config.livestreaming),
    cameraAccess: connectivity,
    // Our own SIM platform counts the pulled bytes as the camera's use; a real network meters them.
    meterTraffic: isLocalSimPlatform(connectivity)
      ? (iccid, bytes) => connectivity.recordCameraTraffic(iccid, bytes)
      : undefined,
    // The view's newest picture becomes the camera's latest still.
    onPullEnded: (ended) => stills.fromLiveView(ended),
    instanceId,
    camerasPerWorker: config.livestreaming.liveViewCamerasPerWorker,
    workFolder: liveViewFolder,
    log,
  });
  const liveView: LiveViewParts = {
    service: createLiveViewService({
      db,
      clock,
      processClock: overrides.processClock,
      storage,
      camerasPerWorker: config.livestreaming.liveViewCamerasPerWorker,
      // In a process that also pulls (ROLE=all), a new pull asked for here starts at once.
      onPullRequested: () => livePuller.wake(),
      log,
    }),
    puller: livePuller,
    stills,
  };

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
    allowPrivatePushEndpoints: config.nodeEnv !== 'production',
  });
  const notificationDelivery = createNotificationDelivery({
    db,
    clock,
    push,
    messaging,
    mailer,
    publicUrl: config.publicUrl,
    smsDailyLimit: config.smsDailyLimitPerPerson,
    allowPrivatePushEndpoints: config.nodeEnv !== 'production',
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
  const usageSync = createUsageSync({
    db,
    platform: connectivity,
    clock,
    notifier,
    publicUrl: config.publicUrl,
    dataCaps,
  });

  const devTools = isLocalSimPlatform(connectivity)
    ? {
        silence: createDevSilence({
          db,
          platform: connectivity,
          clock,
          usageSync,
          silenceDetection,
        }),
        budget: createDevBudget({ platform: connectivity, usageSync }),
      }
    : undefined;

  const jobs = [
    purgeExpiredJob({ db, clock }),
    purgeActivityJob({ activity }),
    syncConnectivityJob({ usage: usageSync }),
    ...(isLocalSimPlatform(connectivity)
      ? [recordLocalSimUsageJob({ platform: connectivity, usage: usageSync })]
      : []),
    billingCycleJob({ cycle: billing.cycle }),
    deliverBillingEventsJob({ engine: billing.engine }),
    activationFulfilmentJob({ fulfilment: activation.fulfilment }),
    detectSilentCamerasJob({
      detectSilentCameras: () => silenceDetection.detectSilentCameras(),
    }),
    sendLoginMailJob({ loginMail }),
    recordLivestreamClipJob({
      recording,
      concurrency: config.livestreaming.recordingConcurrency,
    }),
    queueLivestreamRecordingsJob({ recording }),
    switchOffUnusedLivestreamsJob({ alerts: livestreaming.alerts }),
    alertLivestreamClipsJob({ alerts: livestreaming.alerts }),
    recoverDeadWorkersJob({ recording }),
    sendSpendAlertsJob({ sendSpendAlerts: () => spendAlerts.sendSpendAlerts() }),
    buildTimelapseJob({ timelapses }),
    deliverNotificationsJob({ deliverDue: () => notificationDelivery.deliverDue() }),
    purgeTimelapsesJob({ timelapses }),
    refreshCameraStillsJob({ stills: liveView.stills }),
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
    sessions,
    magicLinks,
    staffSignIn,
    impersonation,
    staff,
    staffAccounts,
    loginMail,
    coverage,
    cameras,
    usage,
    billing,
    activation,
    livestreaming,
    liveView,
    team,
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
    usageSync,
    retryPendingUploads: () =>
      uploads.retryDue({
        clip: livestreaming.recording.pendingUploads,
        timelapse: timelapses.pendingUploads,
      }),
    silenceDetection,
    devTools,
    jobs,
    attachJobRunner(runner) {
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
