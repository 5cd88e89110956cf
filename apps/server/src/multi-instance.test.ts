/**
 * Several instances, proven (docs/decisions/076): two ROLE=api processes and two ROLE=worker
 * processes on one fresh PostgreSQL database, with the demo data, the local billing engine and
 * its test clock, the mail outbox and the local demo camera. Customers' requests alternate
 * between the two APIs; every job effect (login mail, renewal invoice, dunning e-mail, recording)
 * must happen exactly once, rate limits and sessions must hold across instances, and a worker
 * killed with SIGKILL mid-recording and mid-billing-cycle must lose nothing and do nothing twice.
 *
 * Process time is real here (heartbeats every 10 s, dead after 30 s, decision 073), so the file
 * takes about two minutes; every wait polls with a deadline.
 */
import PgBoss from 'pg-boss';
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
  withApplicationName,
  type ServerProcess,
} from '../test/helpers/server-processes.ts';
import { demoIccid } from './seed/demo.ts';
import { deadAfterMs } from './lib/instance.ts';
import { recordingWorkFolder } from './lib/instance-workspace.ts';
import { slotKeyAt } from './modules/livestream/schedule.ts';
import { addMonths } from '@farmcam/billing/proration';
import fs from 'node:fs';

const serverUrl = process.env.TEST_DATABASE_URL;
const customerEmail = 'demo@example.com';
const topGate = demoIccid(101);
const farmyard = demoIccid(103);
const stableYard = demoIccid(201);
const testClockKey = 'billing-test-clock-offset-ms';
const cycleReachedKey = 'billing-cycle-reached-at';

interface SubscriptionRow {
  id: string;
  billing_customer_id: string;
  sim_iccid: string;
  status: string;
  current_period_end: Date;
}

