import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows, type DatabaseHandle } from '../../db/client.ts';
import { customers, loginTokens, mailQueue } from '../../db/schema.ts';
import { startJobs, type JobFailure, type JobRunner } from '../../jobs/job-runner.ts';
import { sendLoginMailJob } from '../../jobs/send-login-mail.job.ts';
import { ManualClock } from '../../lib/clock.ts';
import { createInstance } from '../../lib/instance.ts';
import { registry } from '../../lib/metrics.ts';
import { hashToken } from '../../lib/tokens.ts';
import type { MailMessage, Mailer } from '../../providers/mail/mail.ts';
import { createMailQueue, type MailDelivery } from '../../providers/mail/mail-queue.ts';
import { createOutboxMailer, type OutboxMailer } from '../../providers/mail/outbox-mailer.ts';
import { createSmtpTransport } from '../../providers/mail/smtp-transport.ts';
import { openTestDatabase } from '../../../test/helpers/test-database.ts';
import { startSmtpSink, type SmtpSink } from '../../../test/helpers/smtp-sink.ts';
import {
  createLoginLinksComposer,
  createLoginMailService,
  type LoginMailService,
} from './login-mail.service.ts';

const silentLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

const jobState = async (database: DatabaseHandle, id: string) =>
  (
    await queryRows<{ state: string }>(
      database.db,
      sql`select state from pgboss.job where id = ${id}`,
    )
  )[0]?.state;

const openTokens = (database: DatabaseHandle) =>
  database.db.select().from(loginTokens).where(isNull(loginTokens.voidedAt));

