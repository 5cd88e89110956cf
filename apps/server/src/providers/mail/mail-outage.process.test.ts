/**
 * A mail server outage across real processes on PostgreSQL (docs/decisions/104): an API
 * (ROLE=api) and a worker (ROLE=worker) with MAIL=smtp, and a real SMTP server in the test that
 * is stopped and started again. While it is down, a login e-mail and a team invitation wait in
 * the queue; the worker is killed (kill -9) and another takes its place; when the server is back,
 * each e-mail arrives once and the login link signs the customer in.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  freePort,
  killServerProcess,
  startServerProcess,
  stopServerProcess,
  waitFor,
  waitUntilReady,
  START_UP_MS,
  type ServerProcess,
} from '../../../test/helpers/server-processes.ts';
import { startSmtpSink, type SmtpSink } from '../../../test/helpers/smtp-sink.ts';

const serverUrl = process.env.TEST_DATABASE_URL;
const customerEmail = 'demo@example.com';
const memberEmail = 'hand@example.com';
const metricsToken = randomBytes(32).toString('hex');

describe.skipIf(!serverUrl)(
  'e-mail through a mail server outage, API and worker processes (needs TEST_DATABASE_URL)',
  () => {
    let scratch: { url: string; drop: () => Promise<void> };
    let database: pg.Client;
    let sink: SmtpSink;
    let api: ServerProcess;
    let worker: ServerProcess;
    let secondWorker: ServerProcess | undefined;

    const environment = (role: 'api' | 'worker') => ({
      ROLE: role,
      MAIL: 'smtp',
      SMTP_URL: sink.url,
      METRICS_TOKEN: metricsToken,
      SHUTDOWN_GRACE_SECONDS: '0',
    });
    const mailsTo = (address: string) => sink.received.filter((mail) => mail.to.includes(address));
    const requestLogin = () =>
      fetch(`${api.baseUrl}/api/auth/request-login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: customerEmail }),
      });
    const linkIn = (raw: string) =>
      /\/login\/([A-Za-z0-9_-]+)/.exec(raw.replace(/=\r?\n/g, ''))?.[1];

    beforeAll(async () => {
      scratch = await createScratchDatabase(serverUrl as string, 'farmcam_mail');
      sink = await startSmtpSink({ port: await freePort() });
      api = await startServerProcess(scratch.url, {
        name: 'the API',
        environment: environment('api'),
      });
      worker = await startServerProcess(scratch.url, {
        name: 'the worker',
        environment: environment('worker'),
      });
      database = new pg.Client({ connectionString: scratch.url });
      await database.connect();
      await Promise.all([waitUntilReady(api), waitUntilReady(worker)]);
    }, START_UP_MS + 10_000);

    afterAll(async () => {
      await Promise.all([
        stopServerProcess(api, 10_000),
        stopServerProcess(worker, 10_000),
        stopServerProcess(secondWorker, 10_000),
      ]);
      await database?.end();
      await sink?.stop();
      await scratch?.drop();
    });

    it('keeps the e-mails through the outage and a worker crash, and sends each once after', async () => {
      // Signed in while the mail server works: the e-mail comes within seconds.
      expect((await requestLogin()).status).toBe(200);
      const first = await waitFor('the first login e-mail', async () => mailsTo(customerEmail)[0], {
        timeoutMs: 20_000,
        watch: [api, worker],
      });
      const session = await fetch(`${api.baseUrl}/api/auth/login?token=${linkIn(first.raw)}`);
      expect(session.status).toBe(200);
      const { token } = (await session.json()) as { token: string };

      await sink.stop();
      const before = sink.received.length;
      expect((await requestLogin()).status).toBe(200);
      const invited = await fetch(`${api.baseUrl}/api/team/invite`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ email: memberEmail, role: 'viewer', allCameras: true }),
      });
      // The owner is not told "try again": the invitation waits for the mail server.
      expect(invited.status).toBe(201);

      // The worker found the server down and says so on its metrics.
      await waitFor(
        'the worker to report the mail server unreachable',
        async () => {
          const response = await fetch(`${worker.baseUrl}/metrics`, {
            headers: { authorization: `Bearer ${metricsToken}` },
          });
          return /^farmcam_mail_server_unreachable 1$/m.test(await response.text());
        },
        { timeoutMs: 20_000, watch: [worker], intervalMs: 250 },
      );
      const waiting = await waitFor(
        'both e-mails in the queue',
        async () => {
          const { rows } = await database.query<{ kind: string; status: string; attempts: number }>(
            `select kind, status, attempts from mail_queue where status <> 'sent' order by kind`,
          );
          return rows.length === 2 && rows;
        },
        { timeoutMs: 10_000, watch: [worker] },
      );
      expect(waiting).toEqual([
        { kind: 'invitation', status: 'queued', attempts: 0 },
        { kind: 'login', status: 'queued', attempts: 0 },
      ]);

      // The worker dies; another takes its place while the server is still down.
      await killServerProcess(worker);
      secondWorker = await startServerProcess(scratch.url, {
        name: 'the second worker',
        environment: environment('worker'),
      });
      await waitUntilReady(secondWorker);

      await sink.start();
      await waitFor(
        'both e-mails after the outage',
        async () => mailsTo(customerEmail).length === 2 && mailsTo(memberEmail).length === 1,
        { timeoutMs: 60_000, watch: [api, secondWorker], intervalMs: 250 },
      );
      // Both recorded as sent: settled rows are never delivered again, so each went once.
      await waitFor(
        'both e-mails recorded as sent',
        async () =>
          (await database.query("select 1 from mail_queue where status <> 'sent'")).rowCount === 0,
        { timeoutMs: 10_000, watch: [secondWorker] },
      );
      expect(sink.received.length - before).toBe(2);
      expect(mailsTo(memberEmail)[0]!.subject).toContain('invited you');
      const late = mailsTo(customerEmail)[1]!;
      const signedIn = await fetch(`${api.baseUrl}/api/auth/login?token=${linkIn(late.raw)}`);
      expect(signedIn.status).toBe(200);
      const settled = await database.query<{ status: string; body: unknown }>(
        'select status, body from mail_queue',
      );
      expect(settled.rows.every((row) => row.status === 'sent' && row.body === null)).toBe(true);
    }, 300_000);
  },
);
