import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows, type DatabaseHandle } from '../../db/client.ts';
import { customers, loginTokens } from '../../db/schema.ts';
import { startJobs, type JobFailure, type JobRunner } from '../../jobs/job-runner.ts';
import { sendLoginMailJob } from '../../jobs/send-login-mail.job.ts';
import { ManualClock } from '../../lib/clock.ts';
import type { MailMessage, Mailer } from '../../providers/mail/mail.ts';
import { createOutboxMailer, type OutboxMailer } from '../../providers/mail/outbox-mailer.ts';
import { openTestDatabase } from '../../../test/helpers/test-database.ts';
import { createLoginMailService } from './login-mail.service.ts';

// The login e-mail on the real pg-boss runner: retried when the mail server refuses it,
// reported (id and attempt, never the link), and left `failed` for operators at the end.
let database: DatabaseHandle;
let outbox: OutboxMailer;
let runner: JobRunner;
const failures: JobFailure[] = [];
/** How many of the next deliveries the mail server refuses. */
let refusals = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  outbox = createOutboxMailer(database.db);
  const flakyMailer: Mailer = {
    mode: 'smtp',
    async send(message: MailMessage) {
      if (refusals > 0) {
        refusals -= 1;
        throw new Error('421 4.3.2 Service not available');
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
  expect(job.retry).toEqual({ limit: 4, delaySeconds: 15, isBackoff: true });
  runner = await startJobs(
    database,
    // The production schedule waits 15 s and more; a second keeps the test short.
    [{ ...job, retry: { limit: 2, delaySeconds: 1, isBackoff: false } }],
    {
      onError: (error) => {
        throw error;
      },
      onJobFailed: (failure) => failures.push(failure),
      pollingIntervalSeconds: 0.5,
    },
  );
}, 60_000);
afterAll(async () => {
  await runner?.stop();
  await database?.close();
});

const jobState = async (id: string) =>
  (
    await queryRows<{ state: string }>(
      database.db,
      sql`select state from pgboss.job where id = ${id}`,
    )
  )[0]?.state;

describe('the login e-mail job', () => {
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
        error: expect.objectContaining({ message: '421 4.3.2 Service not available' }),
      },
    ]);
    // The report carries nothing that could sign anyone in.
    expect(JSON.stringify(failures)).not.toMatch(/login\/|token/i);
    await vi.waitFor(async () => expect(await jobState(failures[0]!.id)).toBe('completed'));

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
    await vi.waitFor(async () => expect(await jobState(failures[0]!.id)).toBe('failed'));
    // The earlier, delivered link still works: failed sends void nothing that was sent.
    const open = await database.db
      .select()
      .from(loginTokens)
      .where(eq(loginTokens.requestedIp, '10.9.9.9'));
    expect(open.filter((token) => token.voidedAt === null)).toHaveLength(1);
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
