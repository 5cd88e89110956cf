/**
 * The environment, read and validated exactly once. Every variable is listed in
 * docs/configuration.md; nothing else in the server reads `process.env`.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const booleanText = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** The names proxy-addr (Fastify's `trustProxy`) knows for private and local ranges. */
const namedProxyRanges = ['loopback', 'linklocal', 'uniquelocal'];

function isProxyAddress(entry: string): boolean {
  if (namedProxyRanges.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  // A /0 range is every address: "trust everyone" under another name.
  return (
    /^\d{1,3}$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= (version === 4 ? 32 : 128)
  );
}

/**
 * TRUST_PROXY: how many proxies stand in front of the server (a hop count), or their addresses
 * (IPs, CIDR ranges, or loopback/linklocal/uniquelocal). Never "trust everyone": then any client
 * names its own address in X-Forwarded-For and gets a fresh per-IP allowance per request
 * (docs/decisions/063).
 */
const trustProxyText = z
  .string()
  .default('false')
  .transform((value, context): false | number | string[] => {
    const text = value.trim().toLowerCase();
    if (['', 'false', 'no', '0'].includes(text)) return false;
    if (/^\d+$/.test(text) && Number(text) <= 20) return Number(text);
    const entries = text.split(',').map((entry) => entry.trim());
    if (entries.every(isProxyAddress)) return entries;
    context.addIssue({
      code: 'custom',
      message:
        text === 'true' || text === 'yes'
          ? 'true would trust any X-Forwarded-For header; give the number of proxies in front of the server (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.1,10.0.0.0/8)'
          : 'give the number of proxies in front of the server (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.1,10.0.0.0/8)',
    });
    return z.NEVER;
  });

const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** What this process does: serve the API, run the jobs, or both (docs/decisions/070). */
  ROLE: z.enum(['api', 'worker', 'all']).default('all'),
  /** Default: 5 in production, 0 elsewhere. */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(300).optional(),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  METRICS_TOKEN: z
    .string()
    .min(32, 'METRICS_TOKEN needs at least 32 characters (e.g. `openssl rand -hex 32`)')
    .optional(),
  TRUST_PROXY: trustProxyText,
  DEMO_DATA: booleanText.optional(),
  /** Default: smtp in production, outbox elsewhere (docs/decisions/061). */
  MAIL: z.enum(['outbox', 'smtp']).optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'SMTP_URL must be smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().default('Farmcam <no-reply@farmcam.example>'),
  LOGIN_LINKS_PER_EMAIL: z.coerce.number().int().min(1).max(1000).default(5),
  ADMIN_PASSWORD: z.string().min(12, 'ADMIN_PASSWORD needs at least 12 characters').optional(),
  TEAM_PASSWORD: z.string().min(12, 'TEAM_PASSWORD needs at least 12 characters').optional(),
  COMPANY_URL: z.url().default('https://www.example.com'),
  SUPPORT_EMAIL: z.string().default('support@farmcam.example'),
  WEB_DIST_DIR: z.string().optional(),
  CONNECTIVITY: z.enum(['local', 'http']).default('local'),
  CONNECTIVITY_URL: z.url().optional(),
  CONNECTIVITY_API_KEY: z.string().min(1).optional(),
  PLANS_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  ACTIVITY_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(397, 'ACTIVITY_RETENTION_DAYS must keep at least 13 months (397 days)')
    .max(36500)
    .default(400),
  TIMELAPSE_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1, 'TIMELAPSE_RETENTION_DAYS must keep timelapses at least 1 day')
    .max(3650)
    .default(30),
  COVERAGE: z.enum(['bundled', 'ofcom']).default('bundled'),
  OFCOM_API_URL: z.url().default('https://api-proxy.ofcom.org.uk'),
  OFCOM_API_KEY: z.string().min(1).optional(),
  /** Default `local` outside production; production names it (decision 172). */
  BILLING: z.enum(['local', 'stripe']).optional(),
  BILLING_TEST_CLOCK: booleanText.optional(),
  SUPPLIER_NAME: z.string().trim().min(1).max(200).optional(),
  SUPPLIER_ADDRESS: z.string().trim().min(1).max(500).optional(),
  SUPPLIER_VAT_NUMBER: z.string().trim().min(1).max(40).optional(),
  INVOICE_NUMBER_PREFIX: z
    .string()
    .regex(/^[A-Z0-9]{1,12}$/, 'INVOICE_NUMBER_PREFIX must be 1-12 capital letters or digits')
    .default('FC'),
  VAT_RATE: z.coerce.number().min(0).max(100).default(20),
  API_DOCS: booleanText.optional(),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_/, 'STRIPE_SECRET_KEY must start with sk_ or rk_')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_/, 'STRIPE_WEBHOOK_SECRET must start with whsec_')
    .optional(),
  STRIPE_PUBLISHABLE_KEY: z
    .string()
    .regex(/^pk_/, 'STRIPE_PUBLISHABLE_KEY must start with pk_')
    .optional(),
  STRIPE_API_URL: z.url().optional(),
  /** Web Push (decision 123): the VAPID key pair, base64url as `web-push generate-vapid-keys` prints. */
  VAPID_PUBLIC_KEY: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]{80,90}$/,
      'VAPID_PUBLIC_KEY must be the base64url public key (87 characters)',
    )
    .optional(),
  VAPID_PRIVATE_KEY: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]{40,46}$/,
      'VAPID_PRIVATE_KEY must be the base64url private key (43 characters)',
    )
    .optional(),
  /** Who push services may contact about our pushes: mailto:… or https://… */
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:|https:\/\/)/, 'VAPID_SUBJECT must start with mailto: or https://')
    .optional(),
  /** Text messages (decision 124): kept in the database (local), Twilio, or off. */
  SMS: z.enum(['off', 'local', 'twilio']).optional(),
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'TWILIO_ACCOUNT_SID must start with AC and have 34 characters')
    .optional(),
  TWILIO_AUTH_TOKEN: z.string().min(16, 'TWILIO_AUTH_TOKEN looks too short').optional(),
  /** The number texts come from (E.164), or use TWILIO_MESSAGING_SERVICE_SID. */
  TWILIO_FROM: z
    .string()
    .regex(/^\+[1-9]\d{6,14}$/, 'TWILIO_FROM must be a number in E.164, e.g. +447700900123')
    .optional(),
  TWILIO_MESSAGING_SERVICE_SID: z
    .string()
    .regex(/^MG[0-9a-fA-F]{32}$/, 'TWILIO_MESSAGING_SERVICE_SID must start with MG')
    .optional(),
  /** Another API address for Twilio (a local fake of its Messages API in tests). */
  TWILIO_API_URL: z.url().optional(),
  SMS_DAILY_LIMIT_PER_PERSON: z.coerce.number().int().min(1).max(1000).default(10),
  STRIPE_PRICING_TABLE_UK: z
    .string()
    .regex(/^prctbl_/, 'STRIPE_PRICING_TABLE_UK must start with prctbl_')
    .optional(),
  STRIPE_PRICING_TABLE_IE: z
    .string()
    .regex(/^prctbl_/, 'STRIPE_PRICING_TABLE_IE must start with prctbl_')
    .optional(),
  STRIPE_PRICING_TABLE_UK_SOLAR: z
    .string()
    .regex(/^prctbl_/, 'STRIPE_PRICING_TABLE_UK_SOLAR must start with prctbl_')
    .optional(),
  STRIPE_PRICING_TABLE_IE_SOLAR: z
    .string()
    .regex(/^prctbl_/, 'STRIPE_PRICING_TABLE_IE_SOLAR must start with prctbl_')
    .optional(),
  SETUP_GUIDE_URL: z.url().default('https://www.example.com/setup-guide'),
  STORAGE: z.enum(['fs', 's3']).default('fs'),
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default('eu-west-2'),
  S3_ENDPOINT: z.url().optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
  LOCAL_CAMERA_PORT: z.coerce.number().int().min(0).max(65535).default(8554),
  RECORDING_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  CLIP_HISTORY: z.coerce.number().int().min(1).max(1000).default(48),
  /** Cameras one worker pulls live at once (decision 153). */
  LIVE_VIEW_CAMERAS_PER_WORKER: z.coerce.number().int().min(0).max(200).default(30),
  SHOWCASE_RTSP_URL: z
    .string()
    .regex(/^rtsps?:\/\//, 'SHOWCASE_RTSP_URL must be an rtsp:// URL')
    .optional(),
});

const defaultWebDistDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../web/dist',
);

export type Environment = z.input<typeof environmentSchema>;

/**
 * The production default of SHUTDOWN_GRACE_SECONDS: the documented load balancer (docs/operations.md:
 * readyz every 5 s, out after 2 failures, 3 s time-out) has taken a draining instance out within
 * 2 × 5 + 3 = 13 s; 2 s more for the timers' drift. A rolling restart of two APIs behind it then
 * drops no request (the drill in docs/operations.md; decision 103). 5 s dropped about 1,000.
 */
export const productionShutdownGraceSeconds = 15;

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  /**
   * `api` serves the customer API and queues jobs; `worker` runs the jobs and the recorder and
   * serves only the probes and metrics; `all` does both (docs/decisions/070).
   */
  role: 'api' | 'worker' | 'all';
  /**
   * After SIGTERM, how long the process keeps serving while /api/readyz answers `draining`, so
   * the load balancer stops sending it requests before it stops accepting them.
   */
  shutdownGraceSeconds: number;
  host: string;
  port: number;
  publicUrl: string;
  dataDir: string;
  /** PostgreSQL server URL; when absent the embedded PGlite in `dataDir` is used. */
  databaseUrl: string | undefined;
  logLevel: string;
  /**
   * `json` lines (production's default, for log stores) or one readable line per event
   * (development's default, docs/decisions/106).
   */
  logFormat: LogFormat;
  /** Bearer token Prometheus presents at GET /metrics; unset: /metrics is not served. */
  metricsToken: string | undefined;
  /** Fastify's `trustProxy`: false, a hop count, or the proxies' addresses and ranges. */
  trustProxy: false | number | string[];
  /** Seed demo customers, SIMs and staff on first start. */
  isDemoDataEnabled: boolean;
  /** Serve the OpenAPI viewer and document at /api/docs. */
  isApiDocsEnabled: boolean;
  mail: { mode: 'outbox' } | { mode: 'smtp'; url: string; from: string };
  mailFrom: string;
  /** Login links one e-mail address may request per 15 minutes. */
  loginLinksPerEmail: number;
  /**
   * Initial passwords of the demo staff accounts, used only when demo data is first seeded in
   * development (generated when unset); refused in production.
   */
  adminPassword: string | undefined;
  teamPassword: string | undefined;
  companyUrl: string;
  supportEmail: string;
  /** The built SPA the server serves. */
  webDistDir: string;
  /** The SIM platform: the local one kept in our database, or a platform's HTTP API. */
  connectivity: { mode: 'local' } | { mode: 'http'; url: string; apiKey: string };
  /** How long a customer's camera list may be served from memory (0 turns the cache off). */
  plansCacheSeconds: number;
  /** How long the audit log (the accounts' activity logs) is kept: at least 13 months (decision 092). */
  activityRetentionDays: number;
  /** Days each camera's daily timelapse is kept (decision 097). */
  timelapseRetentionDays: number;
  /** Where postcode signal coverage comes from: the bundled demo dataset or Ofcom's API. */
  coverage: { mode: 'bundled' } | { mode: 'ofcom'; apiUrl: string; apiKey: string };
  /** The business named on the local engine's invoices (docs/decisions/026). */
  supplier: {
    name: string;
    addressLines: string[];
    vatNumber: string;
    /**
     * False in production while SUPPLIER_* are unset: the portal still starts (it needs only
     * PUBLIC_URL and SMTP_URL), warns at start, and invoices say the details are missing rather
     * than print the demo's stand-ins (docs/decisions/026).
     */
    isConfigured: boolean;
  };
  /** The local engine's invoice numbers (one gapless sequence per prefix) and VAT in prices. */
  invoicing: { numberPrefix: string; vatRateBasisPoints: number };
  /** The billing provider: the local engine in our database, or Stripe. */
  billing:
    | { mode: 'local'; isTestClockEnabled: boolean }
    | {
        mode: 'stripe';
        secretKey: string;
        webhookSecret: string;
        publishableKey: string | undefined;
        /** Another API address (a local fake of Stripe in tests). */
        apiUrl: string | undefined;
      };
  /** Activation (docs/requirements.md#screens): Stripe pricing tables per region and SIM kind (unset: our own table). */
  activation: {
    stripePricingTables: {
      uk: string | undefined;
      ie: string | undefined;
      ukSolar: string | undefined;
      ieSolar: string | undefined;
    };
    /** The camera setup guide the thank-you page links to. */
    setupGuideUrl: string;
  };
  /** Where recorded clips are kept: files under DATA_DIR/clips, or an S3 bucket. */
  storage:
    | { mode: 'fs' }
    | {
        mode: 's3';
        bucket: string;
        region: string;
        /** An S3-compatible service instead of AWS. */
        endpoint: string | undefined;
        /** Without these, the AWS SDK's default credential chain is used. */
        accessKeyId: string | undefined;
        secretAccessKey: string | undefined;
      };
  /**
   * Web Push (decision 123): off, the configured VAPID keys, or (outside production, keys unset)
   * a pair generated once per data folder and kept in the database.
   */
  push:
    | { mode: 'off' }
    | { mode: 'configured'; publicKey: string; privateKey: string; subject: string }
    | { mode: 'generated'; subject: string };
  /** Text messages (decision 124): off, the local store shown at /dev/sms, or Twilio. */
  sms:
    | { mode: 'off' }
    | { mode: 'local' }
    | {
        mode: 'twilio';
        accountSid: string;
        authToken: string;
        from: string | undefined;
        messagingServiceSid: string | undefined;
        /** Another API address (a local fake of Twilio in tests). */
        apiUrl: string | undefined;
      };
  /** Text messages one person receives a UK day; the rest are summarised by e-mail. */
  smsDailyLimitPerPerson: number;
  livestreaming: {
    ffmpegPath: string;
    /** The local demo camera's RTSP port (local connectivity); 0 picks a free one. */
    localCameraPort: number;
    /** Recordings one process runs at once. */
    recordingConcurrency: number;
    /** Ready clips kept per livestream. */
    clipHistory: number;
    /** The camera the marketing page's live demo records; the local camera when unset locally. */
    showcaseRtspUrl: string | undefined;
    /** Cameras one worker pulls for live view at once; 0: this deployment offers no live view. */
    liveViewCamerasPerWorker: number;
  };
}