// The outbox (development) on the real pg-boss runner: the job sends at once, is retried when
// the mailer refuses, reports the failure (id and attempt, never the link), and is left
// `failed` for operators at the end.
describe('the login e-mail job with the outbox', () => {
  let database: DatabaseHandle;
  let outbox: OutboxMailer;
  let runner: JobRunner;
  const failures: JobFailure[] = [];
  /** How many of the next deliveries the mailer refuses. */
  let refusals = 0;

  beforeAll(async () => {
    database = await openTestDatabase();
    outbox = createOutboxMailer(database.db);
    const flakyMailer: Mailer = {
      mode: 'outbox',
      async send(message: MailMessage) {
        if (refusals > 0) {
          refusals -= 1;
          throw new Error('The outbox could not store it');
        }
        await outbox.send(message);
      },
      close: async () => undefined,
    };
    await database.db.insert(customers).values({ email: 'farmer@example.com' });
    const job = sendLoginMailJob({
      loginMail: createLoginMailService({
        db: database.db,
        clock: new ManualClock('2026-03-10T12:00:00Z'),
        mailer: flakyMailer,
        publicUrl: 'http://portal.test',
      }),
    });
    expect(job).toMatchObject({
      retry: { limit: 4, delaySeconds: 2, isBackoff: true },
      batchSize: 50,
      pollingIntervalSeconds: 0.5,
    });
    runner = await startJobs(
      database,
      // The production schedule waits 2 s and more; a second keeps the test short.
      [{ ...job, retry: { limit: 2, delaySeconds: 1, isBackoff: false } }],
      {
        onError: (error) => {
          throw error;
        },
        onJobFailed: (failure) => failures.push(failure),
      },
    );
  }, 60_000);
  afterAll(async () => {
    await runner?.stop();
    await database?.close();
  });

  it('retries a refused delivery and the link it finally sends is the one that works', async () => {
    refusals = 1;
    await runner.queue.send('send-login-mail', {
      email: 'farmer@example.com',
      requestedIp: '10.9.9.9',
    });
    await vi.waitFor(
      async () => expect(await outbox.list({ to: 'farmer@example.com' })).toHaveLength(1),
      { timeout: 20_000, interval: 200 },
    );
    expect(failures).toEqual([
      {
        name: 'send-login-mail',
        id: expect.any(String),
        attempt: 1,
        willRetry: true,
        error: expect.objectContaining({ message: 'The outbox could not store it' }),
      },
    ]);
    // The report carries nothing that could sign anyone in.
    expect(JSON.stringify(failures)).not.toMatch(/login\/|token/i);
    await vi.waitFor(async () =>
      expect(await jobState(database, failures[0]!.id)).toBe('completed'),
    );

    const tokens = await database.db.select().from(loginTokens);
    expect(tokens).toHaveLength(2);
    // The link of the refused attempt reached nobody and is void; the delivered one is open.
    expect(tokens.filter((token) => token.voidedAt === null)).toHaveLength(1);
    expect(tokens.every((token) => token.requestedIp === '10.9.9.9')).toBe(true);
  });

  it('gives up after its retries and leaves the job failed for operators', async () => {
    failures.length = 0;
    refusals = 3;
    await runner.queue.send('send-login-mail', {
      email: 'farmer@example.com',
      requestedIp: '10.9.9.9',
    });
    await vi.waitFor(() => expect(failures).toHaveLength(3), { timeout: 30_000, interval: 200 });
    expect(failures.map(({ attempt, willRetry }) => ({ attempt, willRetry }))).toEqual([
      { attempt: 1, willRetry: true },
      { attempt: 2, willRetry: true },
      { attempt: 3, willRetry: false },
    ]);
    await vi.waitFor(async () => expect(await jobState(database, failures[0]!.id)).toBe('failed'));
    // The earlier, delivered link still works: failed sends void nothing that was sent.
    expect(await openTokens(database)).toHaveLength(1);
  }, 40_000);

  it('looks the address up itself: a stranger gets no mail and no token', async () => {
    const before = (await database.db.select().from(loginTokens)).length;
    await runner.queue.send('send-login-mail', {
      email: 'stranger@example.com',
      requestedIp: '10.9.9.8',
    });
    await vi.waitFor(
      async () => {
        const [row] = await queryRows<{ state: string }>(
          database.db,
          sql`select state from pgboss.job where data->>'email' = 'stranger@example.com'`,
        );
        expect(row?.state).toBe('completed');
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(await outbox.list({ to: 'stranger@example.com' })).toEqual([]);
    expect(await database.db.select().from(loginTokens)).toHaveLength(before);
  });

  it('refuses a job name nobody registered', async () => {
    await expect(runner.queue.send('no-such-job', {})).rejects.toThrow(
      'No job named no-such-job is registered',
    );
  });
});

// SMTP mode (decision 104): the job queues the e-mail, the queue delivers it to a real SMTP
// server, and the links are made as it goes out.
describe('the login e-mail in SMTP mode', () => {
  let database: DatabaseHandle;
  let sink: SmtpSink;
  let delivery: MailDelivery;
  let loginMail: LoginMailService;
  let closeTransport: () => Promise<void>;
  let composer: ReturnType<typeof createLoginLinksComposer>;
  const clock = new ManualClock('2026-03-10T12:00:00Z');
  const emails = Array.from({ length: 60 }, (_, index) => `rush-${index}@example.com`);

  beforeAll(async () => {
    database = await openTestDatabase();
    sink = await startSmtpSink();
    await database.db
      .insert(customers)
      .values([{ email: 'farmer@example.com' }, ...emails.map((email) => ({ email }))]);
    const instance = createInstance({ db: database.db, clock, role: 'worker' });
    await instance.register();
    composer = createLoginLinksComposer({
      db: database.db,
      clock,
      publicUrl: 'http://portal.test',
    });
    const transport = createSmtpTransport({
      url: sink.url,
      from: 'Farmcam <no-reply@farmcam.example>',
      maxConnections: 5,
    });
    closeTransport = () => transport.close();
    const queue = createMailQueue({
      database,
      transport,
      composers: [composer],
      instanceId: instance.id,
      clock,
      log: silentLog,
    });
    delivery = queue.delivery;
    loginMail = createLoginMailService({
      db: database.db,
      clock,
      mailer: queue.mailer,
      publicUrl: 'http://portal.test',
      composer,
    });
  }, 60_000);
  afterAll(async () => {
    await delivery?.stop();
    await closeTransport?.();
    await sink?.stop();
    await database?.close();
  });

  const request = (email: string, requestedAt = clock.now()) => ({
    email,
    requestedIp: '10.8.8.8',
    requestedAt: requestedAt.toISOString(),
  });
  const linkIn = (raw: string) =>
    /http:\/\/portal\.test\/login\/([A-Za-z0-9_-]+)/.exec(raw.replace(/=\r?\n/g, ''))?.[1];
  const isOpen = async (token: string) => {
    const [row] = await database.db
      .select()
      .from(loginTokens)
      .where(and(eq(loginTokens.tokenHash, hashToken(token)), isNull(loginTokens.voidedAt)));
    return Boolean(row && row.expiresAt > clock.now() && !row.usedAt);
  };

  it('sends a morning burst through the real job runner, one e-mail each, every link working', async () => {
    const runner = await startJobs(database, [sendLoginMailJob({ loginMail })], {
      onError: (error) => {
        throw error;
      },
    });
    // A second worker on the same database runs the delivery loop, as a worker process does.
    const instance = createInstance({ db: database.db, clock, role: 'worker' });
    await instance.register();
    const transport = createSmtpTransport({
      url: sink.url,
      from: 'Farmcam <no-reply@farmcam.example>',
      maxConnections: 5,
    });
    const running = createMailQueue({
      database,
      transport,
      composers: [composer],
      instanceId: instance.id,
      clock,
      log: silentLog,
    }).delivery;
    await running.start();
    try {
      for (const email of emails) await runner.queue.send('send-login-mail', request(email));
      await vi.waitFor(
        () =>
          expect(sink.received.filter((mail) => mail.to[0]?.startsWith('rush-'))).toHaveLength(60),
        { timeout: 30_000, interval: 100 },
      );
      const jobs = await queryRows<{ state: string }>(
        database.db,
        sql`select state from pgboss.job where name = 'send-login-mail'`,
      );
      await vi.waitFor(async () => {
        const states = await queryRows<{ state: string }>(
          database.db,
          sql`select state from pgboss.job where name = 'send-login-mail'`,
        );
        expect(states.map((row) => row.state)).toEqual(jobs.map(() => 'completed'));
      });
      for (const email of emails) {
        const received = sink.received.filter((mail) => mail.to.includes(email));
        expect(received).toHaveLength(1);
        const token = linkIn(received[0]!.raw);
        expect(token).toBeDefined();
        expect(await isOpen(token!)).toBe(true);
      }
      // No link rests in the queue: the rows kept no body, and never held one.
      const rows = await database.db.select().from(mailQueue);
      expect(rows.every((row) => row.body === null && row.status === 'sent')).toBe(true);
      expect(JSON.stringify(rows)).not.toContain('/login/');
    } finally {
      await running.stop();
      await transport.close();
      await runner.stop();
    }
  }, 60_000);

  it('queues one e-mail for a job that runs twice', async () => {
    await loginMail.sendLoginMail(request('farmer@example.com'), { id: 'job-1' });
    await loginMail.sendLoginMail(request('farmer@example.com'), { id: 'job-1' });
    const rows = await database.db
      .select()
      .from(mailQueue)
      .where(eq(mailQueue.dedupeKey, 'login:job-1'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'login', composer: 'login-links', status: 'queued' });
    expect(rows[0]!.sendBefore).toEqual(new Date(clock.now().getTime() + 15 * 60_000));
    await delivery.deliverDue();
    expect(sink.received.filter((mail) => mail.to.includes('farmer@example.com'))).toHaveLength(1);
  });

  it('sends the e-mail once the mail server is back within the quarter hour, with a working link', async () => {
    const before = sink.received.length;
    const tokensBefore = new Set(
      (await database.db.select().from(loginTokens)).map((row) => row.id),
    );
    await sink.stop();
    await loginMail.sendLoginMail(request('farmer@example.com'), { id: 'job-2' });
    await delivery.deliverDue();
    // The attempt that found no server made links nobody received: they are void already.
    const failedAttempt = (await database.db.select().from(loginTokens)).filter(
      (row) => !tokensBefore.has(row.id),
    );
    expect(failedAttempt.length).toBeGreaterThan(0);
    expect(failedAttempt.every((row) => row.voidedAt !== null)).toBe(true);
    clock.advance(10 * 60_000);
    await sink.start();
    while ((await delivery.deliverDue()) > 0);
    const [mail] = sink.received.slice(before);
    expect(sink.received.slice(before)).toHaveLength(1);
    const token = linkIn(mail!.raw)!;
    expect(await isOpen(token)).toBe(true);
    // The link lives its full 15 minutes from the sending.
    clock.advance(14 * 60_000);
    expect(await isOpen(token)).toBe(true);
  });

  it('drops the e-mail when the mail server comes back after the quarter hour: no late link', async () => {
    const before = sink.received.length;
    const expired = async () =>
      (await registry.getMetricsAsJSON())
        .find((metric) => metric.name === 'farmcam_mail_deliveries_total')
        ?.values.find(
          (value) => value.labels.kind === 'login' && value.labels.outcome === 'expired',
        )?.value ?? 0;
    const expiredBefore = await expired();
    await sink.stop();
    await loginMail.sendLoginMail(request('farmer@example.com'), { id: 'job-3' });
    await delivery.deliverDue();
    clock.advance(16 * 60_000);
    await sink.start();
    while ((await delivery.deliverDue()) > 0);
    expect(sink.received.slice(before)).toEqual([]);
    const [row] = await database.db
      .select()
      .from(mailQueue)
      .where(eq(mailQueue.dedupeKey, 'login:job-3'));
    expect(row).toMatchObject({ status: 'expired', composerData: null });
    expect(await expired()).toBe(expiredBefore + 1);
    // And a job that itself ran too late queues nothing.
    await loginMail.sendLoginMail(
      request('farmer@example.com', new Date(clock.now().getTime() - 20 * 60_000)),
      { id: 'job-4' },
    );
    expect(
      await database.db.select().from(mailQueue).where(eq(mailQueue.dedupeKey, 'login:job-4')),
    ).toEqual([]);
    expect(await expired()).toBe(expiredBefore + 2);
  });

  it('queues nothing for a stranger', async () => {
    await loginMail.sendLoginMail(request('stranger@example.com'), { id: 'job-5' });
    expect(
      await database.db
        .select()
        .from(mailQueue)
        .where(eq(mailQueue.toAddress, 'stranger@example.com')),
    ).toEqual([]);
  });
});
