/**
 * SMTP mode's mailer (docs/decisions/104). `send` writes the e-mail to `mail_queue` and returns:
 * no request or job waits on the mail server, and an e-mail outlives a mail server that is down
 * for days. The workers deliver: a new row wakes them at once (NOTIFY mail_queue, from a trigger
 * on insert); each claims a batch with one statement (FOR UPDATE SKIP LOCKED), sends it over a
 * pool of SMTP connections, and records each delivery.
 *
 * Once, as far as SMTP allows:
 * - a claim names the worker (`claimed_by`); only that worker settles the row, and a row held by
 *   a dead worker (no heartbeat, lib/instance.ts) is queued again by the next pass anywhere;
 * - a delivery the server accepted is recorded before anything else is claimed (kept in memory
 *   and recorded on the next pass if the database failed in between);
 * - the one gap is a worker dying between the server's "250 OK" and that record: the e-mail is
 *   then sent again, with the same Message-ID (a composed one, with fresh links, gets its own).
 *
 * A server that cannot be reached is not the e-mail's fault: the worker gives its e-mails back
 * uncounted and tries one again after a wait doubling from 1 to 30 s; the first answer sends the
 * rest. A server that refuses one e-mail for now (4xx) sees it again later (10 s… 30 min), for up
 * to three days; one refused for good (5xx) is given up after three tries. An e-mail past its
 * `send_before` (a login e-mail) is dropped as `expired`, never sent late. Sent, expired and
 * skipped rows keep no body, so no link outlives its delivery in the table; a given-up one keeps
 * it for an operator to queue again.
 */
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { queryRows, type DatabaseHandle } from '../../db/client.ts';
import { mailQueue, type MailQueueStatus } from '../../db/schema.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { isAliveSql } from '../../lib/instance.ts';
import {
  countMailDelivery,
  registerMailKinds,
  setMailQueueBacklog,
  setMailServerUnreachable,
} from '../../lib/metrics.ts';
import {
  mailKinds,
  type ComposedMail,
  type MailComposer,
  type Mailer,
  type MailMessage,
  type SendOptions,
} from './mail.ts';
import { mailDeliveryPolicy, nextMailAttempt, unreachableWaitMs } from './mail-delivery-policy.ts';
import {
  classifyDeliveryFailure,
  describeDeliveryFailure,
  type MailTransport,
} from './smtp-transport.ts';

/** The channel a new row notifies (migration 0022's trigger); the workers listen. */
export const mailQueueChannel = 'mail_queue';