/** How log lines are written: JSON objects, or one readable line per event (decision 106). */
export type LogFormat = 'json' | 'pretty';

/**
 * LOG_FORMAT, else JSON in production (log stores) and tests (they read it), readable lines in
 * development. Also answers for an environment that does not parse, so even the refusal of a bad
 * configuration is written in the format the operator's log expects.
 */
export function logFormatOf(environment: Record<string, string | undefined>): LogFormat {
  const asked = environment.LOG_FORMAT;
  if (asked === 'json' || asked === 'pretty') return asked;
  return environment.NODE_ENV === 'production' || environment.NODE_ENV === 'test'
    ? 'json'
    : 'pretty';
}

export class ConfigError extends Error {
  constructor(
    public readonly problems: string[],
    /** The format the refusal is written in (LOG_FORMAT, or its default for NODE_ENV). */
    public readonly logFormat: LogFormat = 'pretty',
  ) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

/** Parses the environment; throws ConfigError listing every problem at once. */
export function loadConfig(environment: Record<string, string | undefined> = process.env): Config {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`,
      ),
      logFormatOf(environment),
    );
  }
  const env = parsed.data;
  const isProduction = env.NODE_ENV === 'production';
  const mailMode = env.MAIL ?? (isProduction ? 'smtp' : 'outbox');
  const problems: string[] = [];
  // Production refuses what would expose customers (docs/decisions/061-production-mode.md).
  if (isProduction && !env.PUBLIC_URL) {
    problems.push('PUBLIC_URL: required in production (the address e-mailed sign-in links open)');
  }
  if (isProduction && env.MAIL === 'outbox') {
    problems.push(
      'MAIL: the outbox cannot be used in production (anyone could read sign-in links); set MAIL=smtp with SMTP_URL',
    );
  } else if (isProduction && !env.SMTP_URL) {
    problems.push('SMTP_URL: required in production (customers sign in with e-mailed links)');
  } else if (mailMode === 'smtp' && !env.SMTP_URL) {
    problems.push('SMTP_URL: required when MAIL=smtp');
  }
  // The local engine takes only test cards, so production never falls back on it: an operator
  // who forgot BILLING=stripe would give cameras to anyone typing 4242… (decision 172).
  if (isProduction && !env.BILLING) {
    problems.push(
      'BILLING: required in production: stripe to take payments, or local for a site that takes none (its forms accept only test cards, docs/decisions/172)',
    );
  }
  if (isProduction && env.BILLING_TEST_CLOCK === true) {
    problems.push(
      'BILLING_TEST_CLOCK: the test clock moves billing time for every customer and cannot be turned on in production',
    );
  }
  // The example environment file (ops/farmcam.env.example) writes every secret as a `change-me`
  // placeholder: production refuses one left in place rather than run on a secret anyone can
  // read in this repository (docs/decisions/107).
  if (isProduction) {
    for (const key of Object.keys(environmentSchema.shape)) {
      if (/change-me/i.test(environment[key] ?? '')) {
        problems.push(`${key}: still the example's placeholder (change-me); put your own value in`);
      }
    }
  }
  // Staff accounts come from `npm run staff` (docs/decisions/062); these only seed the demo.
  if (isProduction && (env.ADMIN_PASSWORD || env.TEAM_PASSWORD)) {
    problems.push(
      'ADMIN_PASSWORD and TEAM_PASSWORD: only for the development demo; in production create staff with `npm run staff -- add EMAIL --role admin`',
    );
  }
  if (env.BILLING === 'stripe' && !env.STRIPE_SECRET_KEY) {
    problems.push('STRIPE_SECRET_KEY: required when BILLING=stripe');
  }
  if (env.BILLING === 'stripe' && !env.STRIPE_WEBHOOK_SECRET) {
    problems.push('STRIPE_WEBHOOK_SECRET: required when BILLING=stripe');
  }
  if (env.COVERAGE === 'ofcom' && !env.OFCOM_API_KEY) {
    problems.push('OFCOM_API_KEY: required when COVERAGE=ofcom');
  }
  if (env.CONNECTIVITY === 'http' && !env.CONNECTIVITY_URL) {
    problems.push('CONNECTIVITY_URL: required when CONNECTIVITY=http');
  }
  if (env.CONNECTIVITY === 'http' && !env.CONNECTIVITY_API_KEY) {
    problems.push('CONNECTIVITY_API_KEY: required when CONNECTIVITY=http');
  }
  if (env.STORAGE === 's3' && !env.S3_BUCKET) problems.push('S3_BUCKET: required when STORAGE=s3');
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: give both or neither');
  }
  if (Boolean(env.VAPID_PUBLIC_KEY) !== Boolean(env.VAPID_PRIVATE_KEY)) {
    problems.push('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY: give both or neither');
  }
  if (env.VAPID_PUBLIC_KEY && isProduction && !env.VAPID_SUBJECT) {
    problems.push(
      'VAPID_SUBJECT: required with the VAPID keys in production (mailto: an address push services can write to)',
    );
  }
  const smsMode = env.SMS ?? (isProduction ? (env.TWILIO_ACCOUNT_SID ? 'twilio' : 'off') : 'local');
  if (isProduction && smsMode === 'local') {
    problems.push(
      'SMS: the local store cannot be used in production (nobody would receive the texts); set SMS=twilio with the TWILIO_* variables, or SMS=off',
    );
  }
  if (smsMode === 'twilio') {
    if (!env.TWILIO_ACCOUNT_SID) problems.push('TWILIO_ACCOUNT_SID: required when SMS=twilio');
    if (!env.TWILIO_AUTH_TOKEN) problems.push('TWILIO_AUTH_TOKEN: required when SMS=twilio');
    if (!env.TWILIO_FROM && !env.TWILIO_MESSAGING_SERVICE_SID) {
      problems.push('TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID: required when SMS=twilio');
    }
  }
  // The embedded database is one process's (its directory is locked): split roles need a server.
  if (env.ROLE !== 'all' && !env.DATABASE_URL) {
    problems.push(
      `ROLE: ${env.ROLE} needs DATABASE_URL (a PostgreSQL server the api and worker processes share); the embedded database runs only ROLE=all`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems, logFormatOf(environment));

  const workingDirectory = environment.INIT_CWD ?? process.cwd();
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '');
  return {
    nodeEnv: env.NODE_ENV,
    role: env.ROLE,
    shutdownGraceSeconds:
      env.SHUTDOWN_GRACE_SECONDS ?? (isProduction ? productionShutdownGraceSeconds : 0),
    host: env.HOST,
    port: env.PORT,
    publicUrl,
    dataDir: path.resolve(workingDirectory, env.DATA_DIR ?? 'data'),
    databaseUrl: env.DATABASE_URL,
    logLevel: env.LOG_LEVEL,
    logFormat: logFormatOf(environment),
    metricsToken: env.METRICS_TOKEN,
    trustProxy: env.TRUST_PROXY,
    // Production seeds demo data only when asked to, whatever the database.
    isDemoDataEnabled: env.DEMO_DATA ?? (!isProduction && !env.DATABASE_URL),
    isApiDocsEnabled: env.API_DOCS ?? !isProduction,
    mail:
      mailMode === 'smtp'
        ? { mode: 'smtp', url: env.SMTP_URL as string, from: env.MAIL_FROM }
        : { mode: 'outbox' },
    mailFrom: env.MAIL_FROM,
    loginLinksPerEmail: env.LOGIN_LINKS_PER_EMAIL,
    adminPassword: env.ADMIN_PASSWORD,
    teamPassword: env.TEAM_PASSWORD,
    companyUrl: env.COMPANY_URL,
    supportEmail: env.SUPPORT_EMAIL,
    webDistDir: env.WEB_DIST_DIR
      ? path.resolve(workingDirectory, env.WEB_DIST_DIR)
      : defaultWebDistDir,
    connectivity:
      env.CONNECTIVITY === 'http'
        ? {
            mode: 'http',
            url: (env.CONNECTIVITY_URL as string).replace(/\/$/, ''),
            apiKey: env.CONNECTIVITY_API_KEY as string,
          }
        : { mode: 'local' },
    plansCacheSeconds: env.PLANS_CACHE_SECONDS,
    activityRetentionDays: env.ACTIVITY_RETENTION_DAYS,
    timelapseRetentionDays: env.TIMELAPSE_RETENTION_DAYS,
    coverage:
      env.COVERAGE === 'ofcom'
        ? {
            mode: 'ofcom',
            apiUrl: env.OFCOM_API_URL.replace(/\/$/, ''),
            apiKey: env.OFCOM_API_KEY as string,
          }
        : { mode: 'bundled' },
    supplier: {
      name:
        env.SUPPLIER_NAME ?? (isProduction ? 'Supplier name not configured' : 'Farmcam Demo Ltd'),
      addressLines: (
        env.SUPPLIER_ADDRESS ??
        (isProduction ? '' : '1 Demo Farm Lane, Exampleton, EX1 2MP, United Kingdom')
      )
        .split(/\s*[,\n]\s*/)
        .filter(Boolean),
      vatNumber:
        env.SUPPLIER_VAT_NUMBER ?? (isProduction ? 'not configured' : 'GB 000 0000 00 (demo)'),
      isConfigured:
        !isProduction ||
        Boolean(env.SUPPLIER_NAME && env.SUPPLIER_ADDRESS && env.SUPPLIER_VAT_NUMBER),
    },
    invoicing: {
      numberPrefix: env.INVOICE_NUMBER_PREFIX,
      vatRateBasisPoints: Math.round(env.VAT_RATE * 100),
    },
    billing:
      env.BILLING === 'stripe'
        ? {
            mode: 'stripe',
            secretKey: env.STRIPE_SECRET_KEY as string,
            webhookSecret: env.STRIPE_WEBHOOK_SECRET as string,
            publishableKey: env.STRIPE_PUBLISHABLE_KEY,
            apiUrl: env.STRIPE_API_URL,
          }
        : {
            mode: 'local',
            isTestClockEnabled: !isProduction && (env.BILLING_TEST_CLOCK ?? true),
          },
    activation: {
      stripePricingTables: {
        uk: env.STRIPE_PRICING_TABLE_UK,
        ie: env.STRIPE_PRICING_TABLE_IE,
        ukSolar: env.STRIPE_PRICING_TABLE_UK_SOLAR,
        ieSolar: env.STRIPE_PRICING_TABLE_IE_SOLAR,
      },
      setupGuideUrl: env.SETUP_GUIDE_URL,
    },
    storage:
      env.STORAGE === 's3'
        ? {
            mode: 's3',
            bucket: env.S3_BUCKET as string,
            region: env.S3_REGION,
            endpoint: env.S3_ENDPOINT,
            accessKeyId: env.S3_ACCESS_KEY_ID,
            secretAccessKey: env.S3_SECRET_ACCESS_KEY,
          }
        : { mode: 'fs' },
    push:
      env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY
        ? {
            mode: 'configured',
            publicKey: env.VAPID_PUBLIC_KEY,
            privateKey: env.VAPID_PRIVATE_KEY,
            subject: env.VAPID_SUBJECT ?? `mailto:${env.SUPPORT_EMAIL}`,
          }
        : isProduction
          ? { mode: 'off' }
          : { mode: 'generated', subject: env.VAPID_SUBJECT ?? `mailto:${env.SUPPORT_EMAIL}` },
    sms:
      smsMode === 'twilio'
        ? {
            mode: 'twilio',
            accountSid: env.TWILIO_ACCOUNT_SID as string,
            authToken: env.TWILIO_AUTH_TOKEN as string,
            from: env.TWILIO_FROM,
            messagingServiceSid: env.TWILIO_MESSAGING_SERVICE_SID,
            apiUrl: env.TWILIO_API_URL?.replace(/\/$/, ''),
          }
        : { mode: smsMode },
    smsDailyLimitPerPerson: env.SMS_DAILY_LIMIT_PER_PERSON,
    livestreaming: {
      ffmpegPath: env.FFMPEG_PATH,
      localCameraPort: env.LOCAL_CAMERA_PORT,
      recordingConcurrency: env.RECORDING_CONCURRENCY,
      clipHistory: env.CLIP_HISTORY,
      showcaseRtspUrl: env.SHOWCASE_RTSP_URL,
      liveViewCamerasPerWorker: env.LIVE_VIEW_CAMERAS_PER_WORKER,
    },
  };
}

/** A configuration for tests: in-memory database, outbox mail, quiet logs. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    // The camera-list cache is off: tests read what they just wrote (its own tests turn it on).
    ...loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DEMO_DATA: 'false',
      PORT: '0',
      PLANS_CACHE_SECONDS: '0',
    }),
    ...overrides,
  };
}
