/**
 * The mail queue (SMTP mode, docs/decisions/104) against a real SMTP server that goes down and
 * comes back, refuses for now and for good; on PGlite, and on PostgreSQL with TEST_DATABASE_URL.
 * Time is a manual clock (retries, expiry, three days), passes are run by hand (`deliverDue`),
 * except the last tests, which run the worker's own loop.
 */
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows, type DatabaseHandle } from '../../db/client.ts';
import { mailQueue } from '../../db/schema.ts';
import { ManualClock } from '../../lib/clock.ts';
import { createInstance } from '../../lib/instance.ts';
import { registry } from '../../lib/metrics.ts';
import { openTestDatabase } from '../../../test/helpers/test-database.ts';
import { startSmtpSink, type SmtpSink } from '../../../test/helpers/smtp-sink.ts';
import { renderEmail, type ComposedMail, type MailComposer } from './mail.ts';
import { mailDeliveryPolicy } from './mail-delivery-policy.ts';
import { createMailQueue, type MailDelivery, type MailQueueLog } from './mail-queue.ts';
import { createSmtpTransport, type MailTransport } from './smtp-transport.ts';

let database: DatabaseHandle;
let sink: SmtpSink;
const clock = new ManualClock('2026-03-10T08:00:00Z');
const logged: { level: string; message: string; fields: object }[] = [];
const log: MailQueueLog = {
  info: (fields, message) => logged.push({ level: 'info', message, fields }),
  warn: (fields, message) => logged.push({ level: 'warn', message, fields }),
  error: (fields, message) => logged.push({ level: 'error', message, fields }),
};
const workers: { delivery: MailDelivery; transport: MailTransport }[] = [];

/** A worker: its own instance row (alive on the manual clock), transport and queue. */
async function worker(options: { composers?: MailComposer<{ to: string }>[] } = {}) {
  const instance = createInstance({ db: database.db, clock, role: 'worker' });
  await instance.register();
  const transport = createSmtpTransport({
    url: sink.url,
    from: 'Farmcam <no-reply@farmcam.example>',
    maxConnections: mailDeliveryPolicy.concurrency,
  });
  const queue = createMailQueue({
    database,
    transport,
    composers: options.composers ?? [],
    instanceId: instance.id,
    clock,
    log,
  });
  workers.push({ delivery: queue.delivery, transport });
  return { ...queue, instance };
}

const message = (to: string, subject = 'Your camera is back') =>
  renderEmail({
    kind: 'camera-silence',
    to,
    subject,
    heading: subject,
    paragraphs: ['It sent data again at 07:58.'],
    action: { label: 'Open the camera', url: 'http://portal.test/camera/1' },
  });

const rowsTo = (to: string) =>
  database.db.select().from(mailQueue).where(eq(mailQueue.toAddress, to));
const receivedBy = (to: string) => sink.received.filter((mail) => mail.to.includes(to));

async function metricValue(name: string, labels: Record<string, string> = {}) {
  const metric = (await registry.getMetricsAsJSON()).find((entry) => entry.name === name);
  const value = (metric?.values ?? []).find((entry) =>
    Object.entries(labels).every(([key, wanted]) => entry.labels[key] === wanted),
  );
  return value?.value ?? 0;
}

beforeAll(async () => {
  database = await openTestDatabase();
  sink = await startSmtpSink();
}, 60_000);
afterEach(async () => {
  for (const { delivery, transport } of workers.splice(0)) {
    await delivery.stop();
    await transport.close();
  }
  await sink.start().catch(() => undefined);
});
afterAll(async () => {
  await sink?.stop();
  await database?.close();
});