describe.skipIf(!serverUrl)(
  'two API processes and two workers on one PostgreSQL database (needs TEST_DATABASE_URL: npm run test:pg)',
  () => {
    let scratch: { url: string; drop: () => Promise<void> };
    let database: pg.Pool;
    let boss: PgBoss;
    let environment: NodeJS.ProcessEnv;
    let apiA: ServerProcess;
    let apiB: ServerProcess;
    /** The running workers by name; a killed one is replaced under the same name. */
    const workers = new Map<string, ServerProcess>();
    const everyProcess: ServerProcess[] = [];
    let authorization: { authorization: string };
    let livestreamId: string;

    const query = async <Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
      (await database.query<Row>(text, values)).rows;

    const running = () => [apiA, apiB, ...workers.values()];

    async function startWorker(name: string, dataDir?: string): Promise<ServerProcess> {
      const worker = await startServerProcess(withApplicationName(scratch.url, name), {
        name,
        dataDir,
        environment: { ...environment, ROLE: 'worker' },
      });
      everyProcess.push(worker);
      workers.set(name, worker);
      return worker;
    }

    const post = (server: ServerProcess, url: string, body: object, headers: object = {}) =>
      fetch(`${server.baseUrl}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authorization, ...headers },
        body: JSON.stringify(body),
      });

    const subscriptionOf = async (iccid: string) =>
      (
        await query<SubscriptionRow>(
          'select id, billing_customer_id, sim_iccid, status, current_period_end from subscriptions where sim_iccid = $1',
          [iccid],
        )
      )[0]!;

    /** Invoices of a subscription for the period starting at `periodStart`. */
    const invoicesFor = async (subscriptionId: string, periodStart: Date) =>
      query<{ id: string; status: string }>(
        'select id, status from invoices where subscription_id = $1 and period_start = $2',
        [subscriptionId, periodStart],
      );

    /** No subscription has two invoices for one period: the ledger's exactly-once. */
    async function expectNoDuplicateInvoices() {
      const duplicates = await query(
        `select subscription_id, period_start, count(*)::int as invoices from invoices
         where subscription_id is not null and period_start is not null
         group by subscription_id, period_start, description having count(*) > 1`,
      );
      expect(duplicates).toEqual([]);
    }

    /** Every mail in the outbox was sent once (login links and dates make each one unique). */
    async function expectNoDuplicateMails() {
      const duplicates = await query(
        'select "to", subject, count(*)::int as copies from outbox group by "to", subject, text having count(*) > 1',
      );
      expect(duplicates).toEqual([]);
    }

    /**
     * One dunning e-mail per failed automatic attempt (decision 025), whoever ran the cycle: each
     * camera's mails form an unbroken chain, every "we will try again on D" followed by the
     * attempt "on D", none twice and none missing. Returns how many there are.
     */
    async function expectUnbrokenDunningChains(): Promise<number> {
      const mails = await query<{ subject: string; text: string }>(
        "select subject, text from outbox where subject like 'Payment of % failed' order by created_at, text",
      );
      const chains = new Map<string, typeof mails>();
      for (const mail of mails)
        chains.set(mail.subject, [...(chains.get(mail.subject) ?? []), mail]);
      for (const [subject, chain] of chains) {
        const attempts = chain.map((mail) => ({
          on: /On (\d+ \w+ \d{4}) we tried/.exec(mail.text)?.[1],
          next: /try your card again on (\d+ \w+ \d{4})/.exec(mail.text)?.[1],
        }));
        for (let index = 1; index < attempts.length; index += 1) {
          expect(attempts[index]!.on, `${subject}, attempt ${index + 1}`).toBe(
            attempts[index - 1]!.next,
          );
        }
      }
      return mails.length;
    }

    /** The billing clock's offset, moved by a month the way the test clock's route moves it. */
    async function moveBillingClockOneMonth(): Promise<Date> {
      const [row] = await query<{ value: number }>(
        'select value from app_settings where key = $1',
        [testClockKey],
      );
      const offset = Number(row?.value ?? 0);
      const now = new Date(Date.now() + offset);
      const target = addMonths(now, 1);
      await database.query(
        `insert into app_settings (key, value) values ($1, $2::jsonb)
         on conflict (key) do update set value = excluded.value`,
        [testClockKey, JSON.stringify(offset + (target.getTime() - now.getTime()))],
      );
      return target;
    }

    /** Queues a billing cycle as the workers' cron does every 10 minutes. */
    const queueBillingCycle = async () => (await boss.send('billing-cycle', {})) as string;

    const jobState = async (id: string) =>
      (await query<{ state: string }>('select state from pgboss.job where id = $1', [id]))[0]
        ?.state;

    beforeAll(async () => {
      scratch = await createScratchDatabase(serverUrl as string, 'farmcam_instances');
      const [portA, portB, cameraPort] = await Promise.all([freePort(), freePort(), freePort()]);
      // One configuration for the whole deployment (decision 070): the portal's address is the
      // proxy's in production; here it is API A's, so the test clock accepts that origin.
      environment = {
        PUBLIC_URL: `http://127.0.0.1:${portA}`,
        BILLING: 'local',
        BILLING_TEST_CLOCK: 'true',
        // Not the default 8554: other tests on this machine may run a demo camera at once.
        LOCAL_CAMERA_PORT: String(cameraPort),
        SHUTDOWN_GRACE_SECONDS: '0',
      };
      const startApi = (name: string, port: number) =>
        startServerProcess(withApplicationName(scratch.url, name), {
          name,
          port,
          environment: { ...environment, ROLE: 'api' },
        });
      // All four at once on the empty database: migrations, seed and queues race (decision 065).
      [apiA, apiB] = await Promise.all([startApi('api-a', portA), startApi('api-b', portB)]);
      everyProcess.push(apiA, apiB);
      await Promise.all([startWorker('worker-1'), startWorker('worker-2')]);
      database = new pg.Pool({ connectionString: scratch.url, max: 4 });
      await Promise.all(running().map((server) => waitUntilReady(server)));
      boss = new PgBoss({ connectionString: scratch.url, supervise: false, schedule: false });
      boss.on('error', () => undefined);
      await boss.start();
    }, START_UP_MS + 30_000);

    afterAll(async () => {
      // Every child, on success or failure: SIGTERM, then the process group's SIGKILL.
      await Promise.all(everyProcess.map((server) => stopServerProcess(server, 10_000)));
      await boss?.stop({ graceful: false, wait: true }).catch(() => undefined);
      await database?.end().catch(() => undefined);
      await scratch?.drop();
      for (const server of everyProcess)
        fs.rmSync(server.dataDir, { recursive: true, force: true });
    }, 60_000);

    it('sends one login mail from one worker, and the link works on the other API', async () => {
      const requested = await fetch(`${apiA.baseUrl}/api/auth/request-login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: customerEmail }),
      });
      expect(requested.status).toBe(200);
      const [job] = await query<{ id: string }>(
        "select id from pgboss.job where name = 'send-login-mail'",
      );
      await waitFor(
        'the login mail job completed',
        async () => (await jobState(job!.id)) === 'completed',
        {
          timeoutMs: 30_000,
          watch: running(),
        },
      );
      const mails = await query<{ text: string }>('select text from outbox where "to" = $1', [
        customerEmail,
      ]);
      expect(mails).toHaveLength(1);
      const loginToken = /\/login\/([A-Za-z0-9_-]+)/.exec(mails[0]!.text)?.[1];
      expect(loginToken).toBeDefined();

      const exchanged = await fetch(
        `${apiB.baseUrl}/api/auth/login?token=${encodeURIComponent(loginToken!)}`,
      );
      expect(exchanged.status).toBe(200);
      authorization = {
        authorization: `Bearer ${((await exchanged.json()) as { token: string }).token}`,
      };
      // The link works once, on any instance.
      const again = await fetch(
        `${apiA.baseUrl}/api/auth/login?token=${encodeURIComponent(loginToken!)}`,
      );
      expect(again.status).not.toBe(200);
      for (const api of [apiA, apiB]) {
        const userData = await fetch(`${api.baseUrl}/api/auth/user-data`, {
          headers: authorization,
        });
        expect(userData.status, api.name).toBe(200);
      }
    }, 45_000);

    it('holds a login-request limit across both APIs', async () => {
      // Not a customer: the answers are the same, no mail goes out (decision 062).
      const email = 'limit-across-instances@example.com';
      const ask = (api: ServerProcess) =>
        fetch(`${api.baseUrl}/api/auth/request-login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email }),
        });
      // The allowance is 5 per address and client in 15 minutes: 3 on A, 2 on B.
      const statuses = [];
      for (const api of [apiA, apiB, apiA, apiB, apiA]) statuses.push((await ask(api)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      expect((await ask(apiB)).status).toBe(429);
      expect((await ask(apiA)).status).toBe(429);
    });

    it('changes a plan once though the retry lands on the other API, and pauses it there', async () => {
      const before = await subscriptionOf(topGate);
      const invoiceCount = async () =>
        (
          await query<{ count: number }>(
            'select count(*)::int as count from invoices where subscription_id = $1',
            [before.id],
          )
        )[0]!.count;
      const invoicesBefore = await invoiceCount();
      const change = (api: ServerProcess) =>
        post(
          api,
          '/api/subscriptions/change-plan',
          { customerId: before.billing_customer_id, newPlanId: 'price_standard_month_uk' },
          { 'idempotency-key': 'several-instances-change-0001' },
        );
      const first = await change(apiA);
      expect(first.status).toBe(200);
      const firstBody = (await first.json()) as { invoice: { id: string } | null };
      // The client's retry (a lost answer) reaches the other instance: answered from the first.
      const retry = await change(apiB);
      expect(retry.status).toBe(200);
      expect(await retry.json()).toEqual(firstBody);
      // One invoice for the upgrade; none in a period's last minutes, where the pro-rated
      // difference rounds to nothing and waits for the next invoice (decision 026).
      expect(await invoiceCount()).toBe(invoicesBefore + (firstBody.invoice ? 1 : 0));

      const resumeOn = addMonths(before.current_period_end, 2).toISOString().slice(0, 10);
      const paused = await post(apiB, '/api/pause/pause-subscription', {
        customer_id: before.billing_customer_id,
        resume_date: resumeOn,
      });
      expect(paused.status, await paused.clone().text()).toBe(200);
      // Both APIs read the same pause.
      for (const api of [apiA, apiB]) {
        const dates = await fetch(
          `${api.baseUrl}/api/pause/pause-dates/${before.billing_customer_id}`,
          { headers: authorization },
        );
        expect(dates.status, api.name).toBe(200);
      }
    }, 30_000);

    it('applies one key sent to both APIs at once once: one runs, the others answer 409', async () => {
      const lambingShed = await subscriptionOf(demoIccid(102));
      const invoiceCount = async () =>
        (
          await query<{ count: number }>(
            'select count(*)::int as count from invoices where subscription_id = $1',
            [lambingShed.id],
          )
        )[0]!.count;
      const invoicesBefore = await invoiceCount();
      const change = (api: ServerProcess) =>
        post(
          api,
          '/api/subscriptions/change-plan',
          { customerId: lambingShed.billing_customer_id, newPlanId: 'price_heavy_year_uk' },
          { 'idempotency-key': 'several-instances-concurrent-0001' },
        );
      // The first request to get the key waits inside its transaction on this lock, so the
      // others arrive, on both processes, while it runs (decision 108).
      const holder = await database.connect();
      let answers: Response[];
      try {
        await holder.query('begin');
        await holder.query('select 1 from subscriptions where id = $1 for update', [
          lambingShed.id,
        ]);
        const sent = Promise.all([apiA, apiB, apiA, apiB, apiA, apiB].map(change));
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await holder.query('commit');
        answers = await sent;
      } finally {
        holder.release();
      }
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      expect(await invoiceCount()).toBe(invoicesBefore + 1);
      const first = await answers.find((answer) => answer.status === 200)!.json();
      const retry = await change(apiB);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await retry.json()).toEqual(first);
      // The key is one request: on another endpoint it is refused.
      const reused = await post(
        apiA,
        '/api/pause/cancel-pause-subscription',
        { customer_id: lambingShed.billing_customer_id },
        { 'idempotency-key': 'several-instances-concurrent-0001' },
      );
      expect(reused.status).toBe(422);
    }, 30_000);

    it('records a clip asked for on one API once, by one worker', async () => {
      const setUp = await post(apiA, '/api/livestreaming/setup-camera', {
        sim_number: farmyard,
        ports: [554],
      });
      expect(setUp.status, await setUp.clone().text()).toBe(200);
      // The schedule is saved switched off: the scheduled slot is recorded later, to be killed.
      const configured = await post(apiB, '/api/livestreaming/configure-rtsp', {
        camera_id: farmyard,
        rtsp_port: 554,
        rtsp_path: '/12',
        duration: 15,
        include_audio: false,
        is_active: false,
        schedule: 'hours=0-23;days=MON-SUN',
      });
      expect(configured.status, await configured.clone().text()).toBe(200);
      const [livestream] = await query<{ id: string }>(
        'select id from livestreams where sim_iccid = $1',
        [farmyard],
      );
      livestreamId = livestream!.id;
      const recordNow = await post(apiA, '/api/livestreaming/rtsp-now', {
        camera_id: farmyard,
        rtsp_port: 554,
        rtsp_path: '/12',
        duration: 5,
        include_audio: false,
      });
      expect(recordNow.status, await recordNow.clone().text()).toBe(200);
      const { clip_id: clipId } = ((await recordNow.json()) as { data: { clip_id: string } }).data;
      const clip = await waitFor(
        'the requested clip recorded',
        async () => {
          const [row] = await query<{ status: string; error: string | null }>(
            'select status, error from clips where id = $1',
            [clipId],
          );
          if (row?.status === 'failed') throw new Error(`The clip failed: ${row.error}`);
          return row?.status === 'ready' ? row : undefined;
        },
        { timeoutMs: 60_000, watch: running() },
      );
      expect(clip.status).toBe('ready');
      // The handler marks the clip ready; pg-boss marks its job completed just after the handler
      // returns, so on a busy machine the job can still read 'active' for a moment.
      const recordJobs = await waitFor(
        'the record job completed',
        async () => {
          const rows = await query<{ state: string }>(
            "select state from pgboss.job where name = 'livestream-record-clip'",
          );
          return rows.some((row) => row.state === 'active') ? undefined : rows;
        },
        { timeoutMs: 15_000, watch: running() },
      );
      expect(recordJobs).toEqual([{ state: 'completed' }]);
    }, 75_000);

    it('renews each subscription once when the clock moves and every instance runs the cycle', async () => {
      const [topGateBefore, farmyardBefore, stableYardBefore] = await Promise.all(
        [topGate, farmyard, stableYard].map(subscriptionOf),
      );
      const origin = { origin: environment.PUBLIC_URL as string };
      // Everyone at once: the clock advanced on A (which runs the cycle itself, like Stripe's
      // test clock), a run asked for on B, and a queued cycle for each worker.
      const [advanced, ranOnB] = await Promise.all([
        post(apiA, '/billing-engine/test-clock/advance', { months: 1 }, origin),
        post(apiB, '/billing-engine/test-clock/run', {}, origin),
        queueBillingCycle(),
        queueBillingCycle(),
      ]);
      expect(advanced.status, await advanced.clone().text()).toBe(200);
      expect(ranOnB.status).toBe(200);
      // A cross-site page may not move it (the route's CSRF guard holds on every instance).
      const crossSite = await post(
        apiB,
        '/billing-engine/test-clock/run',
        {},
        {
          origin: 'https://evil.example',
        },
      );
      expect(crossSite.status).toBe(403);
      await waitFor(
        'the queued billing cycles done',
        async () =>
          (
            await query(
              "select 1 from pgboss.job where name = 'billing-cycle' and state not in ('completed', 'failed')",
            )
          ).length === 0,
        { timeoutMs: 30_000, watch: running() },
      );
      expect(
        await query("select 1 from pgboss.job where name = 'billing-cycle' and state = 'failed'"),
      ).toEqual([]);

      for (const before of [farmyardBefore!, stableYardBefore!]) {
        const renewals = await invoicesFor(before.id, before.current_period_end);
        expect(renewals, before.sim_iccid).toHaveLength(1);
        expect((await subscriptionOf(before.sim_iccid)).current_period_end).toEqual(
          addMonths(before.current_period_end, 1),
        );
      }
      // The pause asked for on B starts on the next 1st, or on the one after when it was asked
      // for after the 25th (decision 021): nothing billed for a period in it, the one before paid.
      const [{ starts } = { starts: '' }] = await query<{ starts: string }>(
        "select coalesce(to_char(pause_starts_on, 'YYYY-MM-DD'), '') as starts from subscriptions where id = $1",
        [topGateBefore!.id],
      );
      // The tests of this file run in order on shared processes: the pause is the one asked for
      // by "changes a plan once…". Run alone (vitest -t) there is none to check.
      expect(starts, 'the pause scheduled by the earlier test "changes a plan once…"').not.toBe('');
      const renewalDay = topGateBefore!.current_period_end.toISOString().slice(0, 10);
      const billed = await invoicesFor(topGateBefore!.id, topGateBefore!.current_period_end);
      if (starts === renewalDay) {
        expect(billed).toEqual([]);
        expect((await subscriptionOf(topGate)).status).toBe('paused');
      } else {
        expect(billed).toMatchObject([{ status: 'paid' }]);
        expect(starts > renewalDay).toBe(true);
      }
      await expectNoDuplicateInvoices();
      await expectNoDuplicateMails();
      // The past-due camera's card (expired) was retried on its schedule: one mail per attempt.
      expect(await expectUnbrokenDunningChains()).toBeGreaterThan(0);
    }, 60_000);

    it('loses nothing when a worker is killed mid-recording and another mid-billing-cycle', async () => {
      // ── Mid-recording: a scheduled slot, queued as the scheduler queues it ──────────────────
      const slot = slotKeyAt(new Date());
      const switchedOn = await post(apiB, '/api/livestreaming/set-active', {
        camera_id: farmyard,
        is_active: true,
      });
      expect(switchedOn.status, await switchedOn.clone().text()).toBe(200);
      await boss.send(
        'livestream-record-clip',
        { kind: 'scheduled', livestreamId, slot },
        { singletonKey: `${livestreamId}:${slot}`, singletonSeconds: 3600 },
      );
      const claimed = await waitFor(
        'the slot being recorded',
        async () => {
          const [row] = await query<{ id: string; claimed_by: string; pid: number }>(
            `select clips.id, clips.claimed_by, instances.pid from clips
             join instances on instances.id = clips.claimed_by
             where clips.livestream_id = $1 and clips.slot = $2 and clips.status = 'recording'`,
            [livestreamId, slot],
          );
          return row;
        },
        { timeoutMs: 30_000, watch: running() },
      );
      const recordingWorker = [...workers.values()].find(
        (worker) => worker.child.pid === claimed.pid,
      )!;
      expect(recordingWorker, 'the recording worker is one of ours').toBeDefined();
      // ffmpeg is writing: the clip's file is in the worker's own temporary folder.
      const workFolder = recordingWorkFolder(recordingWorker.dataDir, claimed.claimed_by);
      await waitFor(
        'ffmpeg writing the clip',
        async () =>
          fs.existsSync(workFolder) &&
          fs.readdirSync(workFolder).some((file) => fs.statSync(`${workFolder}/${file}`).size > 0),
        { timeoutMs: 20_000, watch: running() },
      );
      await killServerProcess(recordingWorker);
      const killedAt = performance.now();
      workers.delete(recordingWorker.name);
      // Restarted on its data directory, as an orchestrator would; a new instance id.
      await startWorker(recordingWorker.name, recordingWorker.dataDir);

      // ── Mid-billing-cycle: the cycle held on one subscription's row, then its worker killed ──
      const renewing = await Promise.all([farmyard, stableYard].map(subscriptionOf));
      const holder = new pg.Client({ connectionString: scratch.url });
      await holder.connect();
      let billingWorker: ServerProcess | undefined;
      try {
        await holder.query('begin');
        await holder.query('select 1 from subscriptions where id = $1 for update', [
          renewing[1]!.id,
        ]);
        const target = await moveBillingClockOneMonth();
        expect(target.getTime()).toBeGreaterThan(renewing[1]!.current_period_end.getTime());
        await queueBillingCycle();
        const blocked = await waitFor(
          'a worker’s billing cycle waiting on the held row',
          async () =>
            (
              await query<{ application_name: string }>(
                `select application_name from pg_stat_activity
                 where datname = current_database() and wait_event_type = 'Lock'
                   and wait_event in ('transactionid', 'tuple')
                   and application_name like 'worker-%'`,
              )
            )[0]?.application_name,
          { timeoutMs: 30_000, watch: running() },
        );
        billingWorker = workers.get(blocked)!;
        // Truly mid-cycle: the killed run had not reached the new period's date.
        const [reachedBefore] = await query<{ value: string }>(
          'select value from app_settings where key = $1',
          [cycleReachedKey],
        );
        expect(new Date(reachedBefore!.value).getTime()).toBeLessThan(
          renewing[1]!.current_period_end.getTime(),
        );
        await killServerProcess(billingWorker);
        workers.delete(blocked);
      } finally {
        await holder.query('rollback').catch(() => undefined);
        await holder.end();
      }
      await startWorker(billingWorker!.name, billingWorker!.dataDir);
      await Promise.all(running().map((server) => waitUntilReady(server)));
      // The cron's next run (every 10 minutes) finds the cycle where the killed one left it.
      const nextCycle = await queueBillingCycle();
      await waitFor(
        'the next billing cycle completed',
        async () => (await jobState(nextCycle)) === 'completed',
        { timeoutMs: 60_000, watch: running() },
      );
      const [reached] = await query<{ value: string }>(
        'select value from app_settings where key = $1',
        [cycleReachedKey],
      );
      for (const before of renewing) {
        expect(
          await invoicesFor(before!.id, before!.current_period_end),
          before!.sim_iccid,
        ).toHaveLength(1);
        expect((await subscriptionOf(before!.sim_iccid)).current_period_end).toEqual(
          addMonths(before!.current_period_end, 1),
        );
      }
      expect(new Date(reached!.value).getTime()).toBeGreaterThan(
        renewing[1]!.current_period_end.getTime(),
      );
      await expectNoDuplicateInvoices();
      await expectUnbrokenDunningChains();

      // ── The killed recording, taken over once a surviving worker sees it dead ──────────────
      const recovered = await waitFor(
        'the killed slot recorded again',
        async () => {
          const rows = await query<{
            id: string;
            status: string;
            recoveries: number;
            claimed_by: string | null;
            error: string | null;
          }>(
            'select id, status, recoveries, claimed_by, error from clips where livestream_id = $1 and slot = $2',
            [livestreamId, slot],
          );
          if (rows[0]?.status === 'failed') throw new Error(`The slot failed: ${rows[0].error}`);
          return rows.length === 1 && rows[0]!.status === 'ready' ? rows[0] : undefined;
        },
        { timeoutMs: deadAfterMs + 60_000, watch: running() },
      );
      const recoverySeconds = (performance.now() - killedAt) / 1000;
      expect(recovered).toMatchObject({ id: claimed.id, recoveries: 1 });
      expect(recovered.claimed_by).not.toBe(claimed.claimed_by);
      // Within about a minute of the kill, though the machine is busy.
      expect(recoverySeconds).toBeLessThan(90);
      // One recording per slot, nothing left "recording", and every slot's clip recorded once.
      expect(
        await query(
          'select slot from clips where livestream_id = $1 and slot not like $2 group by slot having count(*) > 1',
          [livestreamId, 'now:%'],
        ),
      ).toEqual([]);
      expect(await query("select id from clips where status = 'recording'")).toEqual([]);
      await expectNoDuplicateMails();
    }, 300_000);

    it('refuses a session on one API as soon as it is logged out on the other', async () => {
      const loggedOut = await post(apiA, '/api/auth/logout', {});
      expect(loggedOut.status).toBe(204);
      const status = await waitFor(
        'the session refused on B',
        async () => {
          const response = await fetch(`${apiB.baseUrl}/api/auth/user-data`, {
            headers: authorization,
          });
          return response.status === 401 ? 401 : undefined;
        },
        // Evicted by NOTIFY, well before the session cache's 5 s (decision 065).
        { timeoutMs: 2_000, intervalMs: 20 },
      );
      expect(status).toBe(401);
    });
  },
);