type LogMethod = (object: object, message: string) => void;
export interface MailQueueLog {
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

export interface MailDelivery {
  /** Delivers in this process from now on (workers): at once on each new e-mail. */
  start(): Promise<void>;
  /**
   * One pass: records, takes back, claims and sends what is due. Returns the e-mails it settled
   * or tried (0 when there were none, or the server could not be reached, or it is stopping).
   */
  deliverDue(): Promise<number>;
  /** Claims nothing more, lets the sends under way finish and gives back what it had not begun. */
  stop(): Promise<void>;
}

interface ClaimedMail {
  id: string;
  kind: string;
  to_address: string;
  body: { replyTo?: string; subject: string; text: string; html: string } | null;
  composer: string | null;
  composer_data: object | null;
  attempts: number;
  send_before: Date | string | null;
  created_at: Date | string;
}

/** What one e-mail's attempt told about the mail server. */
type Outcome = 'sent' | 'refused' | 'unreachable' | 'settled' | 'not-tried';

export function createMailQueue(deps: {
  database: Pick<DatabaseHandle, 'db' | 'listen'>;
  transport: MailTransport;
  // Each composer checks its own data; the queue only stores and hands it back.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  composers?: readonly MailComposer<any>[];
  /** This process (instances.id): the claim written on the e-mails it delivers. */
  instanceId: string;
  /** Real time: retries, expiry and whether a claimant is alive. The system clock by default. */
  clock?: Clock;
  log: MailQueueLog;
}): { mailer: Mailer; delivery: MailDelivery } {
  const { db } = deps.database;
  const clock = deps.clock ?? systemClock;
  const composers = new Map((deps.composers ?? []).map((composer) => [composer.name, composer]));
  const me = deps.instanceId;

  async function enqueue(values: typeof mailQueue.$inferInsert): Promise<void> {
    await db
      .insert(mailQueue)
      .values({ ...values, createdAt: clock.now(), nextAttemptAt: clock.now() })
      .onConflictDoNothing({ target: mailQueue.dedupeKey });
  }

  const mailer: Mailer = {
    mode: 'smtp',
    async send(message: MailMessage, options: SendOptions = {}) {
      const { to, kind, replyTo, subject, text, html } = message;
      await enqueue({
        kind: kind ?? 'other',
        toAddress: to,
        subject,
        body: { ...(replyTo ? { replyTo } : {}), subject, text, html },
        dedupeKey: options.dedupeKey,
        sendBefore: options.sendBefore,
      });
    },
    async sendComposed(composer, data, options) {
      // A worker that does not know the composer could never send it: refused here, at once.
      if (!composers.has(composer.name)) {
        throw new Error(`The mail composer ${composer.name} is not registered with the mail queue`);
      }
      await enqueue({
        kind: options.kind,
        toAddress: options.to,
        composer: composer.name,
        composerData: data,
        dedupeKey: options.dedupeKey,
        sendBefore: options.sendBefore,
      });
    },
    close: () => deps.transport.close(),
  };

  // ── Delivery ────────────────────────────────────────────────────────────────────────────

  /** Delivered and not yet recorded (the database failed right after): recorded first thing. */
  const unrecorded = new Map<
    string,
    { kind: string; subject: string; composed: ComposedMail | null }
  >();
  /** Passes in a row whose e-mail found the server unreachable; 0 while it answers. */
  let unreachablePasses = 0;
  let unreachableSince: Date | undefined;
  let lastUnreachableReason = '';
  let isStopping = false;
  let lastStatsAt = 0;
  let lastPassErrorAt = 0;

  // A given-up e-mail keeps its body, so an operator can queue it again once the cause is fixed.
  const settledColumns = (status: MailQueueStatus, lastError: string | null) => ({
    status,
    settledAt: clock.now(),
    ...(status === 'failed' ? {} : { body: null, composerData: null }),
    claimedBy: null,
    lastError,
  });
  const heldByMe = (id: string) =>
    and(eq(mailQueue.id, id), eq(mailQueue.claimedBy, me), eq(mailQueue.status, 'sending'));

  async function claim(limit: number): Promise<ClaimedMail[]> {
    const rows = await queryRows<ClaimedMail>(
      db,
      sql`update mail_queue set status = 'sending', claimed_by = ${me}, attempts = attempts + 1
          where id in (select id from mail_queue
                       where status = 'queued' and next_attempt_at <= ${clock.now().toISOString()}
                       order by next_attempt_at
                       limit ${limit}
                       for update skip locked)
          returning id, kind, to_address, body, composer, composer_data, attempts, send_before,
                    created_at`,
    );
    return rows.sort((left, right) => +new Date(left.created_at) - +new Date(right.created_at));
  }

  /**
   * Before a pass: e-mails of dead workers, unsettled, are queued again (the dead one may have
   * sent them), and so are this worker's own that a database failure left claimed (between
   * passes it holds none but those it delivered and has still to record).
   */
  async function takeBack(): Promise<void> {
    const delivered = [...unrecorded.keys()];
    await db
      .update(mailQueue)
      .set({ status: 'queued', claimedBy: null })
      .where(
        and(
          eq(mailQueue.status, 'sending'),
          eq(mailQueue.claimedBy, me),
          delivered.length > 0 ? notInArray(mailQueue.id, delivered) : undefined,
        ),
      );
    const rows = await queryRows<{ id: string }>(
      db,
      sql`update mail_queue set status = 'queued', claimed_by = null
          where status = 'sending' and claimed_by <> ${me}
            and not ${isAliveSql(sql`mail_queue.claimed_by`, clock.now())}
          returning id`,
    );
    if (rows.length > 0) {
      deps.log.warn(
        { mails: rows.length },
        'E-mails a stopped worker was sending are queued again (it may have sent some already)',
      );
    }
  }

  /** Back to the queue without counting the attempt: the server never saw them. */
  async function giveBack(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await db
      .update(mailQueue)
      .set({ status: 'queued', claimedBy: null, attempts: sql`${mailQueue.attempts} - 1` })
      .where(
        and(
          inArray(mailQueue.id, ids),
          eq(mailQueue.claimedBy, me),
          eq(mailQueue.status, 'sending'),
        ),
      );
  }

  async function settle(
    mail: ClaimedMail,
    status: 'expired' | 'skipped' | 'failed',
    lastError: string | null = null,
  ): Promise<void> {
    await db.update(mailQueue).set(settledColumns(status, lastError)).where(heldByMe(mail.id));
    countMailDelivery(mail.kind, status);
  }

  async function recordDelivered(id: string): Promise<void> {
    const delivered = unrecorded.get(id);
    if (!delivered) return;
    await db.transaction(async (transaction) => {
      await transaction
        .update(mailQueue)
        .set({ ...settledColumns('sent', null), subject: delivered.subject })
        .where(heldByMe(id));
      await delivered.composed?.sent(transaction);
    });
    unrecorded.delete(id);
    countMailDelivery(delivered.kind, 'sent');
  }

  async function recordAllDelivered(): Promise<void> {
    for (const id of [...unrecorded.keys()]) await recordDelivered(id);
  }

  /** A refusal, or a failure of ours making the message: later, or given up. */
  async function refused(
    mail: ClaimedMail,
    error: unknown,
    isPermanent: boolean,
    /** The mail server refused it, or we could not make it (a composer's failure). */
    by: 'server' | 'us' = 'server',
  ): Promise<void> {
    const reason = describeDeliveryFailure(error);
    const next = nextMailAttempt(
      new Date(mail.created_at),
      mail.attempts,
      isPermanent,
      clock.now(),
    );
    if (!next) {
      await settle(mail, 'failed', reason);
      deps.log.error(
        { mailId: mail.id, kind: mail.kind, attempts: mail.attempts, reason },
        by === 'server'
          ? 'E-mail given up: the mail server refused it'
          : 'E-mail given up: it could not be made',
      );
      return;
    }
    await db
      .update(mailQueue)
      .set({ status: 'queued', claimedBy: null, nextAttemptAt: next, lastError: reason })
      .where(heldByMe(mail.id));
    countMailDelivery(mail.kind, 'retrying');
    deps.log.warn(
      { mailId: mail.id, kind: mail.kind, attempt: mail.attempts, nextAttemptAt: next, reason },
      by === 'server'
        ? 'E-mail refused for now; it is tried again later'
        : 'E-mail could not be made; it is tried again later',
    );
  }

  async function deliverOne(mail: ClaimedMail): Promise<Outcome> {
    const now = clock.now();
    if (mail.send_before && new Date(mail.send_before) <= now) {
      await settle(mail, 'expired');
      return 'settled';
    }
    if (now.getTime() - new Date(mail.created_at).getTime() > mailDeliveryPolicy.giveUpAfterMs) {
      await settle(mail, 'failed', 'Not delivered within three days');
      deps.log.error(
        { mailId: mail.id, kind: mail.kind },
        'E-mail given up: not delivered within three days',
      );
      return 'settled';
    }
    let composed: ComposedMail | null = null;
    let message: MailMessage;
    if (mail.composer) {
      try {
        const composer = composers.get(mail.composer);
        if (!composer) throw new Error(`No mail composer ${mail.composer} in this process`);
        composed = await composer.compose(mail.composer_data ?? {});
      } catch (error) {
        await refused(mail, error, false, 'us');
        return 'not-tried';
      }
      if (!composed) {
        await settle(mail, 'skipped');
        return 'settled';
      }
      message = composed.message;
    } else if (mail.body) {
      message = { to: mail.to_address, ...mail.body };
    } else {
      await settle(mail, 'failed', 'Nothing to send');
      return 'settled';
    }
    try {
      await deps.transport.deliver(message, {
        // A composed e-mail is made afresh on each attempt (new links): its own Message-ID.
        messageId: composed ? `${mail.id}.${mail.attempts}` : mail.id,
      });
    } catch (error) {
      await composed
        ?.notSent()
        .catch((undoError: unknown) =>
          deps.log.warn({ err: undoError, mailId: mail.id }, 'Could not undo a composed e-mail'),
        );
      const failure = classifyDeliveryFailure(error);
      if (failure === 'unreachable') {
        lastUnreachableReason = describeDeliveryFailure(error);
        await giveBack([mail.id]);
        return 'unreachable';
      }
      await refused(mail, error, failure === 'permanent');
      return 'refused';
    }
    unrecorded.set(mail.id, { kind: mail.kind, subject: message.subject, composed });
    await recordDelivered(mail.id);
    return 'sent';
  }

  /** Sends the claimed e-mails a few at a time; stops starting new ones once one is unreachable. */
  async function deliverAll(mails: ClaimedMail[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    const notStarted: string[] = [];
    let next = 0;
    let isUnreachable = false;
    const sender = async () => {
      for (let mail = mails[next++]; mail; mail = mails[next++]) {
        if (isUnreachable || isStopping) {
          notStarted.push(mail.id);
          continue;
        }
        const outcome = await deliverOne(mail).catch((error: unknown) => {
          // The database failed around this e-mail: it stays claimed by this living worker
          // until the next pass records or takes it back.
          deps.log.warn({ err: error, mailId: mail.id }, 'E-mail delivery interrupted');
          return 'not-tried' as const;
        });
        if (outcome === 'unreachable') isUnreachable = true;
        outcomes.push(outcome);
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(mailDeliveryPolicy.concurrency, mails.length) }, sender),
    );
    await giveBack(notStarted);
    return outcomes;
  }

  function noteReachability(outcomes: Outcome[]): void {
    if (outcomes.includes('unreachable')) {
      unreachablePasses += 1;
      if (!unreachableSince) {
        unreachableSince = clock.now();
        setMailServerUnreachable(true);
        deps.log.warn(
          { reason: lastUnreachableReason },
          'The mail server cannot be reached; e-mails wait in the queue and go when it answers',
        );
      }
    } else if (outcomes.includes('sent') || outcomes.includes('refused')) {
      if (unreachableSince) {
        deps.log.info(
          { unreachableSeconds: Math.round((clock.now().getTime() - +unreachableSince) / 1000) },
          'The mail server answers again; the waiting e-mails are being sent',
        );
      }
      unreachablePasses = 0;
      unreachableSince = undefined;
      setMailServerUnreachable(false);
    }
  }

  async function readStats(): Promise<void> {
    const now = Date.now();
    if (now - lastStatsAt < mailDeliveryPolicy.statsEveryMs) return;
    lastStatsAt = now;
    const [row] = await queryRows<{ waiting: number; oldest: number | null }>(
      db,
      sql`select count(*)::int as waiting,
                 extract(epoch from ${clock.now().toISOString()}::timestamptz - min(created_at))::float8 as oldest
          from mail_queue where status in ('queued', 'sending')`,
    );
    setMailQueueBacklog(Number(row?.waiting ?? 0), Math.max(0, Number(row?.oldest ?? 0)));
  }

  /** Passes run one at a time in a process (a pass takes back what this process holds). */
  let previousPass: Promise<unknown> = Promise.resolve();
  function deliverDue(): Promise<number> {
    const pass = previousPass.then(runPass, runPass);
    previousPass = pass.catch(() => undefined);
    return pass;
  }

  async function runPass(): Promise<number> {
    await recordAllDelivered();
    if (isStopping) return 0;
    await takeBack();
    // While the server is unreachable, one e-mail tries it; the others wait their turn.
    const mails = await claim(unreachablePasses > 0 ? 1 : mailDeliveryPolicy.batchSize);
    if (mails.length === 0) return 0;
    const outcomes = await deliverAll(mails);
    noteReachability(outcomes);
    return outcomes.filter((outcome) => outcome !== 'unreachable').length;
  }

  // ── The loop (workers) ──────────────────────────────────────────────────────────────────

  let isWoken = false;
  let endSleep: (() => void) | undefined;
  let isSleepInterruptible = false;
  let looping: Promise<void> | undefined;
  let stopListening: (() => Promise<void>) | undefined;

  function wake(): void {
    isWoken = true;
    if (isSleepInterruptible) endSleep?.();
  }

  function sleep(ms: number, isInterruptible: boolean): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        endSleep = undefined;
        resolve();
      }
      endSleep = done;
      isSleepInterruptible = isInterruptible;
    });
  }

  async function loop(): Promise<void> {
    while (!isStopping) {
      isWoken = false;
      let claimed = 0;
      try {
        claimed = await deliverDue();
        await readStats();
      } catch (error) {
        // The database is down or failing: said once a minute, not once a pass.
        if (Date.now() - lastPassErrorAt > 60_000) {
          lastPassErrorAt = Date.now();
          deps.log.warn({ err: error }, 'E-mail delivery pass failed; trying again shortly');
        }
      }
      if (isStopping) break;
      if (unreachablePasses > 0) {
        // A new e-mail does not shorten the wait: the server is what we wait for.
        await sleep(unreachableWaitMs(unreachablePasses), false);
      } else if (claimed === 0 && !isWoken) {
        await sleep(mailDeliveryPolicy.idlePollMs, true);
      }
    }
  }

  const delivery: MailDelivery = {
    async start() {
      if (looping) return;
      registerMailKinds(mailKinds);
      stopListening = await deps.database.listen(mailQueueChannel, {
        onNotification: wake,
        // After a gap, a notification may have been missed: look now.
        onGap: (isListening) => isListening && wake(),
      });
      looping = loop();
    },
    deliverDue,
    async stop() {
      isStopping = true;
      endSleep?.();
      await looping;
      looping = undefined;
      await stopListening?.();
      await recordAllDelivered().catch((error: unknown) =>
        deps.log.warn({ err: error }, 'Delivered e-mails could not be recorded at shutdown'),
      );
    },
  };

  return { mailer, delivery };
}
