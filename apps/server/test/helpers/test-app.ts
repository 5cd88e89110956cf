import type { FastifyInstance, InjectOptions } from 'fastify';
import type { DestinationStream } from 'pino';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { testConfig, type Config } from '../../src/config/config.ts';
import type { DatabaseHandle } from '../../src/db/client.ts';
import { customers, staff, type StaffRole } from '../../src/db/schema.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { hashPassword } from '../../src/lib/tokens.ts';
import { createOutboxMailer, type OutboxMailer } from '../../src/providers/mail/outbox-mailer.ts';
import {
  composeServices,
  type PortOverrides,
  type ProcessParts,
  type Services,
} from '../../src/process/compose.ts';
import { openTestDatabase } from './test-database.ts';
import { createTestJobQueue, type TestJobQueue } from './test-jobs.ts';

export const testPublicUrl = 'http://portal.test';

export interface TestContext {
  app: FastifyInstance;
  database: DatabaseHandle;
  clock: ManualClock;
  mailer: OutboxMailer;
  config: Config;
  /** Jobs the app queued (the login e-mail); `latestLoginToken` runs them first. */
  jobQueue: TestJobQueue;
  /** What the composition root built (process/compose.ts), as server.ts would. */
  services: Services;
  close(): Promise<void>;
}

/** What a test may replace or add: ports, process parts, and where the log and the SPA are. */
export type TestDependencies = PortOverrides &
  Pick<ProcessParts, 'instanceId' | 'localCamera'> &
  AppOptions & {
    /** Where the log goes (stdout when absent); tests read the lines through it. */
    logStream?: DestinationStream;
  };

/**
 * The whole app on a fresh database, composed as server.ts composes it (process/compose.ts) with
 * a manual clock, the outbox mailer and an in-memory job queue in place of those ports.
 */
export async function createTestContext(
  overrides: Partial<Config> = {},
  /** Adds routes before the app is sealed, e.g. a probe for the authorization helper. */
  extend?: (app: FastifyInstance) => void,
  /** More ports (or replacements), made from the context's database, clock and mail. */
  dependencies?: (base: {
    database: DatabaseHandle;
    clock: ManualClock;
    mailer: OutboxMailer;
    config: Config;
  }) => TestDependencies | Promise<TestDependencies>,
): Promise<TestContext> {
  const database = await openTestDatabase();
  const clock = new ManualClock('2026-03-10T12:00:00Z');
  const mailer = createOutboxMailer(database.db);
  const config = testConfig({ publicUrl: testPublicUrl, ...overrides });
  const { logStream, webRoot, instanceId, localCamera, ...ports } =
    (await dependencies?.({ database, clock, mailer, config })) ?? {};
  const jobQueue = createTestJobQueue();
  const services = await composeServices(
    config,
    { database, clock, log: createLogger(config.logLevel, logStream), instanceId, localCamera },
    { mailer, jobQueue, ...ports },
  );
  // The queue runs every job of the program, as a worker would, when a test asks it to.
  for (const job of services.jobs) jobQueue.register(job);
  const app = await buildApp(config, services, {
    webRoot: webRoot ?? '/nonexistent-web-build',
  });
  extend?.(app);
  await app.ready();
  return {
    app,
    database,
    clock,
    mailer,
    config,
    jobQueue,
    services,
    close: async () => {
      await app.close();
      await services.close();
      await database.close();
    },
  };
}

let ipCounter = 1;
/** A distinct client address per call, so per-IP limits do not leak between tests. */
export const nextIp = () => `10.0.${Math.floor(ipCounter / 250)}.${(ipCounter++ % 250) + 1}`;

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function insertCustomer(context: TestContext, email: string): Promise<string> {
  const [row] = await context.database.db.insert(customers).values({ email }).returning();
  return row!.id;
}

export async function insertStaff(
  context: TestContext,
  email: string,
  role: StaffRole,
  password = 'correct horse battery',
): Promise<void> {
  await context.database.db
    .insert(staff)
    .values({ email, role, passwordHash: await hashPassword(password) });
}

/**
 * The newest login link e-mailed to `email`, read from the outbox like a person would, once the
 * queued login e-mails went out.
 */
export async function latestLoginToken(context: TestContext, email: string): Promise<string> {
  await context.jobQueue.runQueued();
  const [message] = await context.mailer.list({ to: email, limit: 1 });
  const match = message?.text.match(/\/login\/([A-Za-z0-9_-]+)/);
  if (!match?.[1]) throw new Error(`No login link in the outbox for ${email}`);
  return match[1];
}

/** Signs a customer in through the real flow: request a link, read the outbox, exchange it. */
export async function signInCustomer(context: TestContext, email: string): Promise<string> {
  const remoteAddress = nextIp();
  const request = await context.app.inject({
    method: 'POST',
    url: '/api/auth/request-login',
    payload: { email },
    remoteAddress,
  });
  if (request.statusCode !== 200) throw new Error(`request-login failed: ${request.body}`);
  const token = await latestLoginToken(context, email);
  const login = await context.app.inject({
    method: 'GET',
    url: `/api/auth/login?token=${token}`,
    remoteAddress,
  });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.body}`);
  return login.json<{ token: string }>().token;
}

export async function signInStaff(
  context: TestContext,
  email: string,
  password = 'correct horse battery',
): Promise<string> {
  const response = await context.app.inject({
    method: 'POST',
    url: '/api/auth/admin-login',
    payload: { email, password },
    remoteAddress: nextIp(),
  });
  if (response.statusCode !== 200) throw new Error(`staff login failed: ${response.body}`);
  return response.json<{ token: string }>().token;
}

export async function impersonate(
  context: TestContext,
  staffToken: string,
  customerId: string,
): Promise<string> {
  const response = await context.app.inject({
    method: 'POST',
    url: `/api/staff/customers/${customerId}/impersonate`,
    headers: bearer(staffToken),
  });
  if (response.statusCode !== 200) throw new Error(`impersonate failed: ${response.body}`);
  return response.json<{ token: string }>().token;
}

export type Injector = (options: InjectOptions) => ReturnType<FastifyInstance['inject']>;