describe('the mail queue', () => {
  it('queues without the mail server, delivers once with its own Message-ID and keeps no body', async () => {
    const { mailer, delivery } = await worker();
    await sink.stop();
    await mailer.send(message('first@example.com'));
    const [queued] = await rowsTo('first@example.com');
    expect(queued).toMatchObject({ status: 'queued', kind: 'camera-silence', attempts: 0 });
    expect(queued!.body?.text).toContain('It sent data again');

    await sink.start();
    expect(await delivery.deliverDue()).toBe(1);
    const [mail] = receivedBy('first@example.com');
    expect(mail).toMatchObject({
      from: 'no-reply@farmcam.example',
      subject: 'Your camera is back',
    });
    expect(mail!.messageId).toBe(`<${queued!.id}@farmcam.example>`);
    expect(mail!.raw).toContain('http://portal.test/camera/1');
    const [sent] = await rowsTo('first@example.com');
    expect(sent).toMatchObject({
      status: 'sent',
      attempts: 1,
      claimedBy: null,
      body: null,
      subject: 'Your camera is back',
    });
    expect(sent!.settledAt).not.toBeNull();
    // A second pass finds nothing: sent once.
    expect(await delivery.deliverDue()).toBe(0);
    expect(receivedBy('first@example.com')).toHaveLength(1);
  });

  it('drops a second hand-over with the same key', async () => {
    const { mailer, delivery } = await worker();
    await mailer.send(message('dunned@example.com'), { dedupeKey: 'dunning:in_1:1' });
    await mailer.send(message('dunned@example.com'), { dedupeKey: 'dunning:in_1:1' });
    await mailer.send(message('dunned@example.com'), { dedupeKey: 'dunning:in_1:2' });
    await delivery.deliverDue();
    expect(receivedBy('dunned@example.com')).toHaveLength(2);
  });

  it('keeps every e-mail through a day without the mail server and sends each once when it answers', async () => {
    const { mailer, delivery } = await worker();
    await sink.stop();
    const addresses = Array.from({ length: 8 }, (_, index) => `outage-${index}@example.com`);
    for (const to of addresses) await mailer.send(message(to));
    const attemptsBefore = await metricValue('farmcam_mail_deliveries_total', {
      kind: 'camera-silence',
      outcome: 'failed',
    });

    // A day and an hour of passes, one every few minutes of the clock: one e-mail tries the
    // server each time, the others wait, and no attempt is counted against any of them.
    for (let hour = 0; hour < 25; hour += 1) {
      for (let pass = 0; pass < 4; pass += 1) {
        clock.advance(15 * 60_000);
        await delivery.deliverDue();
      }
    }
    expect(await metricValue('farmcam_mail_server_unreachable')).toBe(1);
    const waiting = await database.db
      .select()
      .from(mailQueue)
      .where(sql`${mailQueue.toAddress} like 'outage-%'`);
    expect(waiting.map((row) => [row.status, row.attempts])).toEqual(
      addresses.map(() => ['queued', 0]),
    );
    // Said once, not once a pass.
    expect(
      logged.filter((line) => line.message.startsWith('The mail server cannot be reached')),
    ).toHaveLength(1);

    await sink.start();
    // The first pass's one e-mail finds the server; the next sends the rest.
    while ((await delivery.deliverDue()) > 0);
    for (const to of addresses) expect(receivedBy(to)).toHaveLength(1);
    expect(await metricValue('farmcam_mail_server_unreachable')).toBe(0);
    expect(
      await metricValue('farmcam_mail_deliveries_total', {
        kind: 'camera-silence',
        outcome: 'failed',
      }),
    ).toBe(attemptsBefore);
    expect(logged.some((line) => line.message.startsWith('The mail server answers again'))).toBe(
      true,
    );
  }, 60_000);

  it('tries a message refused for now again later, and gives up one refused for good after three tries', async () => {
    const { mailer, delivery } = await worker();
    sink.refuse('busy@example.com', 450);
    sink.refuse('gone@example.com', 550);
    await mailer.send(message('busy@example.com'));
    await mailer.send(message('gone@example.com'));
    await mailer.send(message('fine@example.com'));

    await delivery.deliverDue();
    // The server answered, so it is not "unreachable": the good one went at once.
    expect(receivedBy('fine@example.com')).toHaveLength(1);
    const [busy] = await rowsTo('busy@example.com');
    expect(busy).toMatchObject({ status: 'queued', attempts: 1 });
    expect(busy!.lastError).toMatch(/450/);
    expect(busy!.nextAttemptAt.getTime() - clock.now().getTime()).toBe(10_000);

    sink.refuse('busy@example.com', null);
    clock.advance(10_000);
    await delivery.deliverDue();
    expect(receivedBy('busy@example.com')).toHaveLength(1);

    // 550: the 2nd try came with the busy one's, the 3rd comes a minute later, then given up.
    clock.advance(60_000);
    await delivery.deliverDue();
    clock.advance(5 * 60_000);
    await delivery.deliverDue();
    const [gone] = await rowsTo('gone@example.com');
    // Kept whole, for an operator to queue again once the cause is fixed.
    expect(gone).toMatchObject({ status: 'failed', attempts: 3 });
    expect(gone!.body?.subject).toBe('Your camera is back');
    expect(gone!.lastError).toMatch(/550/);
    expect(
      logged.find((line) => line.message === 'E-mail given up: the mail server refused it'),
    ).toMatchObject({ level: 'error', fields: { mailId: gone!.id, kind: 'camera-silence' } });
    // Never the address or the content in the log.
    expect(JSON.stringify(logged)).not.toMatch(/gone@example\.com|portal\.test/);
  });

  it('gives up an e-mail still undelivered after three days', async () => {
    const { mailer, delivery } = await worker();
    sink.refuse('slow@example.com', 450);
    await mailer.send(message('slow@example.com'));
    for (let hours = 0; hours <= 78; hours += 6) {
      await delivery.deliverDue();
      clock.advance(6 * 3_600_000);
    }
    const [row] = await rowsTo('slow@example.com');
    expect(row).toMatchObject({ status: 'failed' });
    sink.refuse('slow@example.com', null);
  });

  it('drops an e-mail past its send-before time instead of sending it late', async () => {
    const { mailer, delivery } = await worker();
    await sink.stop();
    await mailer.send(message('late@example.com', 'Your Farmcam login link'), {
      sendBefore: new Date(clock.now().getTime() + 15 * 60_000),
    });
    await delivery.deliverDue();
    clock.advance(16 * 60_000);
    await sink.start();
    const before = await metricValue('farmcam_mail_deliveries_total', {
      kind: 'camera-silence',
      outcome: 'expired',
    });
    while ((await delivery.deliverDue()) > 0);
    expect(receivedBy('late@example.com')).toEqual([]);
    expect((await rowsTo('late@example.com'))[0]).toMatchObject({ status: 'expired', body: null });
    expect(
      await metricValue('farmcam_mail_deliveries_total', {
        kind: 'camera-silence',
        outcome: 'expired',
      }),
    ).toBe(before + 1);
  });

  it('composes a composed e-mail only as it goes out, and undoes an attempt the server never took', async () => {
    const events: string[] = [];
    const composer: MailComposer<{ to: string }> = {
      name: 'test-links',
      async compose({ to }) {
        const made = `link-${events.filter((event) => event === 'composed').length + 1}`;
        events.push('composed');
        return {
          message: renderEmail({
            kind: 'login',
            to,
            subject: 'Your link',
            heading: 'Your link',
            paragraphs: [made],
          }),
          sent: async (executor) => {
            events.push(`sent ${made} ${executor ? 'in the transaction' : ''}`.trim());
          },
          notSent: async () => {
            events.push(`undone ${made}`);
          },
        } satisfies ComposedMail;
      },
    };
    const { mailer, delivery } = await worker({ composers: [composer] });
    await expect(
      mailer.sendComposed!(
        { ...composer, name: 'unknown' },
        { to: 'x@example.com' },
        {
          to: 'x@example.com',
          kind: 'login',
        },
      ),
    ).rejects.toThrow('not registered');

    await mailer.sendComposed!(
      composer,
      { to: 'linked@example.com' },
      {
        to: 'linked@example.com',
        kind: 'login',
      },
    );
    const [queued] = await rowsTo('linked@example.com');
    expect(queued).toMatchObject({ body: null, composer: 'test-links', subject: null });
    expect(events).toEqual([]);

    await sink.stop();
    await delivery.deliverDue();
    expect(events).toEqual(['composed', 'undone link-1']);
    await sink.start();
    clock.advance(60_000);
    while ((await delivery.deliverDue()) > 0);
    expect(events).toEqual([
      'composed',
      'undone link-1',
      'composed',
      'sent link-2 in the transaction',
    ]);
    const [mail] = receivedBy('linked@example.com');
    expect(mail!.raw).toContain('link-2');
    // Made afresh per attempt: its own Message-ID, never one a receiver could merge.
    expect(mail!.messageId).toBe(`<${queued!.id}.1@farmcam.example>`);
    expect((await rowsTo('linked@example.com'))[0]).toMatchObject({
      status: 'sent',
      subject: 'Your link',
      composerData: null,
    });
  });

  it("takes back the e-mail of a worker that died, and leaves a living worker's alone", async () => {
    const { delivery } = await worker();
    const living = await worker();
    const dead = randomUUID();
    await database.db.insert(mailQueue).values([
      {
        kind: 'other',
        toAddress: 'orphan@example.com',
        body: { subject: 'Orphan', text: 'text', html: '<p>html</p>' },
        status: 'sending',
        attempts: 1,
        claimedBy: dead,
        createdAt: clock.now(),
        nextAttemptAt: clock.now(),
      },
      {
        kind: 'other',
        toAddress: 'held@example.com',
        body: { subject: 'Held', text: 'text', html: '<p>html</p>' },
        status: 'sending',
        attempts: 1,
        claimedBy: living.instance.id,
        createdAt: clock.now(),
        nextAttemptAt: clock.now(),
      },
    ]);
    await delivery.deliverDue();
    await delivery.deliverDue();
    expect(receivedBy('orphan@example.com')).toHaveLength(1);
    expect(receivedBy('held@example.com')).toEqual([]);
    expect((await rowsTo('held@example.com'))[0]).toMatchObject({ status: 'sending' });
    expect(logged.some((line) => line.message.startsWith('E-mails a stopped worker'))).toBe(true);
    await database.db.delete(mailQueue).where(eq(mailQueue.toAddress, 'held@example.com'));
  });

  it('sends each of a burst once with two workers delivering at the same time', async () => {
    const first = await worker();
    const second = await worker();
    const addresses = Array.from({ length: 120 }, (_, index) => `burst-${index}@example.com`);
    for (const to of addresses) await first.mailer.send(message(to, 'Burst'));
    const passes = async (delivery: MailDelivery) => {
      while ((await delivery.deliverDue()) > 0);
    };
    await Promise.all([passes(first.delivery), passes(second.delivery)]);
    const counts = addresses.map((to) => receivedBy(to).length);
    expect(counts).toEqual(addresses.map(() => 1));
    const [{ sent }] = await queryRows<{ sent: number }>(
      database.db,
      sql`select count(*)::int as sent from mail_queue where subject = 'Burst' and status = 'sent'`,
    ).then((rows) => rows as [{ sent: number }]);
    expect(sent).toBe(120);
  });

  it('wakes a running worker at once for a new e-mail', async () => {
    const { mailer, delivery } = await worker();
    await delivery.start();
    // Whether its first (empty) pass is still on or it waits for the next poll, the notification
    // starts a pass at once.
    const queuedAt = performance.now();
    await mailer.send(message('prompt@example.com'));
    await vi.waitFor(() => expect(receivedBy('prompt@example.com')).toHaveLength(1), {
      timeout: 5_000,
      interval: 10,
    });
    // Well before its idle poll of 2 s would have found it.
    expect(performance.now() - queuedAt).toBeLessThan(mailDeliveryPolicy.idlePollMs / 2);
  });

  it('stops after the sends under way and gives back the e-mails it had not begun', async () => {
    const instance = createInstance({ db: database.db, clock, role: 'worker' });
    await instance.register();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    // A mail server that takes its time: every send waits until the test lets it go.
    const slowTransport: MailTransport = {
      async deliver(sent) {
        started.push(sent.to);
        await held;
      },
      close: async () => undefined,
    };
    const { mailer, delivery } = createMailQueue({
      database,
      transport: slowTransport,
      instanceId: instance.id,
      clock,
      log,
    });
    const addresses = Array.from({ length: 7 }, (_, index) => `slow-${index}@example.com`);
    for (const to of addresses) await mailer.send(message(to, 'Slow'));
    const pass = delivery.deliverDue();
    await vi.waitFor(() => expect(started).toHaveLength(mailDeliveryPolicy.concurrency));
    const stopped = delivery.stop();
    release();
    await Promise.all([pass, stopped]);
    const rows = await database.db.select().from(mailQueue).where(eq(mailQueue.subject, 'Slow'));
    const byStatus = (status: string) => rows.filter((row) => row.status === status);
    expect(byStatus('sent')).toHaveLength(mailDeliveryPolicy.concurrency);
    // Never tried: back in the queue, unclaimed and uncounted, for another worker.
    expect(byStatus('queued').map((row) => [row.claimedBy, row.attempts])).toEqual([
      [null, 0],
      [null, 0],
    ]);
  });

  it('claims nothing once stopped; another worker sends what waits', async () => {
    const { mailer, delivery } = await worker();
    await delivery.start();
    await delivery.stop();
    await mailer.send(message('after-stop@example.com'));
    // A stopped worker claims nothing more, even when asked for a pass.
    expect(await delivery.deliverDue()).toBe(0);
    expect(receivedBy('after-stop@example.com')).toEqual([]);
    expect((await rowsTo('after-stop@example.com'))[0]).toMatchObject({ status: 'queued' });
    const other = await worker();
    await other.delivery.deliverDue();
    expect(receivedBy('after-stop@example.com')).toHaveLength(1);
  });
});
