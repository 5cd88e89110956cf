/**
 * The environment, read and validated exactly once. Every variable is listed in the README's
 * configuration table; nothing else in the server reads `process.env`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const booleanText = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: booleanText.default(false),
  DEMO_DATA: booleanText.optional(),
  MAIL: z.enum(['outbox', 'smtp']).default('outbox'),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'SMTP_URL must be smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().default('Farmcam <no-reply@farmcam.example>'),
  ADMIN_PASSWORD: z.string().min(12, 'ADMIN_PASSWORD needs at least 12 characters').optional(),
  TEAM_PASSWORD: z.string().min(12, 'TEAM_PASSWORD needs at least 12 characters').optional(),
  COMPANY_URL: z.url().default('https://www.example.com'),
  SUPPORT_EMAIL: z.string().default('support@farmcam.example'),
  WEB_DIST_DIR: z.string().optional(),
});

const defaultWebDistDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../web/dist',
);

export type Environment = z.input<typeof environmentSchema>;

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  publicUrl: string;
  dataDir: string;
  /** PostgreSQL server URL; when absent the embedded PGlite in `dataDir` is used. */
  databaseUrl: string | undefined;
  logLevel: string;
  trustProxy: boolean;
  /** Seed demo customers, SIMs and staff on first start. */
  isDemoDataEnabled: boolean;
  mail: { mode: 'outbox' } | { mode: 'smtp'; url: string; from: string };
  mailFrom: string;
  adminPassword: string | undefined;
  teamPassword: string | undefined;
  companyUrl: string;
  supportEmail: string;
  /** The built SPA the server serves. */
  webDistDir: string;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
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
    );
  }
  const env = parsed.data;
  const problems: string[] = [];
  if (env.MAIL === 'smtp' && !env.SMTP_URL) problems.push('SMTP_URL: required when MAIL=smtp');
  if (problems.length > 0) throw new ConfigError(problems);

  const workingDirectory = environment.INIT_CWD ?? process.cwd();
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '');
  return {
    nodeEnv: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    publicUrl,
    dataDir: path.resolve(workingDirectory, env.DATA_DIR ?? 'data'),
    databaseUrl: env.DATABASE_URL,
    logLevel: env.LOG_LEVEL,
    trustProxy: env.TRUST_PROXY,
    isDemoDataEnabled: env.DEMO_DATA ?? !env.DATABASE_URL,
    mail:
      env.MAIL === 'smtp'
        ? { mode: 'smtp', url: env.SMTP_URL as string, from: env.MAIL_FROM }
        : { mode: 'outbox' },
    mailFrom: env.MAIL_FROM,
    adminPassword: env.ADMIN_PASSWORD,
    teamPassword: env.TEAM_PASSWORD,
    companyUrl: env.COMPANY_URL,
    supportEmail: env.SUPPORT_EMAIL,
    webDistDir: env.WEB_DIST_DIR
      ? path.resolve(workingDirectory, env.WEB_DIST_DIR)
      : defaultWebDistDir,
  };
}

/** A configuration for tests: in-memory database, outbox mail, quiet logs. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DEMO_DATA: 'false', PORT: '0' }),
    ...overrides,
  };
}
